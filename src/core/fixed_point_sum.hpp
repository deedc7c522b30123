// Order-independent sums by atomics. Floating-point addition is not associative, so a sum built by atomic
// adds from many threads (a ScatterView on a GPU) changes in its last bits from run to run with the order
// in which the threads happen to add, and runs and restarts stop being bit for bit. Here each contribution
// is rounded to a multiple of 2^-s and added as a 64-bit integer, whose addition is associative (modulo
// 2^64, exact while the sum stays within 2^63): the sum is the same in every order. s is chosen from a
// bound on every partial sum, so that 62 bits cover the bound: the rounding error of one contribution is
// at most bound * 2^-63, and a sum of n contributions is within n * bound * 2^-63 of the exact sum.
#pragma once
#include <Kokkos_Core.hpp>
#include <cmath>

namespace stratus {

struct FixedPointSum {
  double to_fixed = 1.0;  ///< 2^s
  double to_real = 1.0;   ///< 2^-s

  /// For sums whose every partial sum is at most bound in magnitude (bound > 0).
  static FixedPointSum for_bound(double bound) {
    int e = 0;
    std::frexp(bound > 0.0 && std::isfinite(bound) ? bound : 1.0, &e);  // bound < 2^e
    return {std::ldexp(1.0, 62 - e), std::ldexp(1.0, e - 62)};
  }
  /// The contribution v as an integer (rounded half away from zero), ready for an atomic add.
  KOKKOS_INLINE_FUNCTION unsigned long long fixed(double v) const {
    const double u = v * to_fixed;
    return static_cast<unsigned long long>(static_cast<long long>(u + (u < 0.0 ? -0.5 : 0.5)));
  }
  KOKKOS_INLINE_FUNCTION void add(unsigned long long* sum, double v) const { Kokkos::atomic_add(sum, fixed(v)); }
  /// The sum as a double.
  KOKKOS_INLINE_FUNCTION double real(unsigned long long sum) const {
    return static_cast<double>(static_cast<long long>(sum)) * to_real;
  }
};

}  // namespace stratus
