// x^y for positive x written out in plain arithmetic (bit manipulation and polynomials, no libm call and
// no table), so that a compiler vectorises the loops that call it: the equation of state of the Euler
// solver evaluates p = C0 (rho theta)^gamma at every face of every stage, and a libm pow per face was
// half of the solver's time on CPUs. Accuracy: relative error below (|y ln x| + 2) 1.5e-16 (the rounding
// of y ln x carried through exp; 2.3e-15 for the equation of state at rho theta = 1e4; the test measures it
// against std::pow) for normal positive x and |y ln x| < 700; 0, subnormal, negative, infinite or NaN x
// give NaN.
// The result is a pure function of (x, y): the same bits on every rank, thread and vector lane. On GPUs
// the device pow is used (already vectorised across threads), and so is libm's on CPUs without AVX2.
#pragma once
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>

namespace stratus::fast_math {

namespace detail {
inline double from_bits(std::uint64_t b) { return __builtin_bit_cast(double, b); }
inline std::uint64_t to_bits(double d) { return __builtin_bit_cast(std::uint64_t, d); }
constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 with 32 trailing zero bits: k * kLn2Hi is exact
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - kLn2Hi
constexpr double kLog2e = 1.44269504088896338700e+00;
constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer held in the low bits
}  // namespace detail

/// ln x for normal positive x: x = m 2^e with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh((m-1)/(m+1)) by
/// its series to the term f^23 (truncation below 1e-19 for |f| <= 0.172).
__attribute__((always_inline)) inline double log_pos(double x) {
  using namespace detail;
  const std::uint64_t bits = to_bits(x);
  // The biased exponent as a double, through the 2^52 trick (no integer-to-double conversion to vectorise).
  double e = from_bits((bits >> 52) | 0x4330000000000000ULL) - (4503599627370496.0 + 1023.0);
  double m = from_bits((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);  // [1, 2)
  const bool big = m > 1.41421356237309504880;
  m = big ? 0.5 * m : m;
  e = big ? e + 1.0 : e;
  const double f = (m - 1.0) / (m + 1.0), s = f * f;
  const double p =
      1.0 / 3 +
      s * (1.0 / 5 +
           s * (1.0 / 7 +
                s * (1.0 / 9 +
                     s * (1.0 / 11 +
                          s * (1.0 / 13 + s * (1.0 / 15 + s * (1.0 / 17 + s * (1.0 / 19 + s * (1.0 / 21 + s / 23.0)))))))));
  const double ln_m = 2.0 * f + 2.0 * f * s * p;
  return e * kLn2Hi + (ln_m + e * kLn2Lo);
}

/// e^t for |t| < 708: t = k ln 2 + r with |r| <= ln2 / 2, e^r by its Taylor series to r^13, times 2^k.
__attribute__((always_inline)) inline double exp_finite(double t) {
  using namespace detail;
  const double kr = t * kLog2e + kRound;
  const double k = kr - kRound;
  const double r = (t - k * kLn2Hi) - k * kLn2Lo;
  double q = 1.0 / 6227020800.0;  // 1/13!
  q = 1.0 / 479001600.0 + r * q;
  q = 1.0 / 39916800.0 + r * q;
  q = 1.0 / 3628800.0 + r * q;
  q = 1.0 / 362880.0 + r * q;
  q = 1.0 / 40320.0 + r * q;
  q = 1.0 / 5040.0 + r * q;
  q = 1.0 / 720.0 + r * q;
  q = 1.0 / 120.0 + r * q;
  q = 1.0 / 24.0 + r * q;
  q = 1.0 / 6.0 + r * q;
  q = 0.5 + r * q;
  const double er = 1.0 + r * (1.0 + r * q);
  // 2^k from the low bits of kr (k + 1023 into the exponent field).
  const double two_k = from_bits((to_bits(kr) + 1023ULL) << 52);
  return er * two_k;
}

/// Whether pow_pos takes the polynomial path: on CPUs with vectors of 4 doubles or more (the 64-bit
/// integer selects and shifts it needs vectorise there; with SSE2 alone it would be slower than libm).
#if defined(__AVX2__) || defined(__AVX512F__) || defined(__aarch64__)
constexpr bool kVectorPow = true;
#else
constexpr bool kVectorPow = false;
#endif

/// x^y for x > 0 (NaN otherwise): exp(y ln x), or the library pow where kVectorPow is false and on GPUs.
KOKKOS_FORCEINLINE_FUNCTION double pow_pos(double x, double y) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return ::pow(x, y);
#else
  const bool ok = (x >= 2.2250738585072014e-308) & (x <= 1.7976931348623157e308);  // normal, finite, positive
  // Where !ok the polynomial path computes garbage, replaced below (a select, not a branch: it vectorises).
  const double v = kVectorPow ? exp_finite(y * log_pos(x)) : std::pow(x, y);
  return ok ? v : detail::from_bits(0x7ff8000000000000ULL);
#endif
}

}  // namespace stratus::fast_math
