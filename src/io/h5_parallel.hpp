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

}  // namespace stratus::h5
