// The HDF5 file of one grid snapshot (io/grid_output.hpp has the writer around it: packing, background
// thread, rename, sidecars): provenance attributes on the root, CF coordinates, one dataset per variable
// under /fields in (z, y, x) order.
#pragma once
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "domain/cart_decomp.hpp"
#include "domain/local_grid.hpp"
#include "io/grid_output.hpp"
#include "io/plane_route.hpp"

namespace stratus {

/// The cells one rank writes into every dataset of a snapshot.
struct GridCells {
  WriteBox box;                    // this rank's part of each dataset
  WriteBox own;                    // the box `vars` hold: box itself, or (routed) a box that overlaps it
  std::vector<StridedCells> vars;  // per variable written, the cells of own
  const double* routed = nullptr;  // per variable a block of box's cells, x fastest: those outside own
};

/// Rank 0's copy of the last snapshot file it wrote in full through HDF5, less its fields' cells, open in
/// memory through HDF5 (the core driver, on the copy's own bytes). A later snapshot of the same variables
/// (uncompressed, whole z-planes) sets its time and step there (the root attributes time and step and the
/// coordinate /time), and its file is those bytes and its cells, instead of HDF5 creating, describing and
/// closing a file anew (1.7 ms of rank 0's 3.6 ms for a 4 MB snapshot of six fields at two ranks). Every
/// other byte of a snapshot depends only on what a writer keeps for its life (grid, decomposition,
/// provenance) and on the variables, which fits() checks; the files record no object times (h5::untimed),
/// so such a file is the one HDF5 would have written.
class SnapshotImage {
 public:
  SnapshotImage();
  ~SnapshotImage();
  SnapshotImage(const SnapshotImage&) = delete;
  SnapshotImage& operator=(const SnapshotImage&) = delete;
  bool fits(const std::vector<GridVariable>& v) const;

  struct Copy;                 // grid_file.cpp
  std::unique_ptr<Copy> copy;  // none until a file has been taken
};

/// Collective. Creates `path` and writes the snapshot. ranges: every rank's box is whole z-planes of the
/// grid (the same answer on every rank); rank 0 alone then creates the file through HDF5 (no collective
/// HDF5 call: at two ranks a 4 MB snapshot took 3.6 ms instead of 5.5), allocates the datasets and sends
/// their offsets, and every rank writes its own range of each dataset with pwritev(2) (on a descriptor of
/// its own; the others while rank 0 writes the rest of the metadata), rows
/// gathered into calls of at most 512 KiB from where they lie (on this class of machine a write(2) of
/// 1 MiB or more into the page cache ran at 0.4-2 GB/s, of 512 KiB at 6-7 GB/s). Otherwise (ranks' parts
/// interleaved in the file, or compressed chunks) one collective write per dataset, of cells.vars packed
/// (box == own, x fastest without gaps). With ranges, `image` (rank 0's; may be null) is used where it
/// fits, and otherwise taken from the file written.
void write_grid_file(MPI_Comm comm, const std::string& path, const CartDecomp& decomp, const LocalGrid& g,
                     const Provenance& prov, const GridCells& cells, bool ranges, const std::vector<GridVariable>& vars,
                     long step, double time, int deflate, SnapshotImage* image = nullptr);

}  // namespace stratus
