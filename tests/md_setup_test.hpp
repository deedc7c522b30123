// What the MD set-up test files share (test_md_setup.cpp, test_md_data_file.cpp): doubles compared bit for
// bit.
#pragma once
#include <cstring>

namespace stratus::test {

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace stratus::test
