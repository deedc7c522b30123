// Finding where a grid field stopped being finite, for the message of a diverging run.
#pragma once
#include <mpi.h>

#include "core/types.hpp"
#include "domain/local_grid.hpp"

namespace stratus {

struct CellLocation {
  bool found = false;
  int var = -1;   // variable index in the field
  Int3 global{};  // global cell index (x, y, z)
};

/// Collective over comm: of all owned cells on all ranks, the non-finite value (NaN or infinite) with the
/// lowest (var, z, y, x) global index; found = false when every value is finite. One device reduction.
CellLocation first_nonfinite(const Field4D& f, const LocalGrid& g, MPI_Comm comm);

}  // namespace stratus
