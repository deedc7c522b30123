// Parallel HDF5 files opened collectively: MPI-IO, the 1.8 file format (readable by every current HDF5,
// h5py, MDAnalysis, ParaView and VisIt; it also gives dense storage to attributes over 64 KiB, e.g. a
// long deck) and collective metadata writes (better at large rank counts). Used by grid snapshots and
// H5MD trajectories.
#pragma once
#include <mpi.h>

#include <string>

#include "io/hdf5_util.hpp"

namespace stratus::h5 {

/// How the ranks' parts of the file's raw data lie.
enum class FileBlocks {
  /// Interleaved in the file (a rank's part of a dataset is many runs): MPI-IO's collective buffering
  /// gathers them to aggregator ranks, which write large runs.
  interleaved,
  /// One contiguous range per rank and dataset (whole z-planes of a grid): every rank writes its own
  /// range (ROMIO's hint romio_cb_write = disable) instead of sending it to the one aggregator of its
  /// node, which would then write alone.
  contiguous,
};

/// Collective. Creates (truncates, create = true) or opens for writing `path`; `kind` names the file
/// in errors ("HDF5", "H5MD"). Every rank throws the same Error if any rank failed.
File open_parallel(MPI_Comm comm, const std::string& path, bool create, const std::string& kind,
                   FileBlocks blocks = FileBlocks::interleaved);

/// Collective. Before the close of an output file opened by open_parallel() whose contiguous datasets end
/// at byte `end`: rank 0 allocates its disk blocks up to there and a little beyond (fallocate, the size
/// unchanged), so that the metadata the close writes (between and after the datasets) does not meet a full
/// disk: HDF5's collective close does not recover when that write fails on one rank only (it hung). If the
/// blocks cannot be had, every rank throws the same CollectiveError and the file is abandoned
/// (hdf5_util.hpp), not closed.
void reserve_for_close(MPI_Comm comm, const std::string& path, double end);

}  // namespace stratus::h5
