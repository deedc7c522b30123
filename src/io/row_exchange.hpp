// Per-atom rows for parallel files: the atoms of a run are spread over the ranks in any order, but a file
// stores atom id at row id - 1. RowRouter::route() sends every atom's record to the rank that owns its row
// (rank r owns the contiguous rows [r N / P, (r + 1) N / P)), so that each rank then writes one
// hyperslab collectively. Used by the H5MD trajectories and the checkpoints.
#pragma once
#include <mpi.h>

#include <cstddef>
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

/// Routes rows, keeping its buffers between calls (see scratch()).
class RowRouter {
 public:
  /// Collective. ids (each in 1..natoms, checked by the caller) of this rank's atoms; pack(i, out) writes
  /// every byte of the `bytes`-byte record of atom i. Throws the same Error on every rank, starting with
  /// `where`, when an id was given more than once (then as many rows are missing). The block stays valid
  /// until the next call.
  const RowBlock& route(MPI_Comm comm, long long natoms, HostSpan<long long> id, std::size_t bytes,
                        const std::function<void(std::size_t, char*)>& pack, const std::string& where);

 private:
  HostBuffer<char> send_, recv_, seen_;
  HostBuffer<int> owner_;
  RowBlock block_;
};

}  // namespace stratus
