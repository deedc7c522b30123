// The geometry of the particle decomposition and its ghost swaps: the box cut into equal sub-domains on a
// Cartesian communicator (choose_dims picks the rank layout), each rank's sub-domain and neighbours, and
// the six swaps (x down, x up, y down, y up, z down, z up) that borders() replays; select() lists the atoms
// a swap sends. It moves no data and owns no message buffers (ParticleComm does).
#pragma once
#include <mpi.h>

#include <array>
#include <vector>

#include "core/types.hpp"

namespace stratus {

/// One ghost swap: what it selects, where it sends, and (after borders()) what it sent and received.
struct Swap {
  int dim = 0;
  bool to_lower = true;               // sends to the lower neighbour, receives from the upper one
  int send_rank = -1;                 // -1: sends nothing (non-periodic face)
  int recv_rank = -1;                 // -1: receives nothing
  double bound = 0.0;                 // selection: x_dim < bound (to lower) or x_dim >= bound (to upper)
  double shift = 0.0;                 // added to x_dim of the copies sent
  Kokkos::View<int*, MemSpace> list;  // rows sent, n_send of them
  int n_send = 0;
  int first_recv = 0;  // first ghost row received
  int n_recv = 0;
  bool self = false;  // one rank in a periodic direction: a device copy, no message
};

class SwapPlan {
 public:
  /// Box [lo, hi) per direction (length units), periodic flags, requested ranks per direction (0 =
  /// choose) and the ghost cutoff (length). Collective over comm. Throws InputError when no decomposition
  /// has sub-domains at least ghost_cutoff wide in every direction that is periodic or split.
  SwapPlan(MPI_Comm comm, Real3 lo, Real3 hi, std::array<bool, 3> periodic, Int3 requested, double ghost_cutoff);
  ~SwapPlan();
  SwapPlan(const SwapPlan&) = delete;
  SwapPlan& operator=(const SwapPlan&) = delete;

  /// Ranks per direction for nranks ranks: honours the non-zero entries of requested and, among the
  /// factorisations whose sub-domains are at least ghost_cutoff wide in every periodic or split
  /// direction, takes the one with the smallest sub-domain surface. Pure (no MPI). Throws InputError.
  static Int3 choose_dims(int nranks, Real3 lo, Real3 hi, std::array<bool, 3> periodic, Int3 requested,
                          double ghost_cutoff);

  MPI_Comm comm() const { return cart_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  Int3 dims() const { return dims_; }
  Int3 coords() const { return coords_; }
  Real3 box_lo() const { return lo_; }
  Real3 box_hi() const { return hi_; }
  double length(int d) const { return len_[d]; }
  bool periodic(int d) const { return periodic_[d]; }
  double ghost_cutoff() const { return rc_; }
  Real3 sub_lo() const { return sub_lo_; }
  Real3 sub_hi() const { return sub_hi_; }
  Real3 ghost_lo() const { return ghost_lo_; }
  Real3 ghost_hi() const { return ghost_hi_; }
  /// Neighbour ranks in direction d, -1 across a wall.
  int lower(int d) const { return lower_[d]; }
  int upper(int d) const { return upper_[d]; }
  /// Lower bound of sub-domain c (0 .. dims) in direction d, the same expression on every rank.
  double bound(int c, int d) const;
  /// Whether the point lies in this rank's sub-domain.
  bool owns(double x, double y, double z) const;

  std::vector<Swap>& swaps() { return swaps_; }
  const std::vector<Swap>& swaps() const { return swaps_; }

 private:
  int neighbor_rank(int d, int offset) const;

  MPI_Comm cart_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  Int3 dims_{}, coords_{};
  Real3 lo_{}, hi_{}, len_{}, sub_lo_{}, sub_hi_{}, ghost_lo_{}, ghost_hi_{};
  std::array<bool, 3> periodic_{};
  double rc_ = 0.0;
  int lower_[3] = {-1, -1, -1}, upper_[3] = {-1, -1, -1};
  std::vector<Swap> swaps_;
};

/// Lists in w.list (grown as needed) the rows 0 .. n - 1 that swap w sends (x_dim < bound towards the lower
/// neighbour, x_dim >= bound towards the upper one), in order; sets and returns w.n_send.
int select_rows(const ParticleVec& x, int n, Swap& w);

}  // namespace stratus
