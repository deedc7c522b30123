// Per-atom rows for parallel files: the atoms of a run are spread over the ranks in any order, but a file
// stores atom id at row id - 1. route_rows() sends every atom's record to the rank that owns its row
// (rank r owns the contiguous rows [r N / P, (r + 1) N / P)), so that each rank then writes one
// hyperslab collectively. Used by the H5MD trajectories and the checkpoints.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace stratus {

/// This rank's block of rows after route_rows(): rows [row0, row0 + count), `bytes` bytes each, in row
/// order.
struct RowBlock {
  long long row0 = 0;
  std::size_t count = 0;
  std::size_t bytes = 0;
  std::vector<char> data;
  const char* record(std::size_t j) const { return data.data() + j * bytes; }
};

/// Collective. ids (each in 1..natoms, checked by the caller) of this rank's atoms; pack(i, out) writes
/// the `bytes`-byte record of atom i. Throws the same Error on every rank, starting with `where`, when an
/// id was given more than once (then as many rows are missing).
RowBlock route_rows(MPI_Comm comm, long long natoms, const std::vector<long long>& id, std::size_t bytes,
                    const std::function<void(std::size_t, char*)>& pack, const std::string& where);

}  // namespace stratus
