// The part of a uniform Cartesian grid of cells that one rank holds: owned cells, ghost width per
// direction (zero in a direction with a single global cell, so 2D and 1D problems carry no useless
// ghosts), spacing and coordinates. Arrays built from it are (var, k, j, i) with ghosts included; owned
// cells are i in [ng[0], ng[0] + n[0]) and likewise for j, k. It owns no memory.
#pragma once
#include <string>

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
  KOKKOS_INLINE_FUNCTION double center(int d, int idx) const {
    return lo[d] + (offset[d] + idx - ng[d] + 0.5) * dx[d];
  }
  /// Allocates a (nvar, nz+2g, ny+2g, nx+2g) field, zero-initialised, in the default memory space.
  Field4D allocate(const std::string& label, int nvar) const;
};

/// A 3D range policy over the owned cells of g, indices (k, j, i) as in the arrays.
inline Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>> owned_cells(const LocalGrid& g) {
  return Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>(
      {g.ng[2], g.ng[1], g.ng[0]}, {g.ng[2] + g.n[2], g.ng[1] + g.n[1], g.ng[0] + g.n[0]});
}

/// The local grid of this rank for a domain [lo, lo + length) and ghost width `ghost` in every
/// direction that has more than one global cell. Throws InputError if a rank owns fewer cells than the
/// ghost width in a decomposed direction (the halo would need more than the nearest neighbour).
LocalGrid make_local_grid(const CartDecomp& decomp, Real3 lo, Real3 length, int ghost);

}  // namespace stratus
