// Unit tests of core/sha256: the FIPS 180-2 example messages (empty, "abc", the 448- and 896-bit
// messages, one million 'a'), and files of lengths around the 64-byte block and the 64 KiB read size
// hashed both by sha256_file and by coreutils' sha256sum. One rank, a temporary directory, milliseconds.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "core/sha256.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using stratus::sha256_file;
using stratus::sha256_hex;

namespace {

using TempDir = test::TempDir;

/// The first word sha256sum prints for `path` (empty when the tool fails).
std::string sha256sum_tool(const fs::path& path) {
  const std::string cmd = "sha256sum '" + path.string() + "'";
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {};
  char buf[256] = {};
  const bool got = std::fgets(buf, sizeof buf, p) != nullptr;
  ::pclose(p);
  if (!got) return {};
  const std::string line(buf);
  return line.substr(0, line.find(' '));
}

}  // namespace

TEST_CASE("sha256_hex matches the FIPS 180 example messages", "[sha256]") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex(nullptr, 0) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmn"
                   "opqrstnopqrstu") == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256_file agrees with sha256sum around block and buffer boundaries", "[sha256]") {
  TempDir t("stratus_sha256");
  unsigned x = 12345;
  for (std::size_t n : {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 65535, 65536, 65537, 200003}) {
    const fs::path f = t.path / ("data_" + std::to_string(n));
    std::string bytes(n, '\0');
    for (char& c : bytes) {
      x = x * 1103515245u + 12345u;
      c = static_cast<char>(x >> 16);
    }
    std::ofstream(f, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    INFO("length " << n);
    const std::string tool = sha256sum_tool(f);
    REQUIRE(tool.size() == 64);
    CHECK(sha256_file(f.string()) == tool);
    CHECK(sha256_hex(bytes) == tool);
  }
}

TEST_CASE("sha256_file names a file it cannot read", "[sha256]") {
  TempDir t("stratus_sha256");
  const std::string missing = (t.path / "missing.txt").string();
  CHECK_THROWS_WITH(sha256_file(missing), Contains(missing));
  CHECK_THROWS_AS(sha256_file(missing), stratus::InputError);
  CHECK_THROWS_WITH(sha256_file(t.path.string()), Contains(t.path.string()));  // a directory
}
