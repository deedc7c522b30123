// Cell-binned Verlet neighbor lists for particle methods, knowing no physics, no periodicity and no MPI:
// the caller stores n_local owned atoms followed by n_ghost ghost atoms (periodic images, atoms of other
// ranks) in one ParticleVec and gives a bounding box [lo, hi) that holds all of them.
//   Binning: bins of edge >= (cutoff + skin) / 2 (as many as fit in each direction, at least one) with
//   the stencil of bins within two bins whose boxes come closer than cutoff + skin (LAMMPS' choice of
//   bin size), clipped at the box faces (no wrap-around), so a box narrower than five bins is
//   handled without double counting. Counting sort with atomics, exclusive scan, fill, and then a sort
//   by atom index within each bin: the result does not depend on thread scheduling.
//   Lists: for each owned atom i, CSR offsets (n_local + 1) and neighbors, in stencil-row-then-index order
//   (deterministic; a row is a run of bins along x, whose atoms and their positions, packed in bin order,
//   are consecutive in memory; on AVX-512 CPUs the candidates are tested 8 at a time, neighbor_simd.hpp),
//   built in one pass into fixed-width rows (widened and repeated in the rare build
//   that needs more) and compacted, with no fixed maximum. A pair (i, j) is listed when
//   |x_i - x_j|^2 < (cutoff + skin)^2 (strict: pairs at exactly cutoff + skin are left out).
//     full: every j != i, owned or ghost.
//     half: each pair of owned atoms once (found from the forward rows of the stencil, from the bins
//           after i's in its own row, or from i's own bin when j > i), plus every ghost j: a pair with a ghost is listed from both sides (by this
//           rank and the one that owns the ghost), so no force needs to go back to the ghost's owner
//           (with newton_ghost, such a pair is listed once, from the side whose partner lies above it,
//           and the caller reverse-communicates the ghost forces).
//   Rebuild: positions at the last build are kept; needs_rebuild(x) is true when an owned atom moved
//   strictly more than skin / 2 since (a device max-reduction).
// All per-step work runs on the device; the host only reads back a few scalars.
#pragma once
#include <utility>

#include "core/types.hpp"

namespace stratus {

struct NeighborParams {
  double cutoff = 0.0;  ///< interaction cutoff [length], > 0
  double skin = 0.0;    ///< Verlet skin [length], >= 0
  bool half = false;    ///< half list (Newton on) instead of a full list
  /// Half lists: list a pair with a ghost once, from the side whose partner lies above (z, y, x), instead
  /// of from both sides; the caller must then sum the ghosts' forces back to their owners.
  bool newton_ghost = false;
  /// The portable candidate loop even where an AVX-512 one exists (tests compare the two lists).
  bool portable = false;

  /// The list cutoff cutoff + skin [length]: pairs closer than this are listed, so it is also the width
  /// of the ghost shell a decomposed caller must provide around its sub-domain. The one place the sum is
  /// written.
  double list_cutoff() const { return cutoff + skin; }
};

class NeighborList {
 public:
  /// Validates the parameters (stratus::Error for a non-positive cutoff or negative skin).
  explicit NeighborList(NeighborParams params);

  /// Bins atoms 0 .. n_local + n_ghost - 1 of x and builds the list of owned atoms 0 .. n_local - 1.
  /// Every atom must lie in [lo, hi) (stratus::Error otherwise).
  void build(const ParticleVec& x, int n_local, int n_ghost, Real3 lo, Real3 hi);

  /// True when an owned atom moved more than skin / 2 since the last build (true before any build).
  bool needs_rebuild(const ParticleVec& x) const;

  /// CSR list: the neighbors of owned atom i are neighbors()(offsets()(i) .. offsets()(i + 1) - 1).
  /// Offsets are 64-bit: one GPU can hold more than 2^31 pairs (27 M atoms of LJ with full lists).
  Kokkos::View<const long long*, MemSpace> offsets() const {
    return Kokkos::subview(offsets_, std::make_pair(0, n_local_ + 1));
  }
  Kokkos::View<const int*, MemSpace> neighbors() const { return neighbors_; }

  const NeighborParams& params() const { return params_; }
  double list_cutoff() const { return params_.list_cutoff(); }
  int n_local() const { return n_local_; }
  int n_ghost() const { return n_ghost_; }
  /// Largest neighbor count of one owned atom, and the total number of listed pairs.
  int max_neighbors() const { return max_neighbors_; }
  long long total_pairs() const { return total_pairs_; }
  /// Owned positions at the last build (what needs_rebuild() compares against).
  ParticleVec build_positions() const { return Kokkos::subview(x_build_, std::make_pair(0, n_local_), Kokkos::ALL); }
  /// Bins per direction of the last build.
  Int3 bins() const { return nbin_; }
  int builds() const { return builds_; }

 private:
  NeighborParams params_;
  int n_local_ = 0;
  int n_ghost_ = 0;
  int max_neighbors_ = 0;
  long long total_pairs_ = 0;
  int builds_ = 0;
  Int3 nbin_ = {{0, 0, 0}};
  Kokkos::View<long long*, MemSpace> offsets_;  // n_local + 1 used (grow-only, as every array here)
  Kokkos::View<int*, MemSpace> neighbors_;  // may hold more entries than total_pairs_
  Kokkos::View<int*, MemSpace> rows_;       // fixed-width rows of the single-pass fill
  Kokkos::View<double* [3], Kokkos::LayoutLeft, MemSpace> packed_;  // positions in bin order (grow-only)
  int capacity_ = 32;                       // row width of the next build
  ParticleVec x_build_;                     // owned positions at the last build (n_local rows used)
  // Work arrays of a build: atoms' bins, per-bin counts, bins' first atoms, atoms in bin order, per-atom
  // partner counts.
  Kokkos::View<int*, MemSpace> atom_bin_, bin_count_, bin_start_, bin_atoms_, count_;
};

}  // namespace stratus
