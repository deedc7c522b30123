// The [run] keys, declared and read by one binding each (RunParams::bind).
#include "driver/run_params.hpp"

#include "core/error.hpp"
#include "input/options.hpp"

namespace stratus {

template <class B>
void RunParams::bind(B& o, const std::vector<std::string>& physics) {
  // Step counts go through doubles (history table) and checkpoint names: 2^53 is exact in both.
  constexpr double kMaxStep = 9007199254740992.0;
  auto& p = o.string(&RunParams::physics, "run.physics", "advection", "", "which physics to run");
  if (!physics.empty()) p.one_of(physics);
  o.string(&RunParams::name, "run.name", "run", "", "prefix of every output file");
  o.string(&RunParams::output_dir, "run.output_dir", "output", "", "directory for snapshots and the history table");
  o.real(&RunParams::t_end, "run.t_end", 1.0, "s", "simulated time to reach").greater_than(0.0);
  o.integer(&RunParams::max_steps, "run.max_steps", 0, "steps", "stop after this many steps (0: no limit)")
      .at_least(0)
      .at_most(kMaxStep);
  o.real(&RunParams::dt, "run.dt", 0.0, "s", "fixed time step (0: the largest stable step, every step)").at_least(0.0);
  o.integer(&RunParams::history_every, "run.history_every", 1, "steps", "steps between rows of the history table")
      .at_least(1)
      .at_most(kMaxStep);
  o.integer(&RunParams::snapshot_every, "run.snapshot_every", 0, "steps",
            "steps between HDF5 snapshots (0: initial and final only)")
      .at_least(0)
      .at_most(kMaxStep);
  o.integer(&RunParams::checkpoint_every, "run.checkpoint_every", 0, "steps",
            "steps between checkpoints (NAME_chk_STEP.h5 in run.output_dir; also at the end and on "
            "SIGTERM/SIGINT/SIGUSR1); 0: none")
      .at_least(0)
      .at_most(kMaxStep);
  o.integer(&RunParams::checkpoint_keep, "run.checkpoint_keep", 2, "", "checkpoints kept on disk (the oldest are deleted)")
      .at_least(1);
  o.integer(&RunParams::compression, "run.compression", 0, "",
            "deflate level of grid snapshot fields (shuffle + deflate; 0: off)")
      .at_least(0)
      .at_most(9);
  o.integer(&RunParams::stop_grace, "run.stop_grace", 300, "s",
            "after a stop signal (SIGTERM/SIGINT/SIGUSR1), seconds allowed to reach the next step and write the "
            "final output before the process exits without it (a rank stuck in I/O or communication); 0: no "
            "limit. A second stop signal always exits at once")
      .at_least(0)
      .at_most(86400);
  o.integer(&RunParams::progress_every, "run.progress_every", 0, "steps",
            "steps between progress lines (0: about 20 per run)")
      .at_least(0)
      .at_most(kMaxStep);
}

void declare_run_options(OptionRegistry& reg, const std::vector<std::string>& physics) {
  Options<RunParams> o(reg);
  RunParams::bind(o, physics);
}

RunParams RunParams::from_deck(const Deck& deck) {
  RunParams p{};
  Options<RunParams> o(deck, p);
  bind(o);
  STRATUS_INPUT_REQUIRE(!p.name.empty() && p.name.find('/') == std::string::npos,
                        "key 'run.name' = '" << p.name << "' must be a non-empty file prefix without '/'");
  STRATUS_INPUT_REQUIRE(!p.output_dir.empty(), "key 'run.output_dir' must not be empty");
  return p;
}

}  // namespace stratus
