// Unit tests of the output directory's validation and lock (src/io/output_dir.*) and of the disk-space
// check (src/io/space.*): which names and directories are refused, that a second lock on the same run is
// refused while the first is held and granted once it is released, that stale temporaries of the run go
// and nothing else does, and that a request larger than the file system is refused before anything is
// written. One rank, a temporary directory, milliseconds.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "core/error.hpp"
#include "io/output_dir.hpp"
#include "io/space.hpp"
#include "message_matcher.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using stratus::check_output_file_name;
using stratus::check_output_location;
using stratus::CollectiveError;
using stratus::InputError;
using stratus::is_run_output;
using stratus::is_stale_temporary;
using stratus::move_aside_earlier_run;
using stratus::OutputLock;

namespace {

using TempDir = test::TempDir;


void touch(const fs::path& p) { std::ofstream(p) << "x"; }

}  // namespace

TEST_CASE("check_output_location refuses names and directories a run could not use", "[io]") {
  TempDir t("stratus_output_dir");
  const std::string d = (t.path / "out").string();
  CHECK_NOTHROW(check_output_location(d, "run"));
  CHECK_NOTHROW(check_output_location((t.path / "a" / "b").string(), "run"));  // created later
  CHECK_FALSE(fs::exists(d));                                                  // checking writes nothing
  CHECK_THAT(input_error([&] { check_output_location(d, ""); }), Contains("'run.name' must not be empty"));
  CHECK_THAT(input_error([&] { check_output_location(d, std::string(201, 'n')); }), Contains("at most 200"));
  CHECK_NOTHROW(check_output_location(d, std::string(200, 'n')));
  CHECK_THAT(input_error([&] { check_output_location(d, "a/b"); }), Contains("without '/'"));
  CHECK_THAT(input_error([&] { check_output_location(d, ".."); }), Contains("without '/'"));
  CHECK_THAT(input_error([&] { check_output_location(d, std::string("a\0b", 3)); }), Contains("control character"));
  CHECK_THAT(input_error([&] { check_output_location(d, "a\tb"); }), Contains("control character"));
  CHECK_THAT(input_error([&] { check_output_location("", "run"); }), Contains("'run.output_dir' must not be empty"));
  touch(t.path / "file");
  CHECK_THAT(input_error([&] { check_output_location((t.path / "file").string(), "run"); }),
             Contains("exists and is not a directory"));
  CHECK_THAT(input_error([&] { check_output_location((t.path / "file" / "sub").string(), "run"); }),
             Contains("is not a directory"));
  if (::geteuid() != 0) {  // root may write anywhere
    fs::create_directory(t.path / "ro");
    ::chmod((t.path / "ro").c_str(), 0500);
    CHECK_THAT(input_error([&] { check_output_location((t.path / "ro").string(), "run"); }), Contains("not writable"));
    CHECK_THAT(input_error([&] { check_output_location((t.path / "ro" / "new").string(), "run"); }),
               Contains("cannot be created"));
  }
}

TEST_CASE("check_output_file_name keeps files inside the output directory", "[io]") {
  CHECK_NOTHROW(check_output_file_name("md.write_data", "final.data"));
  for (const std::string bad : {"../x.data", "/etc/passwd", "sub/x.data", "..", ".", ""}) {
    CHECK_THAT(input_error([&] { check_output_file_name("md.write_data", bad); }),
               Contains("key 'md.write_data'") && Contains("plain file name"));
  }
  CHECK_THAT(input_error([&] { check_output_file_name("md.write_data", std::string("a\0b", 3)); }),
             Contains("control character"));
}

TEST_CASE("is_stale_temporary matches the run's temporaries only", "[io]") {
  for (const std::string f : {"g_000010.h5.tmp", "g.xmf.tmp", "g_000010.xmf.tmp", "g_chk_00000010.h5.tmp",
                              "g_000010.h5.reserve", "g_history.csv.tmp", "g.h5md.reserve", "g_from_00000100.h5md.tmp",
                              "g_chk_00000010.h5.tmp.1234", "g_report.json.tmp.99", "g.done.tmp.7"})
    CHECK(is_stale_temporary(f, "g"));
  for (const std::string f : {"g_000010.h5", "g.xmf", "g_chk_00000010.h5", "other_000010.h5.tmp", "gx_000010.h5.tmp",
                              "g_notes.tmp", "g_000010.h5.tmp.abc", "g_a_000010.h5.tmp", ".g.lock"})
    CHECK_FALSE(is_stale_temporary(f, "g"));
  // A run whose name extends another's is not the other's.
  CHECK_FALSE(is_stale_temporary("g_b_000010.h5.tmp", "g"));
  CHECK(is_stale_temporary("g_b_000010.h5.tmp", "g_b"));
}

TEST_CASE("is_run_output matches the run's finished outputs only", "[io]") {
  for (const std::string f : {"g.xmf", "g.h5md", "g_history.csv", "g_report.json", "g.done", "g_000010.h5",
                              "g_000010.xmf", "g_chk_00000010.h5", "g_from_00000100.h5md", "g_from_00000100.xmf"})
    CHECK(is_run_output(f, "g"));
  for (const std::string f : {"g_000010.h5.tmp", "g_report.json.tmp.12", "other_000010.h5", "gx_000010.h5",
                              "g_notes.txt", "g_b_000010.h5", "g_chk_x.h5", ".g.lock", "g.earlier-1", "g.prom"})
    CHECK_FALSE(is_run_output(f, "g"));
}

TEST_CASE("move_aside_earlier_run moves the run's outputs into NAME.earlier-K, nothing else", "[io]") {
  TempDir t("stratus_output_dir");
  const fs::path d = t.path / "out";
  fs::create_directories(d);
  for (const char* f : {"g_history.csv", "g_000010.h5", "g.done", "g_chk_00000010.h5", "h_history.csv", "notes.txt"})
    touch(d / f);
  auto [n, where] = move_aside_earlier_run(MPI_COMM_WORLD, d.string(), "g");
  CHECK(n == 4);
  CHECK(where == (d / "g.earlier-1").string());
  for (const char* f : {"g_history.csv", "g_000010.h5", "g.done", "g_chk_00000010.h5"}) {
    CHECK_FALSE(fs::exists(d / f));
    CHECK(fs::exists(d / "g.earlier-1" / f));
  }
  CHECK(fs::exists(d / "h_history.csv"));
  CHECK(fs::exists(d / "notes.txt"));
  // A second earlier run goes next to the first; a directory without outputs of the run is left alone.
  touch(d / "g_history.csv");
  CHECK(move_aside_earlier_run(MPI_COMM_WORLD, d.string(), "g").second == (d / "g.earlier-2").string());
  CHECK(move_aside_earlier_run(MPI_COMM_WORLD, d.string(), "g").first == 0);
  CHECK_FALSE(fs::exists(d / "g.earlier-3"));
}

TEST_CASE("OutputLock: one writer per run and directory; stale temporaries removed", "[io]") {
  TempDir t("stratus_output_dir");
  const std::string d = (t.path / "out").string();
  fs::create_directories(d);
  touch(fs::path(d) / "g_000010.h5.tmp");
  touch(fs::path(d) / "g_000010.h5");
  touch(fs::path(d) / "h_000010.h5.tmp");
  {
    const OutputLock first(MPI_COMM_WORLD, d, "g");
    CHECK_FALSE(fs::exists(fs::path(d) / "g_000010.h5.tmp"));
    CHECK(fs::exists(fs::path(d) / "g_000010.h5"));
    CHECK(fs::exists(fs::path(d) / "h_000010.h5.tmp"));
    CHECK_THAT(input_error([&] { OutputLock second(MPI_COMM_WORLD, d, "g"); }),
               Contains("is being written by another process (pid " + std::to_string(::getpid())));
    CHECK_NOTHROW(OutputLock(MPI_COMM_WORLD, d, "h"));  // another run name: its own lock and temporaries
    CHECK_FALSE(fs::exists(fs::path(d) / "h_000010.h5.tmp"));
  }
  CHECK_NOTHROW(OutputLock(MPI_COMM_WORLD, d, "g"));  // released with the first
  // A directory that cannot be created is one CollectiveError.
  touch(t.path / "file");
  CHECK_THROWS_AS(OutputLock(MPI_COMM_WORLD, (t.path / "file" / "sub").string(), "g"), CollectiveError);
}

TEST_CASE("reserve_space refuses more than the file system holds, before writing", "[io]") {
  TempDir t("stratus_output_dir");
  const std::string f = (t.path / "big.h5.tmp").string();
  CHECK_NOTHROW(stratus::reserve_space(MPI_COMM_WORLD, f, 4096.0));
  CHECK_FALSE(fs::exists(f));
  CHECK_FALSE(fs::exists(f + ".reserve"));
  try {
    stratus::reserve_space(MPI_COMM_WORLD, f, 1e18);  // an exabyte
    FAIL("an exabyte was granted");
  } catch (const CollectiveError& e) {
    CHECK_THAT(std::string(e.what()), Contains("cannot write '" + f + "'") && Contains("needed"));
  }
  CHECK_FALSE(fs::exists(f + ".reserve"));
  CHECK(stratus::with_metadata(0.0) > 0.0);
  CHECK(stratus::with_metadata(1e9) >= 1e9);
}
