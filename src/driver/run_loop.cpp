// Run loop implementation.
#include "driver/run_loop.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>

#include "core/agree.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "core/timer.hpp"
#include "driver/run_control.hpp"
#include "driver/run_report.hpp"
#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/metrics_file.hpp"
#include "io/output_dir.hpp"
#include "io/space.hpp"

namespace stratus {

namespace {

std::string fmt(double v, int prec = 6) {
  std::ostringstream os;
  os << std::setprecision(prec) << v;
  return os.str();
}

/// The owned cells of a grid state as one (var, k, j, i) block, i fastest (host copy).
std::vector<double> owned_block(const GridFields& f) {
  const auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), f.data);
  const LocalGrid& g = f.grid;
  std::vector<double> out;
  out.reserve(f.vars.size() * static_cast<std::size_t>(g.owned_cells()));
  for (const auto& v : f.vars)
    for (int k = 0; k < g.n[2]; ++k)
      for (int j = 0; j < g.n[1]; ++j)
        for (int i = 0; i < g.n[0]; ++i) out.push_back(h(v.index, k + g.ng[2], j + g.ng[1], i + g.ng[0]));
  return out;
}

void write_checkpoint(Simulation& sim, const Clock& clock, const Deck& deck, const RunParams& rp, MPI_Comm comm,
                      int size, RunControl& control) {
  ScopedPhase phase(Phase::checkpoints);
  const RunControl::CheckpointWindow window(control);
  sim.finish_output();  // no HDF5 call while a snapshot of the simulation's own is in flight
  CheckpointMeta meta;
  meta.physics = rp.physics;
  meta.step = clock.step;
  meta.time = clock.time;
  meta.deck_text = deck.resolved_text();
  meta.nranks = size;
  const std::string path = checkpoint_path(rp.output_dir, rp.name, clock.step);
  try {
    CheckpointWriter w(comm, path, meta);
    if (auto f = sim.checkpoint_fields())
      w.write_grid("fields", static_cast<int>(f->vars.size()), f->grid.global_n, f->grid.offset, f->grid.n,
                   owned_block(*f));
    sim.write_checkpoint(w);
    w.commit(rp.checkpoint_keep);
  } catch (const CollectiveError&) {
    throw;
  } catch (const Error& e) {
    throw Error(e.what() + space_hint(path));
  }
  log::info("wrote checkpoint " + path);
}

/// The checkpoint `restart` names (a path, or "auto": the newest valid one of the run), or "" for "auto"
/// when the run has none yet. InputError when "auto" finds only invalid ones.
std::string resolve_restart(const RunParams& rp, MPI_Comm comm, const std::string& restart) {
  std::string path = restart;
  if (restart == "auto") {
    path = newest_checkpoint(comm, rp.output_dir, rp.name);
    if (path.empty()) {
      int rank = 0, any = 0;
      MPI_Comm_rank(comm, &rank);
      if (rank == 0) {
        std::error_code ec;
        const std::string prefix = rp.name + "_chk_";
        for (const auto& e : std::filesystem::directory_iterator(rp.output_dir, ec)) {
          const std::string f = e.path().filename().string();
          if (f.rfind(prefix, 0) == 0 && f.size() > 3 && f.compare(f.size() - 3, 3, ".h5") == 0) any = 1;
        }
      }
      MPI_Bcast(&any, 1, MPI_INT, 0, comm);
      if (any)
        throw InputError("--restart auto: no valid checkpoint of run '" + rp.name + "' in '" + rp.output_dir +
                         "' (every " + rp.name + "_chk_*.h5 there fails validation)");
      log::info("--restart auto: no checkpoint of run '" + rp.name + "' in '" + rp.output_dir +
                "' yet; starting from the beginning");
    }
  }
  return path;
}

/// InputError naming every key that alters the physics and differs between the deck and the one stored
/// in the checkpoint `path` (what may change on a restart is marked in the key's declaration).
void check_deck_unchanged(const Deck& deck, const CheckpointReader& r, const std::string& path) {
  const auto changes = deck.physics_changes(r.meta().deck_text, "the deck stored in " + path);
  if (changes.empty()) return;
  std::ostringstream os;
  os << "restart from '" << path << "': the deck changes " << changes.size()
     << (changes.size() == 1 ? " key that alters" : " keys that alter") << " the physics of the run: ";
  for (std::size_t i = 0; i < changes.size(); ++i)
    os << (i ? "; " : "") << "'" << changes[i].key << "' = '" << changes[i].value << "' (the checkpoint has '"
       << changes[i].other << "')";
  os << ". Restore " << (changes.size() == 1 ? "it" : "them")
     << ", or start a new run (another run.name or run.output_dir). May change on a restart: the end "
        "(run.t_end, run.max_steps), output and checkpoint cadence, wall-time and decomposition keys";
  throw InputError(os.str());
}

/// Restores the state and the clock from checkpoint reader `r` into sim (initialised).
void restore(Simulation& sim, Clock& clock, CheckpointReader& r, const std::string& path) {
  clock.step = r.meta().step;
  clock.time = r.meta().time;
  if (auto f = sim.checkpoint_fields()) {
    const int nvar = static_cast<int>(f->vars.size());
    const std::vector<double> block = r.read_grid("fields", nvar, f->grid.global_n, f->grid.offset, f->grid.n);
    auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), f->data);
    const LocalGrid& g = f->grid;
    std::size_t p = 0;
    for (const auto& v : f->vars)
      for (int k = 0; k < g.n[2]; ++k)
        for (int j = 0; j < g.n[1]; ++j)
          for (int i = 0; i < g.n[0]; ++i) h(v.index, k + g.ng[2], j + g.ng[1], i + g.ng[0]) = block[p++];
    Kokkos::deep_copy(f->data, h);
  }
  sim.read_checkpoint(r);
  log::info("restarted from " + path + " at step " + std::to_string(r.meta().step) + ", t = " + fmt(r.meta().time) +
            " " + sim.time_unit() + " (written on " + std::to_string(r.meta().nranks) + " rank(s))");
}

std::string done_path(const RunParams& rp) { return rp.output_dir + "/" + rp.name + ".done"; }

/// Whether a run at (step, time) has reached the end the deck sets.
bool reaches_end(const RunParams& rp, long step, double time) {
  return (rp.max_steps > 0 && step >= rp.max_steps) || time >= rp.t_end - 1e-12 * rp.t_end;
}

/// The completion marker of the run, if there is one: (step, time). Collective; InputError naming the
/// file when it cannot be read.
std::optional<std::pair<long, double>> read_completion(MPI_Comm comm, const RunParams& rp) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  double v[3] = {0.0, 0.0, 0.0};  // found, step, time
  std::string err;
  if (rank == 0) {
    std::ifstream in(done_path(rp));
    if (in) {
      std::ostringstream text;
      text << in.rdbuf();
      try {
        const JsonValue j = parse_json(text.str(), done_path(rp));
        v[1] = j.at("step").as_number();
        v[2] = j.at("time").as_number();
        v[0] = 1.0;
      } catch (const Error& e) {
        err = std::string("the completion marker ") + done_path(rp) + " is damaged (" + e.what() +
              "): remove it to continue the run from its newest checkpoint";
      }
    }
  }
  int bad = err.empty() ? 0 : 1;
  STRATUS_MPI_CHECK(MPI_Bcast(&bad, 1, MPI_INT, 0, comm));
  if (bad) throw InputError(bcast_string(comm, err));
  STRATUS_MPI_CHECK(MPI_Bcast(v, 3, MPI_DOUBLE, 0, comm));
  if (v[0] == 0.0) return std::nullopt;
  return std::make_pair(static_cast<long>(v[1]), v[2]);
}

/// The line that says a complete run has nothing to do (`unit`: the time unit, when known).
std::string complete_text(const RunParams& rp, const RestartPlan& plan, const std::string& unit) {
  return "run '" + rp.name + "' in '" + rp.output_dir + "' is complete at step " + std::to_string(plan.completed_step) +
         ", t = " + fmt(plan.completed_time) + (unit.empty() ? "" : " " + unit) + " (" + rp.name +
         ".done): --restart auto has nothing to do";
}

void write_completion(const RunParams& rp, const Clock& clock) {
  JsonWriter w;
  w.begin_object().key("schema").value("stratus-run-complete").key("step").value(clock.step);
  w.key("time").value(clock.time).key("completed_at").value(log::utc_timestamp()).end_object();
  write_file_atomically(done_path(rp), w.str() + "\n");
}

}  // namespace

RestartPlan plan_restart(const Deck& deck, const RunParams& rp, MPI_Comm comm, const std::string& restart) {
  RestartPlan plan;
  if (restart.empty()) return plan;
  if (restart == "auto") {
    if (const auto done = read_completion(comm, rp)) {
      plan.completed_step = done->first;
      plan.completed_time = done->second;
      if (reaches_end(rp, done->first, done->second)) {
        plan.complete = true;
        return plan;
      }
    }
  }
  plan.checkpoint = resolve_restart(rp, comm, restart);
  if (plan.checkpoint.empty()) {
    if (plan.completed_step >= 0)
      throw InputError("run '" + rp.name + "' in '" + rp.output_dir + "' is complete at step " +
                       std::to_string(plan.completed_step) +
                       " and the deck now ends later, but there is no checkpoint " +
                       "to continue from (set run.checkpoint_every to keep one at the end); start a new run instead");
    return plan;
  }
  plan.reader = std::make_shared<CheckpointReader>(comm, plan.checkpoint, rp.physics);
  check_deck_unchanged(deck, *plan.reader, plan.checkpoint);
  return plan;
}

void validate_restart(const Deck& deck, const RunParams& rp, MPI_Comm comm, const std::string& restart) {
  const RestartPlan plan = plan_restart(deck, rp, comm, restart);
  if (plan.complete) {
    log::info(complete_text(rp, plan, ""));
    return;
  }
  if (plan.checkpoint.empty()) return;
  const CheckpointReader& r = *plan.reader;
  log::info("restart file " + plan.checkpoint + ": step " + std::to_string(r.meta().step) + ", t = " +
            fmt(r.meta().time) + ", written on " + std::to_string(r.meta().nranks) + " rank(s), deck unchanged: OK");
}

RunStatus run_simulation(Simulation& sim, const Deck& deck, const RunParams& rp, MPI_Comm comm,
                         const RestartPlan& plan) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (plan.complete) {
    log::info(complete_text(rp, plan, sim.time_unit()));
    return RunStatus::completed;
  }
  Phases::reset(Phase::compute);

  // The clock is the run loop's: the physics reads it, a checkpoint restores it.
  Clock clock;
  long resume_step = -1;
  {
    ScopedPhase phase(Phase::initialize);
    sim.initialize();
    if (plan.reader) {
      restore(sim, clock, *plan.reader, plan.checkpoint);
      resume_step = clock.step;
    }
  }
  const double start = MPI_Wtime();
  RunControl control(comm, walltime_deadline(comm, rp.max_walltime_s, start), rp.walltime_margin, rp.stop_grace);

  // Output starts here, after the deck, the set-up and a restart file are known to be good: first the
  // lock on the output directory, so that no other run of this name writes there at the same time; then
  // a fresh start moves the files of an earlier run of the same name aside, and a continued run is no
  // longer complete.
  const OutputLock lock(comm, rp.output_dir, rp.name);
  if (resume_step < 0) {
    move_aside_earlier_run(comm, rp.output_dir, rp.name);
  } else if (rank == 0) {
    std::error_code ec;
    std::filesystem::remove(done_path(rp), ec);
  }
  std::vector<std::string> inputs = sim.input_files();
  if (deck.source().rfind('<', 0) != 0) inputs.insert(inputs.begin(), deck.source());
  if (!plan.checkpoint.empty()) inputs.push_back(plan.checkpoint);
  RunReport report(comm, rp, deck, sim, inputs, resume_step >= 0);
  RunProgress progress;
  progress.step0 = progress.step = clock.step;
  progress.time0 = progress.time = clock.time;
  progress.started = start;

  // Snapshots by a background thread where a core is free for it (run.background_output).
  const bool background = rp.background_output == "on" || (rp.background_output == "auto" && node_has_spare_core());
  sim.set_background_output(background);
  std::unique_ptr<GridSnapshotWriter> writer;
  Provenance prov{rp.physics, deck.text(), deck.resolved_text(), sim.length_unit(), sim.time_unit()};
  double own_bytes = 0.0, own_seconds = 0.0;  // the simulation's own snapshot output (trajectories)
  double first_bytes = 0.0, first_seconds = 0.0;  // its first snapshot, which also creates its files
  auto snapshot = [&]() {
    ScopedPhase phase(Phase::snapshots);
    // No other HDF5 call while a grid snapshot is in flight; the writer would wait for it next anyway.
    if (writer) writer->finish();
    const double t0 = MPI_Wtime();
    double bytes = 0.0;
    try {
      bytes = sim.write_snapshot(clock, rp.output_dir, rp.name);
    } catch (const CollectiveError&) {
      throw;
    } catch (const Error& e) {
      throw Error(e.what() + space_hint(rp.output_dir + "/" + rp.name));
    }
    const double seconds = MPI_Wtime() - t0;
    if (own_bytes == 0.0 && bytes > 0.0) {
      first_bytes = bytes;
      first_seconds = seconds;
    }
    own_bytes += bytes;
    own_seconds += seconds;
    auto fields = sim.grid_fields();
    if (!fields) return;
    if (!writer) {
      writer = std::make_unique<GridSnapshotWriter>(*fields->decomp, fields->grid, rp.output_dir, rp.name, prov);
      writer->set_compression(rp.compression);
      writer->set_background(background);
      if (resume_step >= 0) writer->resume_before(resume_step);
    }
    // A held field is not recomputed before the next snapshot, which waits for this one first (above).
    const std::string path = writer->write(fields->data, fields->vars, clock.step, clock.time,
                                           fields->held ? FieldHold::until_finish : FieldHold::call);
    log::debug("wrote " + path);
  };
  // Every snapshot in place and in the series file: before a checkpoint (HDF5 calls are never concurrent),
  // and at the end.
  auto writer_finish = [&]() {
    ScopedPhase phase(Phase::snapshots);
    const double t0 = MPI_Wtime();
    try {
      sim.finish_output();  // the loop's wait for a background frame counts as the loop's time in output
      own_seconds += MPI_Wtime() - t0;
    } catch (const CollectiveError&) {
      throw;
    } catch (const Error& e) {
      throw Error(e.what() + space_hint(rp.output_dir + "/" + rp.name));
    }
    if (writer) writer->flush_series();
  };
  std::unique_ptr<HistoryTable> history;
  auto record = [&](double dt) {
    ScopedPhase phase(Phase::diagnostics);
    Diagnostics d = sim.diagnostics(clock, dt);
    if (!history) {
      std::vector<std::string> cols{"step", "time", "dt"};
      cols.insert(cols.end(), d.names.begin(), d.names.end());
      history = std::make_unique<HistoryTable>(comm, rp.output_dir + "/" + rp.name + "_history.csv", cols, resume_step);
    }
    std::vector<double> row{static_cast<double>(clock.step), clock.time, dt};
    row.insert(row.end(), d.values.begin(), d.values.end());
    history->append(row);
    progress.step = clock.step;
    progress.time = clock.time;
    const auto eta = report.eta_seconds(progress);
    sim.report(clock, d, Simulation::Progress{report.fraction_done(progress), eta ? *eta : std::nan("")});
    return d;
  };
  // A diverging run stops with the step, the reason and (for non-finite values) where, after writing the
  // state it reached so that it can be inspected.
  auto diverged = [&](const std::string& what, bool nonfinite) {
    std::string where = nonfinite ? sim.locate_nonfinite() : std::string();
    snapshot();
    writer_finish();
    throw CollectiveError("the run diverged at step " + std::to_string(clock.step) + ", time " + fmt(clock.time, 10) +
                          " " + sim.time_unit() + ": " + what +
                          (where.empty() ? "" : "; first non-finite value: " + where) +
                          "; the last state is in the final snapshot in " + rp.output_dir);
  };
  auto check_finite = [&](const Diagnostics& d) {
    for (std::size_t i = 0; i < d.values.size(); ++i)
      if (!std::isfinite(d.values[i])) diverged("diagnostic '" + d.names[i] + "' is " + fmt(d.values[i]), true);
    const std::string why = sim.divergence(d);
    if (!why.empty()) diverged(why, false);
  };

  RunStatus status = RunStatus::completed;
  std::string reason;
  const long step0 = clock.step;
  double last_dt = 0.0, loop_start = 0.0, loop_end = 0.0;
  try {
    snapshot();
    // A restarted run continues the table: the row of its first step, if the cadence gave one, is the
    // earlier run's (with the dt that led to it), kept by HistoryTable.
    if (resume_step < 0) check_finite(record(0.0));

    long progress_every = rp.progress_every;
    long last_snapshot = clock.step;
    long last_checkpoint = clock.step;
    double step_start = MPI_Wtime();
    loop_start = step_start;
    progress.started = step_start;
    while (!reaches_end(rp, clock.step, clock.time)) {
      double dt = rp.dt > 0.0 ? rp.dt : sim.stable_dt();
      if (!(dt > 0.0) || !std::isfinite(dt)) diverged("the stable time step is " + fmt(dt), !std::isfinite(dt));
      if (clock.time + dt > rp.t_end) dt = rp.t_end - clock.time;
      if (progress_every == 0) {
        // Steps to the end in time (capped: run.t_end may set no limit), then to max_steps.
        const double est = std::min((rp.t_end - clock.time) / dt, 1e15);
        progress_every = std::max<long>(1, static_cast<long>(est / 20.0));
        if (rp.max_steps > 0)
          progress_every = std::min(progress_every, std::max<long>(1, (rp.max_steps - clock.step) / 20));
      }
      const long next = clock.step + 1;
      sim.will_report(next % rp.history_every == 0 || (rp.max_steps > 0 && next >= rp.max_steps));
      sim.advance(clock, dt);
      check_device_errors(next);
      clock.tick(dt);
      last_dt = dt;
      if (clock.step % rp.history_every == 0) check_finite(record(dt));
      if (rp.snapshot_every > 0 && clock.step % rp.snapshot_every == 0) {
        snapshot();
        last_snapshot = clock.step;
      }
      if (rp.checkpoint_every > 0 && clock.step % rp.checkpoint_every == 0) {
        writer_finish();
        write_checkpoint(sim, clock, deck, rp, comm, size, control);
        last_checkpoint = clock.step;
      }
      progress.step = clock.step;
      progress.time = clock.time;
      if (clock.step % progress_every == 0 && !sim.prints_table())
        log::info("step " + std::to_string(clock.step) + "  t = " + fmt(clock.time) + " " + sim.time_unit() +
                  "  dt = " + fmt(dt) + "  wall " + fmt(MPI_Wtime() - start, 3) + " s" +
                  report.progress_text(progress));
      // Every rank leaves the loop at the same step: a signal, the stop file or the wall-time guard.
      const double now = MPI_Wtime();
      const int why = control.poll(now - step_start);
      step_start = now;
      report.metrics(progress, control.rss_high_water());
      if (why != kStopNone && !reaches_end(rp, clock.step, clock.time)) {
        reason = stop_reason_text(why, control.signal());
        log::info("stopping at step " + std::to_string(clock.step) + " (" + reason +
                  "): writing a checkpoint and the final output; continue with --restart auto");
        status = RunStatus::interrupted;
        break;
      }
    }
    loop_end = MPI_Wtime();
    if (clock.step % rp.history_every != 0) check_finite(record(last_dt));
    if (last_snapshot != clock.step) snapshot();
    writer_finish();
    // A run stopped early always leaves a checkpoint to continue from; a complete one when it keeps them.
    if ((status == RunStatus::interrupted || rp.checkpoint_every > 0) && last_checkpoint != clock.step)
      write_checkpoint(sim, clock, deck, rp, comm, size, control);
    {
      ScopedPhase phase(Phase::finish);
      sim.finish(clock);
      if (status == RunStatus::completed && rank == 0) write_completion(rp, clock);
    }
  } catch (const CollectiveError& e) {
    // Every rank is here: the report records the failure, then it goes on up (after the simulation's own
    // output in flight, which the output lock and a restart file must outlive).
    sim.drop_output();
    progress.step = clock.step;
    progress.time = clock.time;
    report.write(progress, 1, "failed", e.what());
    throw;
  } catch (...) {
    sim.drop_output();
    throw;
  }
  progress.step = clock.step;
  progress.time = clock.time;
  report.metrics(progress, control.rss_high_water(), true);

  const long steps = clock.step - step0;
  const double evolve = loop_end - loop_start;  // the time-step loop, with its diagnostics and output
  std::ostringstream os;
  os << "finished " << steps << " steps to t = " << fmt(clock.time) << " " << sim.time_unit() << " in "
     << fmt(MPI_Wtime() - start, 4) << " s wall on " << size << " rank(s)"
     << (status == RunStatus::interrupted ? " (stopped early: " + reason + ")" : std::string()) << "\n";
  if (steps > 0 && evolve > 0.0)
    os << "throughput: " << fmt(sim.work_per_step() * steps / evolve, 4) << " " << sim.work_unit() << "/s ("
       << fmt(evolve, 4) << " s stepping, output and diagnostics included)\n";
  if (own_bytes > 0.0 && own_seconds > 0.0) {
    // The first snapshot also creates the files (an MD trajectory: the H5MD file and its LAMMPS data file).
    os << "output: " << fmt(own_bytes / 1e6, 4) << " MB of snapshots in " << fmt(own_seconds, 3) << " s ("
       << fmt(own_bytes / 1e6 / own_seconds, 4) << " MB/s) to " << rp.output_dir;
    const double rest = own_bytes - first_bytes, rest_seconds = own_seconds - first_seconds;
    if (rest > 0.0 && rest_seconds > 0.0)
      os << "; the first " << fmt(first_seconds, 3) << " s, the others " << fmt(rest / 1e6, 4) << " MB in "
         << fmt(rest_seconds, 3) << " s (" << fmt(rest / 1e6 / rest_seconds, 4) << " MB/s)";
    if (const double busy = sim.background_output_seconds(); busy > 0.0)
      os << "; written by a background thread in " << fmt(busy, 3) << " s";
    os << "\n";
  }
  if (writer && writer->seconds() > 0.0)
    os << "output: " << fmt(writer->bytes_written() / 1e6, 4) << " MB of fields in " << fmt(writer->seconds(), 3)
       << " s (" << fmt(writer->bytes_written() / 1e6 / writer->seconds(), 4) << " MB/s) to " << rp.output_dir
       << (writer->background() ? "; written by a background thread in " + fmt(writer->background_seconds(), 3) + " s"
                                : std::string())
       << "\n";
  const double report_t0 = MPI_Wtime();
  os << report.write(progress, static_cast<int>(status), reason, "");
  log::info(os.str());
  log::debug("run report written in " + fmt(MPI_Wtime() - report_t0, 3) + " s");
  return status;
}

}  // namespace stratus
