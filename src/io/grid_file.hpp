// The HDF5 file of one grid snapshot (io/grid_output.hpp has the writer around it: packing, background
// thread, rename, sidecars): provenance attributes on the root, CF coordinates, one dataset per variable
// under /fields in (z, y, x) order.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "domain/cart_decomp.hpp"
#include "domain/local_grid.hpp"
#include "io/grid_output.hpp"
#include "io/plane_route.hpp"

namespace stratus {

/// Collective. Creates `path` and writes the snapshot. packed: vars.size() blocks of the cells of box, x
/// fastest. ranges: every rank's box is whole z-planes of the grid (the same answer on every rank); each
/// rank then writes its own range of each dataset, in pieces of at most 512 KiB (on this class of machine a
/// write(2) of 1 MiB or more into the page cache ran at 0.4-2 GB/s, of 512 KiB at 6-7 GB/s). Otherwise
/// (ranks' parts interleaved in the file, or compressed chunks) one collective write per dataset.
void write_grid_file(MPI_Comm comm, const std::string& path, const CartDecomp& decomp, const LocalGrid& g,
                     const Provenance& prov, const double* packed, const WriteBox& box, bool ranges,
                     const std::vector<GridVariable>& vars, long step, double time, int deflate);

}  // namespace stratus
