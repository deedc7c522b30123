// Fused reductions: one device reduction of N values at once, each with its own operation (sum, min or
// max), as a Kokkos custom reducer. Physics kernels write `acc.add(s, x)`, `acc.lower(s, x)` or
// `acc.raise(s, x)` for slot s of the operation declared for it; the slots' identities come from the
// operations, so a kernel never initialises them.
#pragma once
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cfloat>
#include <vector>

#include "core/error.hpp"

namespace stratus {

enum class ReduceOp { sum, min, max };

/// The identity of an operation: what a slot holds before any value is added, lowered or raised.
KOKKOS_INLINE_FUNCTION double reduce_identity(ReduceOp op) {
  return op == ReduceOp::sum ? 0.0 : (op == ReduceOp::min ? DBL_MAX : -DBL_MAX);
}

/// The partial values of N reduced quantities (one per slot).
template <int N>
struct Slots {
  double v[N];
  KOKKOS_INLINE_FUNCTION void add(int s, double x) { v[s] += x; }
  KOKKOS_INLINE_FUNCTION void lower(int s, double x) { v[s] = x < v[s] ? x : v[s]; }
  KOKKOS_INLINE_FUNCTION void raise(int s, double x) { v[s] = x > v[s] ? x : v[s]; }
};

/// Kokkos reducer of Slots<N> with a per-slot operation.
template <int N>
class SlotReducer {
 public:
  using reducer = SlotReducer<N>;
  using value_type = Slots<N>;
  using result_view_type = Kokkos::View<value_type, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

  SlotReducer(const std::vector<ReduceOp>& ops, value_type& result) : value_(&result) {
    STRATUS_REQUIRE(ops.size() == static_cast<std::size_t>(N),
                    "a reduction of " << N << " slots for " << ops.size() << " declared diagnostics");
    for (int s = 0; s < N; ++s) op_[s] = ops[static_cast<std::size_t>(s)];
  }
  KOKKOS_INLINE_FUNCTION void join(value_type& dst, const value_type& src) const {
    for (int s = 0; s < N; ++s) dst.v[s] = combine(s, dst.v[s], src.v[s]);
  }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dst, const volatile value_type& src) const {
    for (int s = 0; s < N; ++s) dst.v[s] = combine(s, dst.v[s], src.v[s]);
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const {
    for (int s = 0; s < N; ++s) v.v[s] = reduce_identity(op_[s]);
  }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *value_.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return value_; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }

 private:
  KOKKOS_INLINE_FUNCTION double combine(int s, double a, double b) const {
    if (op_[s] == ReduceOp::sum) return a + b;
    if (op_[s] == ReduceOp::min) return b < a ? b : a;
    return b > a ? b : a;
  }
  ReduceOp op_[N];
  result_view_type value_;
};

/// This rank's partial values of a simulation's reduced diagnostics, in slot order, with their operations.
struct LocalReductions {
  std::vector<ReduceOp> ops;
  std::vector<double> values;
  /// The identity of every slot's operation (what an empty rank contributes).
  void reset();
  /// Copies a device result into values (its size must be ops.size()).
  template <int N>
  void assign(const Slots<N>& s) {
    values.assign(s.v, s.v + N);
  }
};

/// Collective over comm: the global values of `local`, with one MPI reduction per operation present.
std::vector<double> allreduce(MPI_Comm comm, const LocalReductions& local);
/// Collective over comm: the largest x (min for min_value) over ranks.
double global_max(MPI_Comm comm, double x);
long long global_min(MPI_Comm comm, long long x);

}  // namespace stratus
