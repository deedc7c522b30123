// Snapshot write bandwidth next to a plain sequential write of the same bytes, measured side by side in
// one call: repetitions alternate between GridSnapshotWriter::write (everything it does: host copy, space
// check, parallel HDF5 file, rename, XDMF sidecars) and rank 0 writing the same number of field bytes to a
// new file in the same directory with write(2) and closing it, with the snapshot's durability (no fsync:
// the snapshot syncs neither its data nor its XDMF sidecars; `fsync_plain` adds one for comparison). Every
// file stays until the end (as a run's snapshots do), then all are removed. For benchmarks only; nothing
// here is asserted on.
#pragma once
#include <mpi.h>

#include <string>

#include "core/types.hpp"
#include "io/grid_output.hpp"

namespace stratus {

struct WriteBenchResult {
  double bytes = 0.0;             // field bytes of one snapshot (all ranks)
  double snapshot_seconds = 0.0;  // median over repetitions of one snapshot write (slowest rank)
  double plain_seconds = 0.0;     // median over repetitions of the plain write of `bytes`
  int reps = 0;
  /// Snapshot bandwidth as a fraction of the plain write's.
  double fraction() const { return snapshot_seconds > 0.0 ? plain_seconds / snapshot_seconds : 0.0; }
};

/// Collective over comm. Writes `reps` snapshots of `nvars` variables on a `cells` grid (decomposed over
/// comm like a run's, 2 ghost cells) into dir (created if missing; it should be empty), alternating with
/// `reps` plain writes. hold: how the field is handed to the writer (FieldHold::until_finish, as the physics
/// with output fields of their own do, saves the copy on CPUs). Returns the same result on every rank.
/// Throws Error on I/O failures.
WriteBenchResult bench_snapshot_write(MPI_Comm comm, Int3 cells, int nvars, int reps, const std::string& dir,
                                      bool fsync_plain = false, FieldHold hold = FieldHold::call);

}  // namespace stratus
