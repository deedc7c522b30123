// The [run] keys, declared and read by one binding each (RunParams::bind).
#include "driver/run_params.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/batch_env.hpp"
#include "core/error.hpp"
#include "input/options.hpp"
#include "io/output_dir.hpp"

namespace stratus {

template <class B>
void RunParams::bind(B& o, const std::vector<std::string>& physics) {
  // Step counts go through doubles (history table) and checkpoint names: 2^53 is exact in both.
  constexpr double kMaxStep = 9007199254740992.0;
  auto& p = o.string(&RunParams::physics, "run.physics", "advection", "", "which physics to run");
  if (!physics.empty()) p.one_of(physics);
  o.string(&RunParams::name, "run.name", "run", "", "prefix of every output file").may_change_on_restart();
  o.string(&RunParams::output_dir, "run.output_dir", "output", "", "directory for snapshots and the history table")
      .may_change_on_restart();
  o.real(&RunParams::t_end, "run.t_end", 1.0, "time",
         "simulated time at which the run ends (absolute, as run.max_steps), in the physics' time unit (s; MD: "
         "that of md.units: tau, fs or ps). MD runs end at run.max_steps and need no run.t_end: unset, it sets "
         "no limit there")
      .greater_than(0.0)
      .may_change_on_restart();
  o.integer(&RunParams::max_steps, "run.max_steps", 0, "steps",
            "the step at which the run ends, counted from its start at step 0 "
            "(absolute: a restart does not extend it, like LAMMPS' run N upto; 0: no limit)")
      .at_least(0)
      .at_most(kMaxStep)
      .may_change_on_restart();
  o.real(&RunParams::dt, "run.dt", 0.0, "time",
         "fixed time step in the physics' time unit (s; MD: md.timestep sets it) (0: the largest stable step, "
         "every step)")
      .at_least(0.0);
  o.integer(&RunParams::history_every, "run.history_every", 1, "steps", "steps between rows of the history table")
      .at_least(1)
      .at_most(kMaxStep)
      .may_change_on_restart();
  o.integer(&RunParams::snapshot_every, "run.snapshot_every", 0, "steps",
            "steps between HDF5 snapshots (0: initial and final only)")
      .at_least(0)
      .at_most(kMaxStep)
      .may_change_on_restart();
  o.integer(&RunParams::checkpoint_every, "run.checkpoint_every", 0, "steps",
            "steps between checkpoints (NAME_chk_STEP.h5 in run.output_dir; also at the end); 0: none. A run "
            "stopped early (SIGTERM/SIGINT/SIGUSR1, the stop file, the wall-time guard) always writes one")
      .at_least(0)
      .at_most(kMaxStep)
      .may_change_on_restart();
  o.integer(&RunParams::checkpoint_keep, "run.checkpoint_keep", 2, "",
            "checkpoints kept on disk (the oldest are deleted)")
      .at_least(1)
      .may_change_on_restart();
  o.integer(&RunParams::compression, "run.compression", 0, "",
            "deflate level of grid snapshot fields (shuffle + deflate; 0: off)")
      .at_least(0)
      .at_most(9)
      .may_change_on_restart();
  o.string(&RunParams::background_output, "run.background_output", "auto", "",
           "snapshots (grid files, trajectory frames) written by a background thread while the run steps on: auto "
           "(where every node has a core beyond its ranks' threads), on, off (written in the step loop). Needs an "
           "MPI with MPI_THREAD_MULTIPLE; without one, off")
      .one_of({"auto", "on", "off"})
      .may_change_on_restart();
  o.integer(&RunParams::stop_grace, "run.stop_grace", 300, "s",
            "after a stop signal (SIGTERM/SIGINT/SIGUSR1), seconds allowed to reach the next step and write the "
            "final output before the process exits without it (a rank stuck in I/O or communication); 0: no "
            "limit. A second stop signal exits at once, unless a checkpoint is being written: that completes "
            "first (a third signal does not wait)")
      .at_least(0)
      .at_most(86400)
      .may_change_on_restart();
  o.string(&RunParams::max_walltime, "run.max_walltime", "0", "s",
           "wall time this invocation may use, in seconds or [D-]HH:MM:SS; before it ends (less "
           "run.walltime_margin) the run writes a checkpoint and exits 3. 0: none, or inside a Slurm job the "
           "job's own time limit")
      .may_change_on_restart();
  o.real(&RunParams::walltime_margin, "run.walltime_margin", 60.0, "s",
         "least time kept in hand before the wall-time limit (raised to twice the last checkpoint's write "
         "time plus two steps when that is longer)")
      .at_least(0.0)
      .may_change_on_restart();
  o.string(&RunParams::metrics_file, "run.metrics_file", "", "",
           "file name (in run.output_dir) of a Prometheus text-format metrics file rewritten every "
           "run.metrics_every seconds (node_exporter textfile collector); empty: none")
      .may_change_on_restart();
  o.real(&RunParams::metrics_every, "run.metrics_every", 15.0, "s", "seconds between rewrites of run.metrics_file")
      .greater_than(0.0)
      .may_change_on_restart();
  o.real(&RunParams::price_per_node_hour, "run.price_per_node_hour", 0.0, "1/h",
         "price of one node for one hour (any currency), for the cost estimate of the run report and progress "
         "line; 0: the environment variable STRATUS_PRICE_PER_NODE_HOUR, or no estimate")
      .at_least(0.0)
      .may_change_on_restart();
  o.integer(&RunParams::progress_every, "run.progress_every", 0, "steps",
            "steps between progress lines (0: about 20 per run)")
      .at_least(0)
      .at_most(kMaxStep)
      .may_change_on_restart();
}

void declare_run_options(OptionRegistry& reg, const std::vector<std::string>& physics) {
  Options<RunParams> o(reg);
  RunParams::bind(o, physics);
}

RunParams RunParams::from_deck(const Deck& deck, const RunEndOf& end_of) {
  RunParams p{};
  Options<RunParams> o(deck, p);
  bind(o);
  if (end_of && end_of(p.physics) == RunEnd::at_step) {
    if (!deck.is_set("run.t_end")) p.t_end = std::numeric_limits<double>::infinity();
    STRATUS_INPUT_REQUIRE(p.max_steps > 0 || deck.is_set("run.t_end"),
                          "deck '" << deck.source() << "': key 'run.max_steps' is needed: a " << p.physics
                                   << " run ends at a step count (as LAMMPS' run N); run.t_end is optional");
  }
  STRATUS_INPUT_REQUIRE(!p.name.empty() && p.name.find('/') == std::string::npos,
                        "key 'run.name' = '" << p.name << "' must be a non-empty file prefix without '/'");
  STRATUS_INPUT_REQUIRE(!p.output_dir.empty(), "key 'run.output_dir' must not be empty");
  p.max_walltime_s = parse_duration("run.max_walltime", p.max_walltime);
  if (!p.metrics_file.empty()) check_output_file_name("run.metrics_file", p.metrics_file);
  // A site may set the node-hour price once for every run.
  const char* price = std::getenv("STRATUS_PRICE_PER_NODE_HOUR");
  if (p.price_per_node_hour == 0.0 && price && *price) {
    char* end = nullptr;
    const double v = std::strtod(price, &end);
    STRATUS_INPUT_REQUIRE(end && *end == '\0' && std::isfinite(v) && v >= 0.0,
                          "environment variable STRATUS_PRICE_PER_NODE_HOUR = '"
                              << price << "' is not a non-negative number (the price of one node-hour)");
    p.price_per_node_hour = v;
  }
  return p;
}

}  // namespace stratus
