// The run loop: time stepping to run.t_end or run.max_steps, history rows and snapshots at their
// cadence, a progress line, a stop on SIGTERM/SIGINT/SIGUSR1 (agreed across ranks, then a final
// snapshot), a stop with a last snapshot when a diagnostic turns non-finite, and the closing summary
// (timers, throughput, output bandwidth). Output files are created only here, after the deck and the
// set-up have been validated.
#pragma once
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "driver/run_params.hpp"
#include "driver/simulation.hpp"
#include "input/deck.hpp"

namespace stratus {

class CheckpointReader;

/// Exit status of a run: completed, or stopped early (a signal, the stop file, the wall-time guard) after
/// writing a checkpoint to continue from.
enum class RunStatus { completed = 0, interrupted = 3 };

/// What `--restart` leads to, decided before anything is initialised or written.
struct RestartPlan {
  bool complete = false;     // "auto" on a complete run whose end the deck does not extend: nothing to do
  long completed_step = -1;  // the completion marker's step (-1: none)
  double completed_time = 0.0;
  std::string checkpoint;                    // the checkpoint to continue from ("": a fresh start)
  std::shared_ptr<CheckpointReader> reader;  // it, opened and validated
};

/// Collective. Resolves `restart` ("" none, a checkpoint path, or "auto": the run's completion marker,
/// else its newest valid checkpoint, else a fresh start) and checks that the deck does not change the
/// physics stored in the checkpoint. InputError naming the file or the keys.
RestartPlan plan_restart(const Deck& deck, const RunParams& rp, MPI_Comm comm, const std::string& restart);

/// Collective. `stratus check --restart`: plan_restart and a line about the outcome; writes nothing.
void validate_restart(const Deck& deck, const RunParams& rp, MPI_Comm comm, const std::string& restart);

/// Collective. Runs `sim` (not yet initialised) to the end the deck sets (absolute: a continued run
/// does not go past it), from the plan's checkpoint when it names one. Throws Error on divergence (after
/// writing the run report). The history table keeps its rows before the restart step.
RunStatus run_simulation(Simulation& sim, const Deck& deck, const RunParams& params, MPI_Comm comm,
                         const RestartPlan& plan = {});

}  // namespace stratus
