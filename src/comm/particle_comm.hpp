// Spatial-decomposition communication for molecular dynamics, LAMMPS-style: the box is cut into equal
// sub-domains on a Cartesian communicator; exchange() migrates owned atoms to the rank whose sub-domain
// holds them (wrapping periodic images and updating image flags), borders() builds the ghost atoms within
// ghost_cutoff of the sub-domain in six swaps (x down, x up, y down, y up, z down, z up, so that edge and
// corner ghosts travel through two or three swaps), and forward()/reverse() replay those swaps every step
// for positions and for per-atom sums (forces). The geometry and the swaps are a SwapPlan; which per-atom
// arrays travel is Particles::fields(), packed by the generic kernels of comm/particle_fields.hpp; MPI
// sees the buffers StagedBuffers chooses (host mirrors, or device memory with a GPU-aware MPI). Selection,
// packing and unpacking run on the device. It does not build neighbour lists, decide when to re-neighbour,
// or apply boundary conditions other than periodic wrap.
#pragma once
#include <mpi.h>

#include <array>
#include <string>
#include <vector>

#include "comm/staging.hpp"
#include "comm/swap_plan.hpp"
#include "core/types.hpp"
#include "domain/particles.hpp"

namespace stratus {

class ParticleComm {
 public:
  /// Box [lo, hi) per direction (length units), periodic flags, requested ranks per direction (0 =
  /// choose), the ghost cutoff (the neighbour list's cutoff + skin, length) and how messages reach MPI.
  /// Collective over comm. Throws InputError when no decomposition has sub-domains at least ghost_cutoff
  /// wide in every direction that is periodic or split.
  ParticleComm(MPI_Comm comm, Real3 lo, Real3 hi, std::array<bool, 3> periodic, Int3 requested, double ghost_cutoff,
               HaloTransport transport = HaloTransport::host_staged);
  ParticleComm(const ParticleComm&) = delete;
  ParticleComm& operator=(const ParticleComm&) = delete;

  /// Ranks per direction for nranks ranks: honours the non-zero entries of requested and, among the
  /// factorisations whose sub-domains are at least ghost_cutoff wide in every periodic or split
  /// direction, takes the one with the smallest sub-domain surface. Pure (no MPI). Throws InputError.
  static Int3 choose_dims(int nranks, Real3 lo, Real3 hi, std::array<bool, 3> periodic, Int3 requested,
                          double ghost_cutoff) {
    return SwapPlan::choose_dims(nranks, lo, hi, periodic, requested, ghost_cutoff);
  }

  MPI_Comm comm() const { return plan_.comm(); }
  int rank() const { return plan_.rank(); }
  int size() const { return plan_.size(); }
  Int3 dims() const { return plan_.dims(); }
  Int3 coords() const { return plan_.coords(); }
  Real3 box_lo() const { return plan_.box_lo(); }
  Real3 box_hi() const { return plan_.box_hi(); }
  bool periodic(int d) const { return plan_.periodic(d); }
  double ghost_cutoff() const { return plan_.ghost_cutoff(); }
  /// This rank's sub-domain [sub_lo, sub_hi); neighbouring ranks share their bounds bit for bit.
  Real3 sub_lo() const { return plan_.sub_lo(); }
  Real3 sub_hi() const { return plan_.sub_hi(); }
  /// Bounds holding every owned and ghost atom right after borders(): the sub-domain widened by the
  /// ghost cutoff and a small margin for rounding in the periodic shifts.
  Real3 ghost_lo() const { return plan_.ghost_lo(); }
  Real3 ghost_hi() const { return plan_.ghost_hi(); }
  /// Lower bound of sub-domain c (0 .. dims) in direction d, the same expression on every rank.
  double bound(int c, int d) const { return plan_.bound(c, d); }
  /// Whether the point lies in this rank's sub-domain (host helper for set-up).
  bool owns(double x, double y, double z) const { return plan_.owns(x, y, z); }

  /// Migrates owned atoms (every array of Particles::fields()) to the ranks that own their positions,
  /// direction by direction (x, y, z); drops ghosts first. Crossing a periodic face wraps x by the box
  /// length and moves the image flag by one, so x + image * L is unchanged; a wrapped coordinate that
  /// would round to hi was within rounding of lo and is set to lo without crossing. Kept atoms stay in
  /// order; the arrivals follow, those from the upper neighbour first. Collective. Throws Error (on every
  /// rank, with the same message) when an atom left the box through a non-periodic face or moved more
  /// than a sub-domain since the last exchange, or when the global count changed.
  void exchange(Particles& p);
  /// Rebuilds the ghost atoms (the ghost arrays of Particles::fields()) and the swap lists used by
  /// forward() and reverse(). The ghosts are every periodic image of every atom within ghost_cutoff of
  /// the sub-domain in all three directions (edges and corners included), each once, other than the
  /// owned atoms. Collective.
  void borders(Particles& p);
  /// Ghost positions from their owners' current positions (plus the periodic shifts). Collective.
  void forward(Particles& p);
  /// Adds the values of a (capacity >= p.n_total() rows) on ghost rows into the owned rows they image, on
  /// whichever rank owns them. Ghost rows of a are left as they were. Collective.
  void reverse(Particles& p, const ParticleVec& a);

  /// Swaps in the plan (two per direction that is periodic or split).
  int n_swaps() const { return static_cast<int>(plan_.swaps().size()); }
  /// Rows sent (or copied to this rank itself) by the last borders().
  long long ghosts_sent() const { return ghosts_sent_; }

 private:
  /// Throws the same CollectiveError on every rank if msg is non-empty on any (the lowest such rank's message).
  void agree(const std::string& msg) const;
  void migrate(Particles& p, int d);

  SwapPlan plan_;
  StagedBuffers bufs_;    // every message (migration, borders, forward, reverse), grown on demand
  bool planned_ = false;  // borders() has run since the last exchange()
  int planned_total_ = 0;
  long long ghosts_sent_ = 0;
  ParticleVec acc_;  // reverse(): the relay sums of the ghost rows
  Kokkos::View<int*, MemSpace> flag_;
  Kokkos::View<long long*, MemSpace> prefix_;
};

}  // namespace stratus
