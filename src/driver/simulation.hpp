// The narrow interface between the run loop and a kind of physics, and the registry that maps a deck's
// run.physics name to its options and factory. The run loop, output and (later) checkpoints see nothing
// else of a simulation. Registration is explicit (a function call per physics), not by static objects.
#pragma once
#include <mpi.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "domain/cart_decomp.hpp"
#include "domain/local_grid.hpp"
#include "driver/diagnostics.hpp"
#include "driver/run_params.hpp"
#include "input/deck.hpp"
#include "io/grid_output.hpp"

namespace stratus {

class CheckpointWriter;
class CheckpointReader;

/// The communicator of a simulation's ranks. Physics code passes it on (to a decomposition) and makes no
/// MPI calls of its own: reductions go through the diagnostics plan and core/reduction.hpp.
using Comm = MPI_Comm;

/// The simulation clock, owned by the run loop (and restored by it from checkpoints): the physics reads it.
struct Clock {
  long step = 0;      // steps taken
  double time = 0.0;  // [time unit]
  void tick(double dt) {
    time += dt;
    ++step;
  }
};

/// Grid fields a simulation exposes for snapshots.
struct GridFields {
  const CartDecomp* decomp = nullptr;
  LocalGrid grid;
  Field4D data;
  std::vector<GridVariable> vars;
  /// data is not changed until the next grid_fields() call (an output field computed only when asked):
  /// the snapshot writer may then read it while the run steps on, instead of copying it.
  bool held = false;
};

class Simulation {
 public:
  virtual ~Simulation() = default;

  // ------------------------------------------------------------------ set-up and description
  /// Resolved set-up in a few lines (for `stratus check` and the run log). Cheap, no allocation.
  virtual std::string describe() const = 0;
  /// Estimated device memory per rank [bytes] once initialised.
  virtual double memory_bytes() const = 0;
  /// Collective. Reads and validates what the deck names besides itself (data files) and checks what the
  /// set-up will refuse (decomposition limits), without allocating the state or writing anything; throws
  /// InputError. `stratus check` and `stratus run` both call it before any output.
  virtual void preflight() {}
  /// Files the set-up reads besides the deck (data files), for the provenance of the run report.
  virtual std::vector<std::string> input_files() const { return {}; }
  /// Allocates the state and sets the initial condition at time 0.
  virtual void initialize() = 0;
  /// Units of length and time, for output attributes.
  virtual std::string length_unit() const { return "m"; }
  virtual std::string time_unit() const { return "s"; }
  /// Units of the history table's diagnostic columns, by name ("1" dimensionless; a column not listed has
  /// none known), for NAME_report.json and the plots made from the table.
  virtual std::vector<std::pair<std::string, std::string>> history_units() const { return {}; }

  // ------------------------------------------------------------------ stepping
  /// Largest stable time step for the current state [time unit].
  virtual double stable_dt() const = 0;
  /// Advances the state one step of length dt from clock (the run loop ticks the clock afterwards).
  virtual void advance(const Clock& clock, double dt) = 0;
  /// Whether diagnostics() will be asked for after the next advance() (so that a simulation can skip
  /// work only diagnostics need on the other steps). A simulation must give correct diagnostics either way.
  virtual void will_report(bool) {}
  /// Cells (or atoms) advanced per step on all ranks, for the throughput line of the run summary.
  virtual double work_per_step() const = 0;
  /// Name of the unit of work_per_step(), e.g. "cell-updates" or "atom-steps".
  virtual std::string work_unit() const { return "cell-updates"; }
  /// Bytes of device memory a step must read and write per unit of work, counting each kernel's own
  /// loads and stores once (perfect caching within a kernel), for the bandwidth fraction of `stratus
  /// bench`; 0 when not known.
  virtual double bytes_per_update() const { return 0.0; }

  // ------------------------------------------------------------------ benchmarks
  /// A part of the step `stratus bench --kernel NAME` can time alone: its name and the unit of the work
  /// run_bench_kernel() returns (e.g. "halo" moving "bytes", "neighbor" listing "atoms").
  struct BenchKernel {
    std::string name;
    std::string unit;
    std::string what;  // one call, in a few words
  };
  virtual std::vector<BenchKernel> bench_kernels() const { return {}; }
  /// Collective. Runs kernel `name` (one of bench_kernels()) once on the current state, after
  /// initialize(), and leaves the state usable; returns this rank's work in the kernel's unit.
  virtual double run_bench_kernel(const std::string& /*name*/) { return 0.0; }

  // ------------------------------------------------------------------ diagnostics
  /// Collective. The declared diagnostics of the current state at `clock`; dt is the step just taken (0
  /// before the first). One fused device reduction, one MPI reduction per operation.
  Diagnostics diagnostics(const Clock& clock, double dt);
  /// Collective. Called when a diagnostic is not finite: where the state first stops being finite
  /// (field, cell, coordinates), or empty when the simulation cannot tell.
  virtual std::string locate_nonfinite() { return {}; }
  /// Collective. A reason to stop the run although every diagnostic is finite (e.g. a CFL number past the
  /// scheme's limit), or empty to go on.
  virtual std::string divergence(const Diagnostics&) { return {}; }
  /// How far the run is, for report(): the fraction done (0..1) and the estimated seconds to the end
  /// (NaN before there is an estimate).
  struct Progress {
    double fraction = 0.0;
    double eta_s = 0.0;
  };
  /// Called by the run loop with every history row (e.g. to print a thermo line in the log).
  virtual void report(const Clock&, const Diagnostics&, const Progress&) {}
  /// True when report() prints a table in the log (MD's thermo): the run loop then prints no progress
  /// lines of its own between its rows; report() carries the progress.
  virtual bool prints_table() const { return false; }

  // ------------------------------------------------------------------ output and checkpoints
  /// Collective. Fields to snapshot, or nothing for particle physics.
  virtual std::optional<GridFields> grid_fields() { return std::nullopt; }
  /// Collective. At each snapshot: writes the simulation's own output of the current state (e.g. a
  /// trajectory frame) into output_dir with file prefix `name`; returns the bytes written (0: none).
  virtual double write_snapshot(const Clock&, const std::string& /*output_dir*/, const std::string& /*name*/) {
    return 0.0;
  }
  /// Collective, once, after initialize() and before the first write_snapshot(): whether that output may be
  /// written by a background thread while the run steps on (the run loop's choice, run.background_output).
  /// A simulation that also gives grid_fields() must not (the grid writer's HDF5 calls would overlap).
  virtual void set_background_output(bool /*on*/) {}
  /// Collective. Waits for the output of write_snapshot() still being written and completes its index
  /// files (e.g. a trajectory's XDMF sidecar): before a checkpoint, since no two HDF5 calls may run at
  /// once, and at the end. Rethrows the error of output written in the background.
  virtual void finish_output() {}
  /// Waits for the output of write_snapshot() still being written and drops its error: on the way out of a
  /// failed run, before anything its files depend on (the output lock, a restart file) is released.
  virtual void drop_output() noexcept {}
  /// Seconds a background thread has spent on the output of write_snapshot() (0 without one).
  virtual double background_output_seconds() { return 0.0; }
  /// Collective. The prognostic grid state a restart needs (its owned cells go into checkpoints; the
  /// physics refills ghosts itself), or nothing.
  virtual std::optional<GridFields> checkpoint_fields() { return std::nullopt; }
  /// Collective. State beyond checkpoint_fields() (particles, thermostats) into / out of a checkpoint;
  /// read_checkpoint runs after initialize() and may throw InputError for a checkpoint that does not fit.
  virtual void write_checkpoint(CheckpointWriter&) {}
  virtual void read_checkpoint(CheckpointReader&) {}
  /// Collective. Called once after the last step and the final output (e.g. to write a data file).
  virtual void finish(const Clock&) {}

 protected:
  /// The communicator of the simulation's ranks (diagnostics are reduced over it).
  virtual MPI_Comm communicator() const = 0;
  /// Declares the diagnostics columns, once (before the first diagnostics()).
  virtual void declare_diagnostics(DiagnosticsPlan& plan) = 0;
  /// This rank's partial values of the reduced columns (slots of `local`, identities preset).
  virtual void reduce_diagnostics(const Clock& clock, double dt, LocalReductions& local) = 0;
  /// Collective. Records the current diagnostics as the reference of relative-change columns (the value
  /// at time 0: initialize() calls it; a restart keeps it).
  void set_diagnostics_reference();

 private:
  DiagnosticsPlan& plan();
  /// Collective: one fused reduction and the row (with the hidden columns when `hidden`).
  Diagnostics evaluate_diagnostics(const Clock& clock, double dt, bool hidden);
  std::unique_ptr<DiagnosticsPlan> plan_;
};

struct PhysicsEntry {
  std::string name;
  std::string summary;
  std::function<void(OptionRegistry&)> declare_options;
  std::function<std::unique_ptr<Simulation>(const Deck&, MPI_Comm)> create;
  RunEnd end = RunEnd::at_time;
};

class PhysicsRegistry {
 public:
  void add(PhysicsEntry e);
  const PhysicsEntry* find(const std::string& name) const;
  const std::vector<PhysicsEntry>& all() const { return entries_; }
  std::vector<std::string> names() const;
  /// How a run of the physics `name` ends (at_time for a name not registered).
  RunEnd run_end(const std::string& name) const;

 private:
  std::vector<PhysicsEntry> entries_;
};

}  // namespace stratus
