// The [run] keys and their reading into RunParams.
#include "driver/run_params.hpp"

#include "core/error.hpp"

namespace stratus {

void declare_run_options(OptionRegistry& reg, const std::vector<std::string>& physics) {
  // Step counts go through doubles (history table) and checkpoint names: 2^53 is exact in both.
  constexpr double kMaxStep = 9007199254740992.0;
  auto& p = reg.add_string("run.physics", "advection", "", "which physics to run");
  if (!physics.empty()) p.one_of(physics);
  reg.add_string("run.name", "run", "", "prefix of every output file");
  reg.add_string("run.output_dir", "output", "", "directory for snapshots and the history table");
  reg.add_real("run.t_end", 1.0, "s", "simulated time to reach").greater_than(0.0);
  reg.add_int("run.max_steps", 0, "steps", "stop after this many steps (0: no limit)").at_least(0).at_most(kMaxStep);
  reg.add_real("run.dt", 0.0, "s", "fixed time step (0: the largest stable step, every step)").at_least(0.0);
  reg.add_int("run.history_every", 1, "steps", "steps between rows of the history table").at_least(1).at_most(kMaxStep);
  reg.add_int("run.snapshot_every", 0, "steps", "steps between HDF5 snapshots (0: initial and final only)").at_least(0).at_most(kMaxStep);
  reg.add_int("run.checkpoint_every", 0, "steps",
              "steps between checkpoints (NAME_chk_STEP.h5 in run.output_dir; also at the end and on "
              "SIGTERM/SIGINT/SIGUSR1); 0: none")
      .at_least(0)
      .at_most(kMaxStep);
  reg.add_int("run.checkpoint_keep", 2, "", "checkpoints kept on disk (the oldest are deleted)").at_least(1);
  reg.add_int("run.compression", 0, "", "deflate level of grid snapshot fields (shuffle + deflate; 0: off)")
      .at_least(0)
      .at_most(9);
  reg.add_int("run.stop_grace", 300, "s",
              "after a stop signal (SIGTERM/SIGINT/SIGUSR1), seconds allowed to reach the next step and write the "
              "final output before the process exits without it (a rank stuck in I/O or communication); 0: no "
              "limit. A second stop signal always exits at once")
      .at_least(0)
      .at_most(86400);
  reg.add_int("run.progress_every", 0, "steps", "steps between progress lines (0: about 20 per run)").at_least(0).at_most(kMaxStep);
}

RunParams RunParams::from_deck(const Deck& deck) {
  RunParams p;
  p.physics = deck.get_string("run.physics");
  p.name = deck.get_string("run.name");
  p.output_dir = deck.get_string("run.output_dir");
  p.t_end = deck.get_real("run.t_end");
  p.max_steps = deck.get_int("run.max_steps");
  p.dt = deck.get_real("run.dt");
  p.history_every = deck.get_int("run.history_every");
  p.snapshot_every = deck.get_int("run.snapshot_every");
  p.compression = deck.get_int32("run.compression");
  p.checkpoint_every = deck.get_int("run.checkpoint_every");
  p.checkpoint_keep = deck.get_int32("run.checkpoint_keep");
  p.progress_every = deck.get_int("run.progress_every");
  p.stop_grace = deck.get_int("run.stop_grace");
  STRATUS_INPUT_REQUIRE(!p.name.empty() && p.name.find('/') == std::string::npos,
                        "key 'run.name' = '" << p.name << "' must be a non-empty file prefix without '/'");
  STRATUS_INPUT_REQUIRE(!p.output_dir.empty(), "key 'run.output_dir' must not be empty");
  return p;
}

}  // namespace stratus
