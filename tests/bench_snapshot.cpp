// Grid snapshot write bandwidth (io/grid_output) next to a plain sequential write of the same bytes in the
// same directory, in one run, alternating (io/write_bench). Not a test: a benchmark.
//   usage: [mpiexec -n P] bench_snapshot [--cells N] [--vars V] [--reps R] [--dir D] [--fsync] [--held]
// Defaults: the default deck's snapshot (64^3 cells, one variable, 2 MB), 21 repetitions, ./bench_snapshot.
// Prints the medians of both and the snapshot's bandwidth as a fraction of the plain write's; --fsync
// makes the plain write fsync its file (the snapshot fsyncs neither its data nor its XDMF sidecars, so the
// default compares like with like); --held hands the field over as the physics with output fields of their
// own do (FieldHold::until_finish: no copy on CPUs).
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "io/write_bench.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Kokkos::initialize(argc, argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = 64, vars = 1, reps = 21;
  bool sync = false, held = false;
  std::string dir = "bench_snapshot";
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    const bool more = a + 1 < argc;
    if (s == "--cells" && more) {
      n = std::atoi(argv[++a]);
    } else if (s == "--vars" && more) {
      vars = std::atoi(argv[++a]);
    } else if (s == "--reps" && more) {
      reps = std::atoi(argv[++a]);
    } else if (s == "--dir" && more) {
      dir = argv[++a];
    } else if (s == "--fsync") {
      sync = true;
    } else if (s == "--held") {
      held = true;
    } else if (s.rfind("--kokkos", 0) != 0) {
      if (rank == 0) std::fprintf(stderr, "bench_snapshot: unknown argument '%s'\n", s.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  int rc = 0;
  try {
    const auto hold = held ? stratus::FieldHold::until_finish : stratus::FieldHold::call;
    const auto r = stratus::bench_snapshot_write(MPI_COMM_WORLD, stratus::Int3{n, n, n}, vars, reps, dir, sync, hold);
    if (rank == 0) {
      std::printf(
          "snapshot %d^3 x %d vars (%.3g MB)%s, %d ranks, %d reps: hdf5 %.3f ms (%.0f MB/s), plain write%s "
          "%.3f ms (%.0f MB/s), fraction %.2f\n",
          n, vars, r.bytes / 1e6, held ? " held" : "", size, r.reps, r.snapshot_seconds * 1e3, r.bytes / 1e6 / r.snapshot_seconds,
          sync ? " + fsync" : "", r.plain_seconds * 1e3, r.bytes / 1e6 / r.plain_seconds, r.fraction());
    }
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "bench_snapshot: %s\n", e.what());
    rc = 1;
  }
  Kokkos::finalize();
  MPI_Finalize();
  return rc;
}
