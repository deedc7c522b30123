// Parallel HDF5 files opened collectively: MPI-IO, the 1.8 file format (readable by every current HDF5,
// h5py, MDAnalysis, ParaView and VisIt; it also gives dense storage to attributes over 64 KiB, e.g. a
// long deck) and collective metadata writes (better at large rank counts). Used by grid snapshots and
// H5MD trajectories.
#pragma once
#include <mpi.h>

#include <string>

#include "io/hdf5_util.hpp"

namespace stratus::h5 {

/// Collective. Creates (truncates, create = true) or opens for writing `path`; `kind` names the file
/// in errors ("HDF5", "H5MD"). Every rank throws the same Error if any rank failed.
File open_parallel(MPI_Comm comm, const std::string& path, bool create, const std::string& kind);

/// Collective. Before the close of an output file opened by open_parallel() whose contiguous datasets end
/// at byte `end`: rank 0 allocates its disk blocks up to there and a little beyond (fallocate, the size
/// unchanged), so that the metadata the close writes (between and after the datasets) does not meet a full
/// disk: HDF5's collective close does not recover when that write fails on one rank only (it hung). If the
/// blocks cannot be had, every rank throws the same CollectiveError and the file is abandoned
/// (hdf5_util.hpp), not closed.
void reserve_for_close(MPI_Comm comm, const std::string& path, double end);

/// Collective, while an output file is open and a write into it outside HDF5 failed on some ranks (failed
/// holds why, empty where it did not): returns if no rank failed; otherwise the open output files are
/// abandoned (hdf5_util.hpp) and every rank throws the same CollectiveError.
void agree_or_abandon(MPI_Comm comm, const std::string& failed);

}  // namespace stratus::h5
