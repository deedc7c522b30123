// The part of a uniform Cartesian grid of cells that one rank holds: owned cells, ghost width per
// direction (zero in a direction with a single global cell, so 2D and 1D problems carry no useless
// ghosts), spacing and coordinates. Arrays built from it are (var, k, j, i) with ghosts included; owned
// cells are i in [ng[0], ng[0] + n[0]) and likewise for j, k. It owns no memory.
#pragma once
#include <string>
#include <type_traits>
#include <utility>

#include "core/gpu_paths.hpp"
#include "core/types.hpp"
#include "domain/cart_decomp.hpp"

namespace stratus {

struct LocalGrid {
  Int3 n{};         // owned cells per direction (x, y, z)
  Int3 ng{};        // ghost cells on each side per direction
  Int3 offset{};    // global index of the first owned cell
  Int3 global_n{};  // global cells per direction
  Real3 lo{};       // lower corner of the global domain [length unit]
  Real3 dx{};       // cell size [length unit]

  /// Array extent in direction d including ghosts.
  int extent(int d) const { return n[d] + 2 * ng[d]; }
  /// Owned cells on this rank.
  long long owned_cells() const { return static_cast<long long>(n[0]) * n[1] * n[2]; }
  /// Cell volume (in 2D/1D the unused directions still carry their extent, so this is a volume).
  double cell_volume() const { return dx[0] * dx[1] * dx[2]; }
  /// Centre coordinate in direction d of the cell with array index idx (ghosts included).
  KOKKOS_INLINE_FUNCTION double center(int d, int idx) const { return lo[d] + (offset[d] + idx - ng[d] + 0.5) * dx[d]; }
  /// Allocates a (nvar, nz+2g, ny+2g, nx+2g) field, zero-initialised, in the default memory space.
  Field4D allocate(const std::string& label, int nvar) const;
};

namespace detail {
template <class R, bool = Kokkos::is_reducer<R>::value>
struct ReduceValue {
  using type = R;
};
template <class R>
struct ReduceValue<R, true> {
  using type = typename R::value_type;
};
}  // namespace detail

/// GPUs: indices (i, j, k) with i on threadIdx.x (Kokkos' CUDA MDRange puts threadIdx.x on the first index
/// whatever the iteration direction), so that warps read contiguous LayoutRight rows. CPU builds take it
/// too under STRATUS_GPU_PATHS=1 (core/gpu_paths.hpp).
using GpuCellPolicy = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
inline GpuCellPolicy gpu_owned_cells(const LocalGrid& g) {
  // 256 threads per block: 32 along i (one warp per row segment) times 4 x 2 rows in 3D, 8 rows in 2D.
  const bool y = g.n[1] > 1, z = g.n[2] > 1;
  const int tj = y ? (z ? 4 : 8) : 1;
  const int tk = z ? (y ? 2 : 8) : 1;
  return GpuCellPolicy({g.ng[0], g.ng[1], g.ng[2]}, {g.ng[0] + g.n[0], g.ng[1] + g.n[1], g.ng[2] + g.n[2]},
                       {32, tj, tk});
}

#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
/// Runs f(i, j, k) over the owned cells of g, in the order that suits the backend.
template <class F>
void for_each_cell(const std::string& name, const LocalGrid& g, const F& f) {
  Kokkos::parallel_for(name, gpu_owned_cells(g), f);
}
#else
namespace detail {
// CPUs: one task per row of owned cells along x, the row in a loop that vectorises (cells are independent,
// as in any parallel_for; the MDRange's per-cell calls do not vectorise: the Euler output took 49 ns a
// cell through them).
template <class F>
struct CellRows {
  F f;
  int i0, i1, j0, nj, k0;
  // flatten: the kernel is inlined into the loop (GCC does not inline a large one by itself, and a call
  // in the loop stops it vectorising).
  __attribute__((flatten)) void operator()(int r) const {
    const int j = j0 + r % nj, k = k0 + r / nj;
#pragma omp simd
    for (int i = i0; i < i1; ++i) f(i, j, k);
  }
};
// A plain sum, for reductions into a scalar (what Kokkos does with a result that is not a reducer).
template <class T>
struct SumJoin {
  void init(T& v) const { v = T(); }
  void join(T& a, const T& b) const { a += b; }
};
// CPUs: one task per row of owned cells along x. The row's cells are reduced in kLanes partial values,
// cell i into partial i % kLanes, and the partials then joined: no dependence from one cell to the next
// within a block of kLanes. The Euler diagnostics took about 100 ns a cell through the MDRange's per-cell
// calls (with a libm pow each), 40 ns so.
template <class F, class T, class J>
struct CellRowsReduce {
  using value_type = T;
  static constexpr int kLanes = 8;
  F f;
  J op;  // the reducer (init and join), or SumJoin; not named join, which Kokkos would take for the functor's
  int i0, i1, j0, nj, k0;
  __attribute__((flatten)) void operator()(int r, T& v) const {
    const int j = j0 + r % nj, k = k0 + r / nj;
    T part[kLanes];
    for (int l = 0; l < kLanes; ++l) op.init(part[l]);
    int i = i0;
    for (; i + kLanes <= i1; i += kLanes) {
#pragma omp simd
      for (int l = 0; l < kLanes; ++l) f(i + l, j, k, part[l]);
    }
    for (; i < i1; ++i) f(i, j, k, part[i % kLanes]);
    for (int l = 0; l < kLanes; ++l) op.join(v, part[l]);
  }
};
}  // namespace detail

/// Runs f(i, j, k) over the owned cells of g, in the order that suits the backend.
template <class F>
void for_each_cell(const std::string& name, const LocalGrid& g, const F& f) {
  if (gpu_paths()) {
    Kokkos::parallel_for(name, gpu_owned_cells(g), f);
    return;
  }
  const detail::CellRows<F> rows{f, g.ng[0], g.ng[0] + g.n[0], g.ng[1], g.n[1], g.ng[2]};
  Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecSpace>(0, g.n[1] * g.n[2]), rows);
}
#endif

/// Reduces f(i, j, k, value&) over the owned cells of g into result (a scalar or a Kokkos reducer).
template <class F, class Result>
void reduce_cells(const std::string& name, const LocalGrid& g, const F& f, Result&& result) {
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
  if (!gpu_paths()) {
    using R = std::decay_t<Result>;
    using T = typename detail::ReduceValue<R>::type;
    const auto join = [&] {
      if constexpr (Kokkos::is_reducer<R>::value)
        return R(result);
      else
        return detail::SumJoin<T>{};
    }();
    using J = std::decay_t<decltype(join)>;
    const detail::CellRowsReduce<F, T, J> rows{f, join, g.ng[0], g.ng[0] + g.n[0], g.ng[1], g.n[1], g.ng[2]};
    Kokkos::parallel_reduce(name, Kokkos::RangePolicy<ExecSpace>(0, g.n[1] * g.n[2]), rows,
                            std::forward<Result>(result));
    return;
  }
#endif
  Kokkos::parallel_reduce(name, gpu_owned_cells(g), f, std::forward<Result>(result));
}

/// The local grid of this rank for a domain [lo, lo + length) and ghost width `ghost` in every
/// direction that has more than one global cell. Throws InputError if a rank owns fewer cells than the
/// ghost width in a decomposed direction (the halo would need more than the nearest neighbour).
LocalGrid make_local_grid(const CartDecomp& decomp, Real3 lo, Real3 length, int ghost);

}  // namespace stratus
