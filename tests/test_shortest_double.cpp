// to_chars_shortest (core/shortest_double.hpp) against std::to_chars, character for character, and read
// back with std::from_chars to the same bits: random bit patterns over and around the exponents of its own
// path, values as MD data files hold them (positions, velocities, lattice multiples), the powers of two
// and their neighbours (where the rounding interval is lopsided), exact decimals (ties, trailing zeros)
// and the values it hands to std::to_chars (zero, subnormals, infinities, NaN, huge and tiny magnitudes).
#include <catch2/catch.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "core/shortest_double.hpp"

namespace {

struct Tally {
  long checked = 0, differ = 0, unread = 0;
  std::string first;  // the first difference
};

void check(Tally& t, double v) {
  char want[64], got[64];
  const char* want_end = std::to_chars(want, want + sizeof want, v).ptr;
  const char* got_end = stratus::to_chars_shortest(got, v);
  ++t.checked;
  const std::string w(static_cast<const char*>(want), want_end), g(static_cast<const char*>(got), got_end);
  if (w != g) {
    if (t.differ++ == 0) t.first = w + " printed as " + g;
    return;
  }
  if (std::isfinite(v)) {
    double back = 0.0;
    const auto r = std::from_chars(got, got_end, back);
    if (r.ec != std::errc() || r.ptr != got_end || std::memcmp(&back, &v, sizeof v) != 0) ++t.unread;
  }
}

double from_bits(std::uint64_t b) {
  double v = 0.0;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

}  // namespace

TEST_CASE("to_chars_shortest writes what std::to_chars writes, and it reads back", "[core]") {
  Tally t;
  std::mt19937_64 rng(20261208);
  // Random mantissas and signs at every exponent from 2^-80 to 2^70 (its own path is [2^-13, 2^52)).
  for (int e = -80; e <= 70; ++e) {
    for (int k = 0; k < 4000; ++k) {
      const std::uint64_t biased = static_cast<std::uint64_t>(e + 1023);
      check(t, from_bits((rng() & ((std::uint64_t{1} << 52) - 1)) | (biased << 52) | (rng() & (std::uint64_t{1} << 63))));
    }
  }
  // What data files hold: coordinates in a box, velocities, multiples of a lattice constant.
  std::uniform_real_distribution<double> box(0.0, 67.183847655300298), vel(-5.0, 5.0);
  for (int k = 0; k < 200000; ++k) {
    check(t, box(rng));
    check(t, vel(rng));
  }
  for (int k = -20000; k <= 20000; ++k) {
    for (double step : {0.8397980956912536, 0.1, 0.01, 0.25, 1e-3, 1.0, 5.0 / 3.0}) check(t, k * step);
  }
  // Powers of two and their neighbours: the interval below a power of two is half as wide.
  for (int e = -80; e <= 70; ++e) {
    const double p = std::ldexp(1.0, e);
    for (double v : {p, std::nextafter(p, 0.0), std::nextafter(p, 2 * p), -p}) check(t, v);
  }
  // Exact decimals and their neighbours: ties and trailing zeros.
  for (long k = 1; k < 200000; ++k) {
    const double d = k * 1e-4;
    for (double v : {d, std::nextafter(d, 0.0), std::nextafter(d, 1.0), 1.0 / k, k * 1e9}) check(t, v);
  }
  // Handed to std::to_chars.
  for (double v : {0.0, -0.0, std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(),
                   std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(), 1e300,
                   1e-300, 9007199254740993.0, 4503599627370496.0, 4503599627370495.5})
    check(t, v);
  INFO(t.checked << " values: " << t.first);
  CHECK(t.checked > 2000000);
  CHECK(t.differ == 0);
  CHECK(t.unread == 0);
}
