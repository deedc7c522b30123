// HDF5 output files: opened collectively through MPI-IO with collective metadata writes (better at large
// rank counts), or created by one rank alone (grid snapshots whose cells every rank writes itself);
// either way the 1.8 file format (readable by every current HDF5, h5py, MDAnalysis, ParaView and VisIt;
// it also gives dense storage to attributes over 64 KiB, e.g. a long deck). Used by grid snapshots and
// H5MD trajectories.
#pragma once
#include <mpi.h>

#include <string>

#include "io/background_jobs.hpp"
#include "io/hdf5_util.hpp"

namespace stratus::h5 {

/// Collective. Creates (truncates, create = true) or opens for writing `path`; `kind` names the file
/// in errors ("HDF5", "H5MD"). Every rank throws the same Error if any rank failed.
File open_parallel(MPI_Comm comm, const std::string& path, bool create, const std::string& kind);

/// Not collective. Creates (truncates) `path` for this rank alone (MPI-IO on MPI_COMM_SELF), marked an
/// output file; `kind` names it in errors.
File create_output(const std::string& path, const std::string& kind);

/// Not collective. Before the close of an output file whose contiguous datasets end at byte `end`:
/// allocates its disk blocks up to there and a little beyond (fallocate, the size unchanged), so that the
/// metadata the close writes (between and after the datasets) does not meet a full disk. Throws Error
/// naming the file if the blocks cannot be had; a file system without fallocate reserves nothing.
void reserve_blocks(const std::string& path, double end);

/// Collective. reserve_blocks() on rank 0 for a file opened by open_parallel(): HDF5's collective close
/// does not recover when its metadata write fails on one rank only (it hung). If the blocks cannot be had,
/// every rank throws the same CollectiveError and the file is abandoned (hdf5_util.hpp), not closed.
void reserve_for_close(MPI_Comm comm, const std::string& path, double end);

/// Collective, while an output file is open and a write into it outside HDF5 failed on some ranks (failed
/// holds why, empty where it did not): returns if no rank failed; otherwise the open output files are
/// abandoned (hdf5_util.hpp) and every rank throws the same CollectiveError.
void agree_or_abandon(MPI_Comm comm, const std::string& failed);

/// The end of a writer whose background thread works on a communicator of its own (`comm`, a duplicate,
/// or MPI_COMM_NULL): waits for the job in flight, dropping its error (the owner reports errors through
/// its own wait), then frees comm, unless MPI is finalised or a file was abandoned: the process then ends
/// without finalising, and a collective free could wait for ever.
void end_background_writer(BackgroundJobs& jobs, MPI_Comm& comm) noexcept;

}  // namespace stratus::h5
