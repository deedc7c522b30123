// SHA-256 (FIPS 180-4) digests as lowercase hexadecimal text: of a memory buffer, of a string and of a
// file read in blocks. Used for provenance (the deck, the executable, input files), not for security:
// there is no constant-time guarantee and no HMAC.
#pragma once
#include <cstddef>
#include <string>

namespace stratus {

/// SHA-256 of the `n` bytes at `data`, as 64 lowercase hexadecimal characters.
std::string sha256_hex(const void* data, std::size_t n);

/// SHA-256 of the bytes of `s`, as 64 lowercase hexadecimal characters.
std::string sha256_hex(const std::string& s);

/// SHA-256 of the contents of the file at `path`, read in blocks (any size). Throws InputError naming the
/// file when it cannot be opened or read.
std::string sha256_file(const std::string& path);

}  // namespace stratus
