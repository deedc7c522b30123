// Order-independent sums by atomics. Floating-point addition is not associative, so a sum built by atomic
// adds from many threads (a ScatterView on a GPU) changes in its last bits from run to run with the order
// in which the threads happen to add, and runs and restarts stop being bit for bit. Here each contribution
// is rounded to a multiple of 2^-s and added as a 64-bit integer, whose addition is associative (modulo
// 2^64, exact while the sum stays within 2^63): the sum is the same in every order. s is chosen from a
// bound on every partial sum, so that 62 bits cover the bound: the rounding error of one contribution is
// at most bound * 2^-63, and a sum of n contributions is within n * bound * 2^-63 of the exact sum.
//
// A kernel that adds into an array either way goes through one of two targets with the same interface:
// `auto t = target.target()` once per work item, then `target.add(t, value, indices...)`.
#pragma once
#include <Kokkos_Core.hpp>
#include <Kokkos_ScatterView.hpp>
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

/// Adds into a ScatterView: per-thread copies on CPUs, atomics in floating point on GPUs.
template <class SV>
struct ScatterTarget {
  SV sv;
  KOKKOS_INLINE_FUNCTION auto target() const { return sv.access(); }
  template <class T, class... I>
  KOKKOS_INLINE_FUNCTION void add(T& t, double v, I... idx) const {
    t(idx...) += v;
  }
};

/// Adds into an array of fixed-point sums (unsigned long long, the shape of the array summed into).
template <class View>
struct FixedTarget {
  View acc;
  FixedPointSum fp;
  KOKKOS_INLINE_FUNCTION int target() const { return 0; }
  template <class... I>
  KOKKOS_INLINE_FUNCTION void add(int, double v, I... idx) const {
    fp.add(&acc(idx...), v);
  }
};

/// out = the sums of acc as doubles, element by element (both contiguous, of the same size).
template <class Fixed, class Real>
void fixed_to_real(const char* name, const Fixed& acc, const FixedPointSum& fp, const Real& out) {
  using Space = typename Fixed::execution_space;
  const Kokkos::View<const unsigned long long*, typename Fixed::memory_space> from(acc.data(), acc.size());
  const Kokkos::View<double*, typename Real::memory_space> to(out.data(), out.size());
  Kokkos::parallel_for(
      name, Kokkos::RangePolicy<Space>(0, static_cast<long>(from.extent(0))),
      KOKKOS_LAMBDA(long k) { to(k) = fp.real(from(k)); });
}

}  // namespace stratus
