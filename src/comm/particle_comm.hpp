// Spatial-decomposition communication for molecular dynamics, LAMMPS-style: the box is cut into equal
// sub-domains on a Cartesian communicator; exchange() migrates owned atoms to the rank whose sub-domain
// holds them (wrapping periodic images and updating image flags), borders() builds the ghost atoms within
// ghost_cutoff of the sub-domain in six swaps (x down, x up, y down, y up, z down, z up, so that edge and
// corner ghosts travel through two or three swaps), and forward()/reverse() replay those swaps every step
// for positions and for per-atom sums (forces). Selection, packing and unpacking run on the device; MPI
// sees host staging buffers unless the default memory space is host-accessible. It does not build
// neighbour lists, decide when to re-neighbour, or apply boundary conditions other than periodic wrap.
// Ids travel as doubles: they must stay below 2^53.
#pragma once
#include <mpi.h>

#include <array>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "domain/particles.hpp"

namespace stratus {

class ParticleComm {
 public:
  /// Box [lo, hi) per direction (length units), periodic flags, requested ranks per direction (0 =
  /// choose) and the ghost cutoff (pair cutoff + neighbour skin, length). Collective over comm. Throws
  /// InputError when no decomposition has sub-domains at least ghost_cutoff wide in every direction that
  /// is periodic or split.
  ParticleComm(MPI_Comm comm, Real3 lo, Real3 hi, std::array<bool, 3> periodic, Int3 requested, double ghost_cutoff);
  ~ParticleComm();
  ParticleComm(const ParticleComm&) = delete;
  ParticleComm& operator=(const ParticleComm&) = delete;

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
  bool periodic(int d) const { return periodic_[d]; }
  double ghost_cutoff() const { return rc_; }
  /// This rank's sub-domain [sub_lo, sub_hi); neighbouring ranks share their bounds bit for bit.
  Real3 sub_lo() const { return sub_lo_; }
  Real3 sub_hi() const { return sub_hi_; }
  /// Bounds holding every owned and ghost atom right after borders(): the sub-domain widened by the
  /// ghost cutoff and a small margin for rounding in the periodic shifts.
  Real3 ghost_lo() const { return ghost_lo_; }
  Real3 ghost_hi() const { return ghost_hi_; }
  /// Lower bound of sub-domain c (0 .. dims) in direction d, the same expression on every rank.
  double bound(int c, int d) const;
  /// Whether the point lies in this rank's sub-domain (host helper for set-up).
  bool owns(double x, double y, double z) const;

  /// Migrates owned atoms (x, v, type, id, image, q) to the ranks that own their positions, direction by
  /// direction (x, y, z); drops ghosts first. Crossing a periodic face wraps x by the box length and moves
  /// the image flag by one, so x + image * L is unchanged; a wrapped coordinate that would round to hi was
  /// within rounding of lo and is set to lo without crossing. Kept atoms stay in order; the arrivals
  /// follow, those from the upper neighbour first. Collective. Throws Error (on every rank, with the same
  /// message) when an atom left the box through a non-periodic face or moved more than a sub-domain since
  /// the last exchange, or when the global count changed.
  void exchange(Particles& p);
  /// Rebuilds the ghost atoms (x, type, id, q) and the swap plan used by forward() and reverse(). The
  /// ghosts are every periodic image of every atom within ghost_cutoff of the sub-domain in all three
  /// directions (edges and corners included), each once, other than the owned atoms. Collective.
  void borders(Particles& p);
  /// Ghost positions from their owners' current positions (plus the periodic shifts). Collective.
  void forward(Particles& p);
  /// Adds the values of a (capacity >= p.n_total() rows) on ghost rows into the owned rows they image, on
  /// whichever rank owns them. Ghost rows of a are left as they were. Collective.
  void reverse(Particles& p, const ParticleVec& a);

  /// Swaps in the plan (two per direction that is periodic or split).
  int n_swaps() const { return static_cast<int>(swaps_.size()); }
  /// Rows sent (or copied to this rank itself) by the last borders().
  long long ghosts_sent() const { return ghosts_sent_; }

 private:
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

  int neighbor_rank(int d, int offset) const;
  /// Sends n_send doubles of sbuf (from s_off) to `to` and receives n_recv doubles into rbuf (from
  /// r_off) from `from`; a negative rank means no message that way. Stages through the host if needed.
  void transfer(const Buffer1D& sbuf, long long s_off, int n_send, int to, const Buffer1D& rbuf, long long r_off,
                int n_recv, int from, int tag);
  /// Exchanges message sizes: sends n to `to`, returns what `from` sends (0 when from < 0).
  int transfer_count(int n, int to, int from, int tag);
  /// Throws the same CollectiveError on every rank if msg is non-empty on any (the lowest such rank's message).
  void agree(const std::string& msg) const;
  void migrate(Particles& p, int d);

  MPI_Comm cart_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  Int3 dims_{}, coords_{};
  Real3 lo_{}, hi_{}, len_{}, sub_lo_{}, sub_hi_{}, ghost_lo_{}, ghost_hi_{};
  std::array<bool, 3> periodic_{};
  double rc_ = 0.0;
  int lower_[3] = {-1, -1, -1}, upper_[3] = {-1, -1, -1};  // neighbour ranks, -1 across a wall

  std::vector<Swap> swaps_;
  bool planned_ = false;  // borders() has run since the last exchange()
  int planned_total_ = 0;
  long long ghosts_sent_ = 0;

  Buffer1D send_, recv_, scratch_;  // device buffers, grown on demand
  ParticleVec acc_;                 // reverse() accumulator
  Kokkos::View<int*, MemSpace> flag_;
  Kokkos::View<long long*, MemSpace> prefix_;
  Kokkos::View<double*, Kokkos::HostSpace> send_host_, recv_host_;  // staging when MemSpace is not host-accessible
};

}  // namespace stratus
