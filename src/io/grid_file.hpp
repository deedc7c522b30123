// The HDF5 file of one grid snapshot (io/grid_output.hpp has the writer around it: packing, background
// thread, rename, sidecars): provenance attributes on the root, CF coordinates, one dataset per variable
// under /fields in (z, y, x) order.
#pragma once
#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "domain/cart_decomp.hpp"
#include "domain/local_grid.hpp"
#include "io/grid_output.hpp"
#include "io/plane_route.hpp"
#include "io/snapshot_image.hpp"

namespace stratus {

/// The cells one rank writes into every dataset of a snapshot.
struct GridCells {
  WriteBox box;                    // this rank's part of each dataset
  WriteBox own;                    // the box `vars` hold: box itself, or (routed) a box that overlaps it
  std::vector<StridedCells> vars;  // per variable written, the cells of own
  const double* routed = nullptr;  // per variable a block of box's cells, x fastest: those outside own
};

/// Collective. Creates `path` and writes the snapshot. ranges: every rank's box is whole z-planes of the
/// grid (the same answer on every rank); rank 0 alone then creates the file through HDF5 (no collective
/// HDF5 call: at two ranks a 4 MB snapshot took 3.6 ms instead of 5.5), allocates the datasets and sends
/// their offsets, and every rank writes its own range of each dataset with pwritev(2) (on a descriptor of
/// its own; the others while rank 0 writes the rest of the metadata), rows
/// gathered into calls of at most 512 KiB from where they lie (on this class of machine a write(2) of
/// 1 MiB or more into the page cache ran at 0.4-2 GB/s, of 512 KiB at 6-7 GB/s). Otherwise (ranks' parts
/// interleaved in the file, or compressed chunks) one collective write per dataset, of cells.vars packed
/// (box == own, x fastest without gaps). With ranges, `image` (rank 0's; null on the others, or for none) is used where
/// it fits, and otherwise taken from the file written. `meanwhile` (rank 0 only; it must not throw) runs once
/// on rank 0 while the others write their cells (with ranges; otherwise before the file is created): work
/// of rank 0's that needs nothing from the file, such as its sidecars' temporaries.
void write_grid_file(MPI_Comm comm, const std::string& path, const CartDecomp& decomp, const LocalGrid& g,
                     const Provenance& prov, const GridCells& cells, bool ranges, const std::vector<GridVariable>& vars,
                     long step, double time, int deflate, SnapshotImage* image,
                     const std::function<void()>& meanwhile = {});

}  // namespace stratus
