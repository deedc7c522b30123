// Rank 0's copy of the last grid snapshot file it wrote in full through HDF5, less its fields' cells,
// open in memory through HDF5 (the core driver, on the copy's own bytes). A later snapshot of the same
// variables (uncompressed, whole z-planes: io/grid_file.hpp) sets its time and step there (the root
// attributes time and step and the coordinate /time), and its file is those bytes and its cells, instead
// of HDF5 creating, describing and closing a file anew (1.7 ms of rank 0's 3.6 ms for a 4 MB snapshot of
// six fields at two ranks). Every other byte of a snapshot depends only on what a writer keeps for its
// life (grid, decomposition, provenance) and on the variables, which fits() checks; the files record no
// object times (h5::untimed), so such a file is the one HDF5 would have written.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "domain/local_grid.hpp"
#include "io/grid_output.hpp"

namespace stratus {

class SnapshotImage {
 public:
  SnapshotImage();
  ~SnapshotImage();
  SnapshotImage(const SnapshotImage&) = delete;
  SnapshotImage& operator=(const SnapshotImage&) = delete;

  /// Whether a copy is held, taken with these variables (names and units).
  bool fits(const std::vector<GridVariable>& v) const;
  /// Takes the copy of the snapshot file just written and closed at `path`, whose fields' cells (grid g)
  /// start at `offsets`: every other byte, read into zeroed memory of the file's size (the cells' pages are
  /// never touched) and opened there. Throws Error (and holds no copy) if it cannot.
  void take(const std::string& path, const std::vector<GridVariable>& vars, const std::vector<std::uint64_t>& offsets,
            const LocalGrid& g);
  /// Where the copy's fields' cells start.
  const std::vector<std::uint64_t>& offsets() const;
  /// Sets the time and step in the copy. Throws Error if HDF5 fails or would change more than the values
  /// (the copy is then of no use: clear() it).
  void stamp(long step, double time);
  /// Writes the copy's bytes into `path`, created if missing (as the space check reserved it, or not at
  /// all when the check is off), and trims what lies beyond them. Throws Error naming the file.
  void put(const std::string& path) const;
  /// Drops the copy.
  void clear();

 private:
  struct Copy;
  std::unique_ptr<Copy> copy_;
};

}  // namespace stratus
