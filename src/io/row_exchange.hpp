// Per-atom rows for parallel files: the atoms of a run are spread over the ranks in any order, but a file
// stores atom id at row id - 1. RowRouter::route() sends every atom's record to the rank that owns its row
// (rank r owns the contiguous rows [r N / P, (r + 1) N / P)), so that each rank then writes one
// hyperslab collectively; RowRouter::scatter() stores each atom straight into the arrays of that block
// instead (the H5MD trajectories). Used by the trajectories, the checkpoints and the data files.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/host_memory.hpp"

namespace stratus {

/// At least n elements in v, for a buffer that is overwritten before it is read: grown (with 1/8 to
/// spare, so that counts that drift by a few atoms between frames do not reallocate each time) without
/// copying what it held, never shrunk. Only growth touches new memory: on a virtual machine of the
/// development class a frame's buffers allocated afresh (the kernel mapping and zeroing them page by
/// page) took most of the time of an H5MD frame of 256k atoms; a HostBuffer's growth takes huge pages.
template <class T, class A>
T* scratch(std::vector<T, A>& v, std::size_t n) {
  if (v.size() < n) {
    std::vector<T, A>().swap(v);
    v.resize(n + n / 8);
  }
  return v.data();
}

/// This rank's block of rows after RowRouter::route(): rows [row0, row0 + count), `bytes` bytes each, in
/// row order.
struct RowBlock {
  long long row0 = 0;
  std::size_t count = 0;
  std::size_t bytes = 0;
  HostBuffer<char> data;  // at least count * bytes
  const char* record(std::size_t j) const { return data.data() + j * bytes; }
};

/// The block of rows rank `rank` of `size` holds: [row0, row0 + count).
struct RowRange {
  long long row0 = 0;
  std::size_t count = 0;
};
RowRange row_block(long long natoms, int rank, int size);

/// Routes rows, keeping its buffers between calls (see scratch()).
class RowRouter {
 public:
  /// Collective. ids (each in 1..natoms, checked by the caller) of this rank's atoms; pack(i, out) writes
  /// every byte of the `bytes`-byte record of atom i. Throws the same Error on every rank, starting with
  /// `where`, when an id was given more than once (then as many rows are missing). The block stays valid
  /// until the next call.
  const RowBlock& route(MPI_Comm comm, long long natoms, HostSpan<long long> id, std::size_t bytes,
                        const std::function<void(std::size_t, char*)>& pack, const std::string& where);

  /// Collective, as route() but without a block of records on this rank: store(i, j) puts this rank's
  /// atom i straight into row row0 + j of its block (row_block()), the atoms of rows other ranks hold
  /// travel as `bytes`-byte records written by pack(i, out), and unpack(record, j) stores one that
  /// arrived. A row met twice is stored once. Returns this rank's block.
  template <class Store, class Pack, class Unpack>
  RowRange scatter(MPI_Comm comm, long long natoms, HostSpan<long long> id, std::size_t bytes, Store&& store,
                   Pack&& pack, Unpack&& unpack, const std::string& where) {
    const Plan p = plan(comm, natoms, id, bytes);
    const std::size_t n = id.size(), words = 8 + bytes;
    std::vector<int> next(p.send_displ.begin(), p.send_displ.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
      const long long row = id[i] - 1;
      const int to = owner_[i];
      if (to == p.rank) {
        if (first_time(row - p.block.row0)) store(i, static_cast<std::size_t>(row - p.block.row0));
        continue;
      }
      char* out = &send_[static_cast<std::size_t>(next[to]++) * words];
      std::memcpy(out, &row, 8);
      pack(i, out + 8);
    }
    const std::size_t nrecv = exchange(comm, p, words);
    for (std::size_t k = 0; k < nrecv; ++k) {
      const char* in = &recv_[k * words];
      long long row = 0;
      std::memcpy(&row, in, 8);
      if (first_time(row - p.block.row0)) unpack(in + 8, static_cast<std::size_t>(row - p.block.row0));
    }
    agree_no_duplicates(comm, where);
    return p.block;
  }

 private:
  struct Plan {
    int rank = 0, size = 1;
    RowRange block;
    std::vector<int> send_count, send_displ;  // per rank; displacements in records, size + 1 of them
  };
  /// The owners of this rank's atoms (owner_), the send counts and a send buffer for `bytes`-byte
  /// records; no row seen yet.
  Plan plan(MPI_Comm comm, long long natoms, HostSpan<long long> id, std::size_t bytes);
  /// Sends the packed records; returns how many arrived (in recv_).
  std::size_t exchange(MPI_Comm comm, const Plan& p, std::size_t words);
  /// Whether row j of the block is met for the first time (every later meeting counts a duplicate; a
  /// mark, not a count, which would wrap after 255 meetings).
  bool first_time(long long j) {
    char& seen = seen_[static_cast<std::size_t>(j)];
    if (seen) {
      ++duplicates_;
      return false;
    }
    seen = 1;
    return true;
  }
  void agree_no_duplicates(MPI_Comm comm, const std::string& where);

  HostBuffer<char> send_, recv_, seen_;
  HostBuffer<int> owner_;
  long long duplicates_ = 0;
  RowBlock block_;
};

}  // namespace stratus
