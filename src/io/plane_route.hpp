// Grid snapshot cells regrouped by whole z-planes before they are written. A grid split along x or y
// gives every rank a part of each file row: written as they are, the ranks' parts interleave in the
// file, and MPI-IO's collective buffering sends them all to one aggregator per node, which writes alone
// (ROMIO also allocates its 16 MiB buffer afresh for every call). PlaneRoute sends each rank's cells to
// the rank that owns their z-plane (rank r owns planes [r Nz / P, (r + 1) Nz / P)), so that every rank
// then writes one contiguous range of each dataset itself, without locks or aggregators (2D Euler
// 2048 x 1024 split in x at 2 ranks, 3 snapshots of 100 MB, with the writes in pieces of grid_file.cpp:
// 1.03-1.14 s through the aggregator, 0.73-0.90 s so).
#pragma once
#include <mpi.h>

#include <memory>
#include <vector>

#include "core/types.hpp"

namespace stratus {

/// One variable's cells of a box in memory: `first` is the box's first cell, x runs fastest (contiguous),
/// rows are `row` doubles apart and z-planes `plane` doubles apart.
struct StridedCells {
  const double* first = nullptr;
  long long row = 0, plane = 0;
};

/// The cells one rank writes: the box [start, start + count) of the global grid, (x, y, z) order.
struct WriteBox {
  Int3 start{}, count{};
  long long cells() const { return static_cast<long long>(count[0]) * count[1] * count[2]; }
};

class PlaneRoute {
 public:
  /// Collective over comm. own: this rank's owned cells; global: the grid's cells per direction.
  PlaneRoute(MPI_Comm comm, const Int3& global, const WriteBox& own);

  /// Whether route() regroups cells: some rank's box is not made of whole z-planes and there are at
  /// least as many planes as ranks. Otherwise each rank writes its own box, and write_box() is it.
  bool active() const { return active_; }
  /// Whether every rank's write_box() is whole z-planes (the same answer on every rank).
  bool whole_planes() const { return whole_planes_; }
  /// What this rank writes after route() (its own box when not active).
  const WriteBox& write_box() const { return write_; }

  /// Collective over comm (the same on every rank). own: the own box's cells of each variable. Returns
  /// own.size() blocks of write_box()'s cells, x fastest, kept until the next call: every cell of the
  /// write box that lies outside the own box (those inside are not copied; read them from `own`).
  const double* route(MPI_Comm comm, const std::vector<StridedCells>& own);

 private:
  struct Peer {
    int rank;
    Int3 count;  // the cells exchanged with this rank (never this rank itself): whole x-y extent of the sender
    Int3 send_start, recv_start;  // where they lie in the own box and in the write box
  };
  bool active_ = false, whole_planes_ = true;
  WriteBox own_, write_;
  std::vector<Peer> sends_, recvs_;
  std::unique_ptr<double[]> routed_;  // not value-initialised: the part never received is never touched
  std::size_t routed_size_ = 0;
};

}  // namespace stratus
