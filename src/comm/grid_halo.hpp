// Halo (ghost-cell) exchange for fields on a decomposed Cartesian grid. The plan (neighbours, regions,
// buffer offsets, persistent buffers) is built once; start() packs with Kokkos kernels and posts the
// non-blocking messages, finish() waits and unpacks, so interior work can run in between. Messages go to
// all 26 neighbours (faces, edges, corners) at once, so corner ghosts are filled in one round without
// ordering the directions; corners can be switched off for face-only stencils. scatter_add() is the
// reverse: ghost values are added into the owners' cells (charge deposition). Walls (non-periodic
// edges) are left alone: boundary conditions belong to the physics. Host-staged versus GPU-aware MPI is
// decided in exactly one place (StagedBuffers, comm/staging.hpp). A link to the rank itself (a periodic
// direction it spans alone) is no message: on CPUs an exchange copies the opposite link's owned cells
// straight into its ghosts; on GPUs (one fused kernel for all links) and in scatter_add its buffer slice
// is copied from the opposite link's. An exchange with only such links makes no MPI call at all.
#pragma once
#include <mpi.h>

#include <vector>

#include "comm/staging.hpp"
#include "core/types.hpp"
#include "domain/cart_decomp.hpp"
#include "domain/local_grid.hpp"

namespace stratus {

/// One box of cells a halo link sends or receives, for the fused pack/unpack kernels: array indices lo,
/// extents n (x y z), and the link's start in the buffers in cells per variable.
struct HaloBox {
  int lo[3];
  int n[3];
  long long offset;
};

class GridHalo {
 public:
  /// Fields exchanged have up to max_vars variables and the layout of `grid`; `width` ghost layers
  /// (1 <= width <= grid ghost width) are filled in every direction that has ghosts. Collective-free.
  /// only_direction (0, 1, 2): the two face links along that direction alone (a dimensionally split
  /// sweep needs no other ghosts); -1: every direction.
  GridHalo(const CartDecomp& decomp, const LocalGrid& grid, int max_vars, int width, bool corners = true,
           HaloTransport transport = HaloTransport::host_staged, int only_direction = -1);
  ~GridHalo();
  GridHalo(const GridHalo&) = delete;
  GridHalo& operator=(const GridHalo&) = delete;

  /// Packs owned boundary cells of all variables of f and posts the messages.
  void start(const Field4D& f);
  /// Waits for the messages posted by start(f) and writes the ghost cells of f.
  void finish(const Field4D& f);
  /// start(f) then finish(f).
  void exchange(const Field4D& f) {
    start(f);
    finish(f);
  }
  /// Adds every ghost cell's value into the owned cell it images (on whichever rank owns it). Ghost
  /// values are left as they were. Blocking.
  void scatter_add(const Field4D& f);

  /// Packs all links in one kernel (and unpacks in one) instead of one kernel per link: the default on
  /// GPUs, where 26 launches per exchange would cost more than the copies; per-link loops on CPUs.
  void set_fused_packing(bool on) { fused_ = on; }
  bool fused_packing() const { return fused_; }

  int width() const { return width_; }
  /// Number of MPI messages sent per exchange (links to other ranks; for diagnostics and tests).
  int message_count() const { return remote_links_; }
  /// Links to the rank itself, copied on the device.
  int self_link_count() const { return static_cast<int>(links_.size()) - remote_links_; }
  /// Cells per variable this rank sends (and receives) per exchange, messages to itself included.
  long long cells_per_exchange() const { return total_cells_; }

 private:
  struct Box {  // half-open index ranges in array indices (ghosts included), x y z
    int lo[3], hi[3];
    long long cells() const { return static_cast<long long>(hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]); }
  };
  struct Link {
    int rank;         // neighbour's rank
    int send_tag;     // tag of the message to it
    int recv_tag;     // tag of the message from it
    Box owned;        // my owned cells it needs (sent by start, added into by scatter_add)
    Box ghost;        // my ghost cells it fills (received by finish, sent by scatter_add)
    long long cells;  // cells per variable (equal for owned and ghost)
  };
  void post(int nvar, bool reverse);
  void copy_self_links();
  void wait_recvs(bool self_links);  // self_links: copy the self links' buffer slices too
  void wait_sends();

  const CartDecomp& decomp_;
  LocalGrid grid_;
  int max_vars_, width_;
  std::vector<Link> links_;        // links to other ranks first, then links to this rank
  int remote_links_ = 0;           // how many of links_ go to other ranks
  std::vector<long long> offset_;  // start of each link's data in the buffers, per variable count 1
  long long total_cells_ = 0;
  long long remote_cells_ = 0;  // cells per variable of the links to other ranks (the start of the self links')
  // Per self link (links_[remote_links_ + s]): the index in links_ of its opposite link (the direct copies
  // on CPUs, the buffer copies of scatter_add), and on the device the start of that link's slice of the
  // send buffer, which holds what the self link receives (the fused kernel).
  std::vector<int> self_opposite_;
  Kokkos::View<long long*, MemSpace> self_src_;
  StagedBuffers bufs_;
  Kokkos::View<HaloBox*, MemSpace> owned_boxes_, ghost_boxes_;  // per link, for the fused kernels
  bool fused_;
  std::vector<MPI_Request> reqs_recv_, reqs_send_;
  int active_nvar_ = 0;
  bool in_flight_ = false;
};

}  // namespace stratus
