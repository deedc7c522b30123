// Checkpoint files: the whole state of a simulation in one parallel HDF5 file, so that a run continues
// bitwise identically from it. The physics put their own datasets in it (grid blocks, per-atom rows,
// small replicated arrays); this module owns the file: naming, atomic commit (write to "<path>.tmp",
// close, rename), rotation of old files, finding the newest valid file, and validation on reading.
//
// File layout (HDF5 1.10 file format, so that superblock, object headers, attributes and chunk indexes
// all carry the library's metadata checksums):
//   /                 attributes format = "stratus-checkpoint", format_version = 1 (int32), physics,
//                     step (int64), time (float64), stratus_version, git_hash, nranks (int32, the ranks
//                     that wrote the file); fixed-length strings, kept in the root object header
//   /deck             the resolved deck: one fixed-length string, chunked with Fletcher32 (a long text
//                     in an attribute would land in a heap whose blocks carry no checksum)
//   /data/<name>      one dataset per write_*() call, chunked with the Fletcher32 checksum filter, with a
//                     string attribute kind:
//                       "grid"   float64 [nvar, nz, ny, nx] (x fastest)
//                       "rows"   float64 or int64 [natoms, ncomp]; row r belongs to the atom with id r + 1
//                       "values" float64 [n]
//                     Names are '/'-separated paths ("md/x"); groups are created as needed.
// A dataset with no elements is stored contiguous and unfiltered (there is nothing to checksum).
//
// Naming: checkpoint_path(dir, name, step) is dir/NAME_chk_NNNNNNNN.h5 (the step with at least 8
// digits). A series is the set of files NAME_chk_<digits>.h5 in one directory; ".tmp" files never belong
// to it. This module decides neither when to write nor what the physics store.
#pragma once
#include <mpi.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "io/hdf5_util.hpp"
#include "io/row_exchange.hpp"

namespace stratus {

/// What a checkpoint says about the run that wrote it.
struct CheckpointMeta {
  std::string physics;    // e.g. "euler"; the reader refuses a file of other physics
  long step = 0;          // steps completed
  double time = 0.0;      // simulated time reached (the physics' time unit)
  std::string deck_text;  // the resolved deck
  int nranks = 1;         // ranks that wrote the file (the writer stores its communicator size)
  // Filled in by the reader (the writer stores its own build's values):
  std::string stratus_version;
  std::string git_hash;
};

/// dir/NAME_chk_NNNNNNNN.h5; name must be non-empty without '/', step >= 0.
std::string checkpoint_path(const std::string& dir, const std::string& name, long step);

class CheckpointWriter {
 public:
  /// Collective. Creates final_path + ".tmp" (truncating a stale one; the directory is created if
  /// needed) and writes the metadata. Rank 0's meta is used on every rank. If that fails once the file
  /// exists, it is discarded as by the destructor.
  CheckpointWriter(MPI_Comm comm, const std::string& final_path, const CheckpointMeta& meta);
  /// Without commit() (an exception unwinding) the file is closed, or abandoned after a failed HDF5 call
  /// (io/hdf5_util.hpp), and the ".tmp" removed: a failed checkpoint leaves no file behind.
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  /// Collective. A grid dataset [nvar, global z, global y, global x] of which this rank holds the box at
  /// cell offset (i0, j0, k0) = offset of extent (ni, nj, nk) = extent; data is that box, layout
  /// (var, k, j, i) with i fastest, nvar * ni * nj * nk values. The boxes of all ranks must tile the grid.
  void write_grid(const std::string& name, int nvar, Int3 global, Int3 offset, Int3 extent,
                  const std::vector<double>& data);
  /// Collective. Per-atom rows [natoms, ncomp]: this rank passes the ids of its atoms (any order) and
  /// ncomp values per id; the value of id n is stored in row n - 1. The ids of all ranks together must
  /// be exactly 1..natoms.
  void write_rows(const std::string& name, long long natoms, int ncomp, const std::vector<long long>& id,
                  const std::vector<double>& values);
  void write_rows(const std::string& name, long long natoms, int ncomp, const std::vector<long long>& id,
                  const std::vector<long long>& values);
  /// Collective. A small replicated array: rank 0's values are stored.
  void write_values(const std::string& name, const std::vector<double>& v);

  /// Collective. Closes the file (flushing everything), renames the ".tmp" to the final path (rank 0,
  /// after an fsync; then every rank agrees on the outcome) and, if keep > 0, deletes the oldest files
  /// of the series so that at most `keep` remain among those with a step not above this file's (files
  /// of a later step, left by another history of the run, are not touched). No write may follow.
  void commit(int keep = 0);

  const std::string& path() const { return final_; }

 private:
  template <class T>
  void write_rows_impl(const std::string& name, long long natoms, int ncomp, const std::vector<long long>& id,
                       const std::vector<T>& values);
  /// Checks the name is valid and unused (same outcome on every rank) and that the file is open.
  void claim(const std::string& name);
  /// Collective: reserve_space for raw_bytes of data (plus metadata) in the temporary file.
  void reserve(double raw_bytes);

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::string final_, tmp_;
  long step_ = 0;
  bool created_ = false, committed_ = false;
  // The destructor's work without commit(): close or abandon the file, remove the temporary.
  void discard();
  void write_header(const CheckpointMeta& meta, long long step);
  h5::File file_;
  h5::PropList dxpl_;  // collective transfer (parallel HDF5 writes filtered data only collectively)
  std::set<std::string> names_;
  RowRouter rows_;  // its buffers serve every per-atom array of the checkpoint
};

/// The newest valid checkpoint of series NAME in dir (by step), skipping ".tmp" files and files that
/// fail validation (any physics is accepted), or "" if there is none. Collective: rank 0 lists the
/// directory, and every rank takes part in validating candidates, newest first.
std::string newest_checkpoint(MPI_Comm comm, const std::string& dir, const std::string& name);

class CheckpointReader {
 public:
  /// Collective. Opens and validates the file: a readable HDF5 file with this code's format name and
  /// version and the expected physics, every attribute of the right type, every dataset of a known kind,
  /// type and shape, with all its chunks stored, and every chunk read once (spread over the ranks) with
  /// its Fletcher32 checksum verified. Any failure is an InputError naming the file (and the dataset or
  /// the reason) on every rank. HDF5 prints nothing.
  CheckpointReader(MPI_Comm comm, const std::string& path, const std::string& expected_physics);
  /// Collective (closes the file).
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  const CheckpointMeta& meta() const { return meta_; }
  const std::string& path() const { return path_; }

  /// Collective. This rank's box (offset, extent as for write_grid) of a grid dataset, layout (var, k, j,
  /// i); any decomposition may read any file. InputError if the dataset is missing, not a grid, or not of
  /// shape [nvar, global z, global y, global x].
  std::vector<double> read_grid(const std::string& name, int nvar, Int3 global, Int3 offset, Int3 extent);
  /// Collective. Rows [first, first + count) of a float64 (read_rows) or int64 (read_rows_int) per-atom
  /// dataset, count * ncomp values; InputError if the dataset is missing, of the other type, or its
  /// number of components is not ncomp.
  std::vector<double> read_rows(const std::string& name, long long first, long long count, int ncomp);
  std::vector<long long> read_rows_int(const std::string& name, long long first, long long count, int ncomp);
  /// The number of rows (atoms) of a per-atom dataset; InputError if there is none of that name.
  long long rows(const std::string& name) const;
  /// Collective. The whole of a replicated array, on every rank.
  std::vector<double> read_values(const std::string& name);
  /// Whether the file holds a dataset of that name (any kind).
  bool has(const std::string& name) const;

  /// What validation learned of one dataset.
  struct Entry {
    std::string kind;             // "grid", "rows" or "values"
    bool integer = false;         // int64 (else float64)
    std::vector<long long> dims;  // dataset extents
  };

 private:
  const Entry& entry(const std::string& name, const char* kind) const;
  template <class T>
  std::vector<T> read_rows_impl(const std::string& name, long long first, long long count, int ncomp, bool integer);

  MPI_Comm comm_;
  std::string path_;
  CheckpointMeta meta_;
  h5::File file_;
  h5::PropList dxpl_;
  std::map<std::string, Entry> entries_;
};

}  // namespace stratus
