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
// Host adaptor: Kokkos' host MDRange runs fastest with the arrays' own (k, j, i) order; kernels take (i, j, k).
template <class F>
struct CellsKJI {
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(int k, int j, int i) const { f(i, j, k); }
};
template <class F, class T>
struct CellsKJIReduce {
  using value_type = T;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(int k, int j, int i, T& v) const { f(i, j, k, v); }
};
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
using CellPolicy = GpuCellPolicy;
inline CellPolicy owned_cells(const LocalGrid& g) { return gpu_owned_cells(g); }
template <class F>
F cell_kernel(const F& f) {
  return f;
}
template <class T, class F>
F cell_reduce_kernel(const F& f) {
  return f;
}
#else
/// CPUs: indices (k, j, i) as in the arrays, i innermost (Kokkos' host default tiles: whole rows, 2 x 2).
using CellPolicy = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>;
inline CellPolicy owned_cells(const LocalGrid& g) {
  return CellPolicy({g.ng[2], g.ng[1], g.ng[0]}, {g.ng[2] + g.n[2], g.ng[1] + g.n[1], g.ng[0] + g.n[0]});
}
template <class F>
detail::CellsKJI<F> cell_kernel(const F& f) {
  return {f};
}
template <class T, class F>
detail::CellsKJIReduce<F, T> cell_reduce_kernel(const F& f) {
  return {f};
}
#endif

#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
/// Runs f(i, j, k) over the owned cells of g, in the order that suits the backend.
template <class F>
void for_each_cell(const std::string& name, const LocalGrid& g, const F& f) {
  Kokkos::parallel_for(name, owned_cells(g), cell_kernel(f));
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
  using T = typename detail::ReduceValue<std::decay_t<Result>>::type;
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
  if (gpu_paths()) {
    Kokkos::parallel_reduce(name, gpu_owned_cells(g), f, std::forward<Result>(result));
    return;
  }
#endif
  Kokkos::parallel_reduce(name, owned_cells(g), cell_reduce_kernel<T>(f), std::forward<Result>(result));
}

/// The local grid of this rank for a domain [lo, lo + length) and ghost width `ghost` in every
/// direction that has more than one global cell. Throws InputError if a rank owns fewer cells than the
/// ghost width in a decomposed direction (the halo would need more than the nearest neighbour).
LocalGrid make_local_grid(const CartDecomp& decomp, Real3 lo, Real3 length, int ghost);

}  // namespace stratus
