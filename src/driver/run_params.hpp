// The [run] section of the deck: step and time limits, output cadence and names, checkpoints, signals.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "input/deck.hpp"

namespace stratus {

/// How a run of a physics ends: at run.t_end (climate; run.max_steps optional), or at a step count (MD, as
/// LAMMPS' run N: run.max_steps required, run.t_end optional and, unset, no limit).
enum class RunEnd { at_time, at_step };
/// The RunEnd of a physics by name.
using RunEndOf = std::function<RunEnd(const std::string& physics)>;

/// Declares [run]; `physics` (the registered names) become the allowed values of run.physics.
void declare_run_options(OptionRegistry& reg, const std::vector<std::string>& physics = {});

// Defaults are those of the bindings in run_params.cpp.
struct RunParams {
  std::string physics;
  std::string name;  // file prefix
  std::string output_dir;
  double t_end{};                // [time unit]
  long max_steps{};              // the step at which the run ends (absolute); 0 = no limit
  double dt{};                   // fixed step; 0 = the simulation's stable step
  long history_every{};          // steps between history rows
  long snapshot_every{};         // steps between snapshots; 0 = first and last only
  int compression{};             // deflate level of grid snapshots (0: off)
  std::string background_output;  // grid snapshots by a background thread: auto, on, off
  long checkpoint_every{};       // steps between checkpoints; 0 = none
  int checkpoint_keep{};         // checkpoints of the run kept on disk (older ones are deleted)
  long progress_every{};         // steps between progress lines; 0 = about 20 lines per run
  long stop_grace{};             // seconds from a stop signal to a forced exit; 0 = no limit
  std::string max_walltime;      // as given: seconds or [D-]HH:MM:SS ("0": none / the Slurm job's limit)
  double max_walltime_s{};       // parsed max_walltime [s]; 0 = none
  double walltime_margin{};      // [s]
  std::string metrics_file;      // file name in output_dir; "" = none
  double metrics_every{};        // [s]
  double price_per_node_hour{};  // the deck's, else STRATUS_PRICE_PER_NODE_HOUR's; 0 = none

  /// The [run] keys of `deck` (and STRATUS_PRICE_PER_NODE_HOUR); InputError naming a bad one, or a missing
  /// run.max_steps where `end_of` says the deck's physics ends at a step count.
  static RunParams from_deck(const Deck& deck, const RunEndOf& end_of = {});
  /// One statement per [run] key (input/options.hpp); `physics` as in declare_run_options.
  template <class B>
  static void bind(B& o, const std::vector<std::string>& physics = {});
};

}  // namespace stratus
