// The run loop: time stepping to run.t_end or run.max_steps, history rows and snapshots at their
// cadence, a progress line, a stop on SIGTERM/SIGINT/SIGUSR1 (agreed across ranks, then a final
// snapshot), a stop with a last snapshot when a diagnostic turns non-finite, and the closing summary
// (timers, throughput, output bandwidth). Output files are created only here, after the deck and the
// set-up have been validated.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "driver/run_params.hpp"
#include "driver/simulation.hpp"
#include "input/deck.hpp"

namespace stratus {

/// Exit status of a run: completed, or stopped early by a signal (after writing its final output).
enum class RunStatus { completed = 0, interrupted = 3 };

/// Collective. Validates the checkpoint that `stratus run --restart RESTART` would continue from (a path,
/// or "auto"), as the run would, without touching the simulation: InputError naming the file.
void validate_restart(const RunParams& rp, MPI_Comm comm, const std::string& restart);

/// Collective. Runs `sim` (not yet initialised) to completion. Throws Error on divergence. With
/// `restart` (a checkpoint path, or "auto" for the newest valid checkpoint of this run in its output
/// directory) the state, step and time come from the checkpoint (InputError when it is missing, damaged
/// or of another physics); the history table keeps its rows before the restart step.
RunStatus run_simulation(Simulation& sim, const Deck& deck, const RunParams& params, MPI_Comm comm,
                         const std::string& restart = "");

}  // namespace stratus
