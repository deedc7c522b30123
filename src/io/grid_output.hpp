// Grid snapshots in parallel HDF5 with XDMF sidecars, and the per-run history table (CSV).
//
// A snapshot is one file <dir>/<prefix>_<step, 6 digits>.h5 written collectively (MPI-IO): one dataset
// /fields/<name> of global shape (nz, ny, nx) per variable, each rank writing its owned cells as a
// hyperslab, so the file does not depend on the rank count; attributes carry time, step, units and
// provenance (deck text, version, git hash, ranks, decomposition). Beside it, <prefix>_<step>.xmf
// (a 3DCoRectMesh with cell-centred attributes) and the time series <dir>/<prefix>.xmf, which ParaView
// and VisIt open directly (rewritten as xdmf::SeriesPacing says, and whole by flush_series()). XDMF
// files are rewritten atomically (temporary name, then rename). Nothing is
// fsynced: a kill never leaves a partial file under a final name, a power loss may lose recent snapshots
// (docs/output.md, "Durability").
// By default write() returns once the cells are packed and on the host: a background thread writes the
// file while the run steps on (needs MPI_THREAD_MULTIPLE; it uses a duplicate of the communicator), and
// the next write() or finish() waits for it. A caller that keeps the field unchanged until then (an output
// field the physics recomputes only when asked, FieldHold::until_finish) saves the packing on CPUs: the
// cells go from the field to the file (or to the rank that writes them) as they lie. No HDF5 call may be made elsewhere
// in the process while a snapshot is in flight: call finish() first (the run loop does, before checkpoints). This
// module does not decide when to write; the run loop does.
#pragma once
#include <mpi.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "comm/staging.hpp"
#include "core/types.hpp"
#include "domain/cart_decomp.hpp"
#include "domain/local_grid.hpp"
#include "io/background_jobs.hpp"
#include "io/plane_route.hpp"
#include "io/xdmf.hpp"

namespace stratus {

/// A variable of a Field4D to write: component `index` of the var dimension, named and with its unit.
struct GridVariable {
  std::string name;
  std::string unit;
  int index = 0;
};

/// What a file says about the run that wrote it (the writer adds version, git hash, ranks, decomposition).
struct Provenance {
  std::string physics;        // e.g. "advection"
  std::string deck_text;      // the deck exactly as read
  std::string resolved_deck;  // every key with its resolved value
  std::string length_unit = "m";
  std::string time_unit = "s";
};

/// How long the caller of GridSnapshotWriter::write() keeps the field unchanged.
enum class FieldHold {
  call,          // until write() returns: the writer copies the cells it needs
  until_finish,  // until the next write() or finish() has returned: where the field is host memory (and
                 // the file uncompressed), the writer reads the cells from the field itself, no copy
};

class SnapshotImage;  // io/snapshot_image.hpp

class GridSnapshotWriter {
 public:
  /// dir is created (by rank 0) on the first write, not before. Collective over decomp.comm().
  GridSnapshotWriter(const CartDecomp& decomp, const LocalGrid& grid, std::string dir, std::string prefix,
                     Provenance prov);
  ~GridSnapshotWriter();

  /// Collective. Writes the owned cells of the listed variables of `state` (a field laid out on the local
  /// grid, ghosts included) at (step, time); returns the path of the .h5 file. In the background (the
  /// default where MPI allows it) the file and its sidecars are in place only after the next write() or
  /// finish(), which throw the error of a snapshot that failed; `state` may change as soon as this returns,
  /// or with FieldHold::until_finish once the next write() or finish() has returned.
  std::string write(const Field4D& state, const std::vector<GridVariable>& vars, long step, double time,
                    FieldHold hold = FieldHold::call);
  /// Collective. Returns when every snapshot handed to write() is in place; throws if one failed.
  void finish();
  /// Collective. finish(), then the series file `PREFIX.xmf` rewritten if a snapshot is not in it yet
  /// (it is rewritten as xdmf::SeriesPacing says; the run loop flushes before checkpoints and at the end).
  void flush_series();
  /// Whether snapshots are written by a background thread. `set_background(false)` writes them in write()
  /// itself; `true` only takes effect where MPI provides MPI_THREAD_MULTIPLE. Collective.
  void set_background(bool on);
  bool background() const { return background_; }

  /// Totals over this writer's life on this rank: bytes of field data written by all ranks, seconds the
  /// caller spent in write() and finish() (for the output-bandwidth line of the run summary), and seconds
  /// the background thread spent writing.
  double bytes_written() const { return bytes_; }
  double seconds() const { return seconds_; }
  double background_seconds() { return jobs_.busy_seconds(); }
  /// Compresses the field datasets (shuffle + deflate at this level, 1..9; 0 = off, the default), one
  /// chunk per rank's block. Readers need nothing special (HDF5 decompresses transparently).
  void set_compression(int level) { deflate_ = level; }
  /// A restarted run: the series file will also list this prefix's snapshots already in the directory
  /// for steps before `step` (rank 0 reads their times; unreadable files are left out).
  void resume_before(long step);

 private:
  // jobs_.wait(), releasing the held field either way.
  void wait_for_writer();
  // Everything of a write after the packing: file, rename, sidecars (on the background thread, if any).
  // own: per variable, this rank's owned cells (packed, or in the held field).
  void store(const std::vector<StridedCells>& own, const std::vector<GridVariable>& vars, long step, double time,
             int deflate);
  std::string series_path() const;
  struct Frame;
  static xdmf::Frame xdmf_frame(const Frame& f);
  // Rank 0: the series document of earlier_ and frames_ (entries formatted), with `frame` in place of
  // frames_[at] (appended where at is frames_.size()) unless it is null.
  std::string series_text(const Frame* frame, std::size_t at) const;

  const CartDecomp& decomp_;
  MPI_Comm comm_ = MPI_COMM_NULL;  // a duplicate of decomp_.comm(), for the writer's own collectives
  LocalGrid grid_;
  PlaneRoute route_;  // whole z-planes for each rank to write, where the decomposition splits x or y
  std::string dir_, prefix_;
  Provenance prov_;
  struct Frame {
    std::string h5_name;  // relative to dir_
    long step;
    double time;
    std::vector<GridVariable> vars;
    std::string entry;  // rank 0: its element of the series document, once formatted
  };
  std::vector<Frame> frames_;
  std::vector<Frame> earlier_;  // rank 0: snapshots of the run before a restart (vars taken from new frames)
  xdmf::SeriesPacing series_pacing_;  // rank 0: when the series file is rewritten
  double bytes_ = 0.0, seconds_ = 0.0;
  int deflate_ = 0;
  std::unique_ptr<SnapshotImage> image_;  // rank 0: the last file's bytes but its cells (io/snapshot_image.hpp)
  StagedBuffers staging_{"grid_output"};  // the written cells, packed on the device, and their host copy
  Field4D held_;  // a field written without a copy (FieldHold::until_finish), until the write is done
  bool background_ = false;
  BackgroundJobs jobs_;  // declared last: destroyed first, waiting for a snapshot in flight
};

/// The per-run history table: a CSV with a header row and one row per append(), written and flushed by
/// rank 0 only (other ranks hold no file). Values print with 17 significant digits.
class HistoryTable {
 public:
  /// Creates (truncates) the file on rank 0, creating the directory if needed. With resume_step >= 0
  /// (a restarted run) the rows of an existing file for steps up to resume_step are kept (the restarted
  /// run writes none for resume_step itself).
  HistoryTable(MPI_Comm comm, const std::string& path, const std::vector<std::string>& columns, long resume_step = -1);
  /// values.size() must equal the number of columns; call on every rank (only rank 0 writes).
  void append(const std::vector<double>& values);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::size_t ncol_ = 0;
  bool root_ = false;
  MPI_Comm comm_ = MPI_COMM_NULL;  // the caller's; append() uses it to agree on write failures
  std::unique_ptr<std::ofstream> out_;
};

}  // namespace stratus
