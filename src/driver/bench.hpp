// Measurements behind `stratus bench`: the memory-bandwidth roof of the default execution space
// (a STREAM-style triad), the stepping rate of a deck's physics and the rate of one of its kernels alone
// (a halo exchange, a neighbor-list build), all timed with fences so that asynchronous GPU kernels are
// counted in full. Output and diagnostics are left out on purpose.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <string>

#include "driver/simulation.hpp"

namespace stratus {

struct TriadResult {
  double bytes_per_array = 0;  // per rank
  double best_gbs = 0;         // all ranks together, best repetition, 24 bytes per element (STREAM's count)
  double mean_gbs = 0;
};

/// a = b + s c on three arrays of bytes_per_array each per rank, all ranks at once; reps timed repetitions.
/// Collective.
TriadResult triad_bandwidth(std::size_t bytes_per_array, int reps, MPI_Comm comm);

struct StepResult {
  long steps = 0;
  double seconds = 0;          // slowest rank, stepping only
  double work_per_second = 0;  // cell-updates (or atom-steps) per second, all ranks
  double seconds_per_step = 0;
  double bytes_per_update = 0;  // the simulation's own count (0: unknown)
};

/// Initialises sim, takes warmup untimed steps, then times `steps` steps of its stable dt. Collective.
StepResult time_steps(Simulation& sim, int warmup, int steps, MPI_Comm comm);

struct KernelResult {
  long calls = 0;
  double seconds = 0;  // slowest rank, timed calls only
  double seconds_per_call = 0;
  double work_per_call = 0;  // all ranks, in the kernel's unit
};

/// Initialises sim, runs kernel `name` (one of sim.bench_kernels()) warmup times untimed, then times
/// `calls` calls. Collective.
KernelResult time_kernel(Simulation& sim, const std::string& name, int warmup, int calls, MPI_Comm comm);

}  // namespace stratus
