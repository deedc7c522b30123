// The [run] section of the deck: step and time limits, output cadence and names, checkpoints, signals.
#pragma once
#include <string>
#include <vector>

#include "input/deck.hpp"

namespace stratus {

/// Declares [run]; `physics` (the registered names) become the allowed values of run.physics.
void declare_run_options(OptionRegistry& reg, const std::vector<std::string>& physics = {});

struct RunParams {
  std::string physics;
  std::string name;  // file prefix
  std::string output_dir;
  double t_end = 0.0;         // [time unit]
  long max_steps = 0;         // 0 = no limit
  double dt = 0.0;            // fixed step; 0 = the simulation's stable step
  long history_every = 1;     // steps between history rows
  long snapshot_every = 0;    // steps between snapshots; 0 = first and last only
  int compression = 0;        // deflate level of grid snapshots (0: off)
  long checkpoint_every = 0;  // steps between checkpoints; 0 = none
  int checkpoint_keep = 2;    // checkpoints of the run kept on disk (older ones are deleted)
  long progress_every = 0;    // steps between progress lines; 0 = about 20 lines per run
  long stop_grace = 300;      // seconds from a stop signal to a forced exit; 0 = no limit

  static RunParams from_deck(const Deck& deck);
};

}  // namespace stratus
