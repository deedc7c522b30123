// Disk space checked before a file is written. A full scratch file system or an exhausted quota is
// the most common way a long batch run fails, and a write that hits ENOSPC half-way through a
// collective parallel-HDF5 call leaves the ranks in different states (a close that never returns, a
// crash at MPI_Finalize). So every writer first asks for the bytes it is about to add: rank 0 allocates
// them in a scratch file beside the output (fallocate, which counts against quotas too) and frees
// them at once, and the ranks agree on the outcome, so a shortage becomes one CollectiveError on every
// rank before any byte of the file is touched. File systems without fallocate are checked with statvfs.
// This does not reserve the space until the write (another job may take it in between); the writers
// still handle a failed write (io/hdf5_util.hpp). STRATUS_IO_RESERVE=0 in the environment turns the check
// off.
#pragma once
#include <mpi.h>

#include <string>

namespace stratus {

/// HDF5 metadata and alignment on top of the raw data of one file or dataset (measured: a few kB per
/// dataset; 1 % covers chunk indexes of large datasets).
double with_metadata(double raw_bytes);

/// Collective. Checks that `bytes` more bytes fit on the file system that will hold `path` (a file to be
/// written; its directory must exist). Throws CollectiveError "cannot write 'path': No space left on
/// device (...)" naming the free space when they do not.
void reserve_space(MPI_Comm comm, const std::string& path, double bytes);

/// Collective. reserve_space(comm, path, with_metadata(data_bytes)) for a file about to be created at
/// `path` by a writer that does not truncate an empty file (parallel HDF5) and writes at least data_bytes:
/// rank 0 creates `path` empty and allocates data_bytes beyond its end (fallocate with
/// FALLOC_FL_KEEP_SIZE), where the writer's data then lands, so that nothing is allocated twice or freed;
/// the metadata's few more bytes are checked against the free space. Call trim_reserved once the file is
/// complete. Throws as reserve_space does (and then `path` does not exist).
void reserve_in_file(MPI_Comm comm, const std::string& path, double data_bytes);

/// Collective. reserve_space(comm, path, bytes) for `bytes` more to be appended to the existing file at
/// `path` (an H5MD trajectory's next frame, which HDF5 puts at the end of the file): rank 0 allocates them
/// beyond its end (fallocate with FALLOC_FL_KEEP_SIZE), where the writes then land, instead of in a scratch
/// file created and removed for each frame (a create and a removal are round trips to the metadata server
/// on a network file system). What is not used stays allocated beyond the end, at most one frame's margin.
/// Without fallocate, or without room (then nothing stays allocated), reserve_space's check decides.
void reserve_appended(MPI_Comm comm, const std::string& path, double bytes);

/// Local; one rank, after every rank has closed `path`. Frees what reserve_in_file allocated beyond the
/// end of a file that came out shorter than data_bytes (compressed data).
void trim_reserved(const std::string& path, double data_bytes);

/// Local. " (No space left on device: N bytes free)" when the file system holding `path` has less than
/// 1 MiB free (or its quota is exhausted as far as statvfs tells), else "": appended to messages of failed
/// writes, whose MPI-IO error text rarely says why.
std::string space_hint(const std::string& path);

}  // namespace stratus
