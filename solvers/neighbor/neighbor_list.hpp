// Cell-binned Verlet neighbor lists for particle methods, knowing no physics, no periodicity and no MPI:
// the caller stores n_local owned atoms followed by n_ghost ghost atoms (periodic images, atoms of other
// ranks) in one ParticleVec and gives a bounding box [lo, hi) that holds all of them.
//   Binning: bins of edge >= (cutoff + skin) / 2 (as many as fit in each direction, at least one) with
//   the stencil of bins within two bins whose boxes come closer than cutoff + skin (LAMMPS' choice of
//   bin size), clipped at the box faces (no wrap-around), so a box narrower than five bins is
//   handled without double counting. Counting sort with atomics, exclusive scan, fill, and then a sort
//   by atom index within each bin: the result does not depend on thread scheduling.
//   Lists: for each owned atom i, its partner count and a row of partners: those in i's own bin, then
//   those of the stencil rows in turn, each in index order (deterministic; a stencil row is a run of bins
//   along x, whose atoms and their positions, packed in bin order, are consecutive in memory;
//   neighbor_stencil.hpp). A half list searches the bins whose owned atoms it never takes for their ghosts
//   only. On AVX-512 or AVX2 CPUs the build goes bin by bin: the candidates of a bin's atoms are gathered
//   once and tested 8 or 4 at a time (neighbor_simd.hpp). Built in one pass into fixed-width rows (widened
//   and repeated in the rare build that needs more), with no fixed maximum and no second copy. The rows are stored one
//   of two ways (ListLayout): atom by atom (a row is consecutive: vector loads on CPUs), or slot by slot (entry k of
//   consecutive atoms is consecutive: coalesced loads when a GPU thread handles one atom). A pair (i, j) is
//   listed when |x_i - x_j|^2 < (cutoff + skin)^2 (strict: pairs at exactly cutoff + skin are left out).
//     full: every j != i, owned or ghost.
//     half: each pair of owned atoms once (found from the forward rows of the stencil, from the bins
//           after i's in its own row, or from i's own bin when j > i), plus every ghost j: a pair with a ghost is
//           listed from both sides (by this rank and the one that owns the ghost), so no force needs to go back to the
//           ghost's owner (with newton_ghost, such a pair is listed once, from the side whose partner lies above it,
//           and the caller reverse-communicates the ghost forces).
//   Rebuild: positions at the last build are kept; needs_rebuild(x) is true when an owned atom moved
//   strictly more than skin / 2 since (a device max-reduction).
// All per-step work runs on the device; the host only reads back a few scalars.
#pragma once
#include <utility>
#include <vector>

#include "core/types.hpp"

namespace stratus {

/// How the rows of a list are stored: `atoms` row after row (CPUs), `slots` entry k of every atom after
/// entry k - 1 of every atom (GPUs: coalesced); `automatic` is `slots` where the GPU paths are taken
/// (a GPU build, or STRATUS_GPU_PATHS=1), `atoms` otherwise.
enum class ListLayout { automatic, atoms, slots };

/// The partners of the owned atoms, as kernels read them: count(i) partners, partner k of atom i at
/// (i, k) = entries(start(i) + k * slot_stride). Atom-major rows on a host-accessible memory space are
/// compacted after the fill (start(i) from `starts`, slot_stride 1: a CSR list); slot-major rows keep their
/// fixed width (start(i) = i, slot_stride = the column length). row(i)[k * slot_stride] is the same entry.
struct NeighborRows {
  Kokkos::View<const int*, MemSpace> entries;
  Kokkos::View<const int*, MemSpace> counts;
  Kokkos::View<const long long*, MemSpace> starts;  // empty: start(i) = i * atom_stride
  long long atom_stride = 0;                        // from atom i's row to atom i + 1's, without starts
  long long slot_stride = 0;                        // from entry k of a row to entry k + 1
  KOKKOS_INLINE_FUNCTION int count(int i) const { return counts(i); }
  KOKKOS_INLINE_FUNCTION long long start(int i) const { return starts.data() ? starts(i) : i * atom_stride; }
  KOKKOS_INLINE_FUNCTION const int* row(int i) const { return entries.data() + start(i); }
  KOKKOS_INLINE_FUNCTION int operator()(int i, int k) const { return entries(start(i) + k * slot_stride); }
};

struct NeighborParams {
  double cutoff = 0.0;  ///< interaction cutoff [length], > 0
  double skin = 0.0;    ///< Verlet skin [length], >= 0
  bool half = false;    ///< half list (Newton on) instead of a full list
  /// Half lists: list a pair with a ghost once, from the side whose partner lies above (z, y, x), instead
  /// of from both sides; the caller must then sum the ghosts' forces back to their owners.
  bool newton_ghost = false;
  /// The portable candidate loop even where an AVX-512 or AVX2 one exists (tests compare the two lists).
  bool portable = false;
  ListLayout layout = ListLayout::automatic;

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

  /// The lists of the last build (see NeighborRows).
  NeighborRows rows() const;
  /// The layout of the last build's rows (never automatic).
  ListLayout layout() const { return layout_; }
  /// The lists on the host, atom by atom (tests and diagnostics).
  std::vector<std::vector<int>> host_lists() const;

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
  ListLayout layout_ = ListLayout::atoms;
  Kokkos::View<int*, MemSpace> rows_;  // the lists: fixed-width rows (grow-only, as every array here)
  long long atom_stride_ = 0, slot_stride_ = 0;
  Kokkos::View<long long*, MemSpace> starts_;  // compacted atom-major rows: where each row starts
  bool compact_ = false;                       // the last build's rows are compacted (starts_ holds them)
  Kokkos::View<double* [3], Kokkos::LayoutLeft, MemSpace> packed_;  // positions in bin order (grow-only)
  int capacity_ = 32;                       // row width of the next build
  ParticleVec x_build_;                     // owned positions at the last build (n_local rows used)
  // Work arrays of a build: atoms' bins, per-bin counts, bins' first atoms, atoms in bin order, bins'
  // first ghosts; and the per-atom partner counts of the lists.
  Kokkos::View<int*, MemSpace> atom_bin_, bin_count_, bin_start_, bin_atoms_, bin_ghost_, count_;
  // The SIMD build's candidates of a bin, per thread: positions (x, y, z blocks) and atom indices.
  Kokkos::View<double*, MemSpace> gathered_;
  Kokkos::View<int*, MemSpace> gathered_atoms_;
};

}  // namespace stratus
