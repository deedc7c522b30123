// Run loop implementation.
#include "driver/run_loop.hpp"

#include <cmath>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <iomanip>
#include <memory>
#include <sstream>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"
#include "io/checkpoint.hpp"
#include "io/output_dir.hpp"
#include "io/space.hpp"

namespace stratus {

namespace {
volatile std::sig_atomic_t g_stop_signal = 0;
volatile std::sig_atomic_t g_stop_grace = 0;  // seconds; 0: no limit

/// write(2) of a NUL-terminated message: async-signal-safe.
void signal_safe_message(const char* msg) {
  std::size_t n = 0;
  while (msg[n] != '\0') ++n;
  while (n > 0) {
    const ssize_t w = ::write(STDERR_FILENO, msg, n);
    if (w <= 0) return;
    msg += w;
    n -= static_cast<std::size_t>(w);
  }
}

// The first stop signal asks the run loop to stop at the next step (writing the final output); it also
// arms an alarm, because a rank stuck in I/O or communication would never get there. A second stop
// signal ends the process at once.
extern "C" void on_stop_signal(int sig) {
  if (g_stop_signal != 0) {
    signal_safe_message("stratus: error: a second stop signal: exiting at once, without final output\n");
    ::_exit(128 + sig);
  }
  g_stop_signal = sig;
  if (g_stop_grace > 0) ::alarm(static_cast<unsigned>(g_stop_grace));
}
extern "C" void on_stop_alarm(int) {
  signal_safe_message(
      "stratus: error: the run did not reach a safe point within run.stop_grace seconds of the stop signal "
      "(stuck in I/O or communication); exiting without final output\n");
  ::_exit(1);
}

void install_stop_handlers(long grace) {
  g_stop_signal = 0;
  g_stop_grace = static_cast<std::sig_atomic_t>(grace);
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGUSR1, on_stop_signal);
  std::signal(SIGALRM, on_stop_alarm);
}

void remove_stop_handlers() {
  ::alarm(0);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGUSR1, SIG_DFL);
  std::signal(SIGALRM, SIG_DFL);
}

/// Removes the stop handlers when a run ends, however it ends.
struct StopHandlers {
  explicit StopHandlers(long grace) { install_stop_handlers(grace); }
  ~StopHandlers() { remove_stop_handlers(); }
  StopHandlers(const StopHandlers&) = delete;
  StopHandlers& operator=(const StopHandlers&) = delete;
};

std::string fmt(double v, int prec = 6) {
  std::ostringstream os;
  os << std::setprecision(prec) << v;
  return os.str();
}
}  // namespace



namespace {

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
                      int size) {
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

/// Restores sim (initialised) from a checkpoint; returns the step it continues from, or -1 when
/// `restart` is "auto" and the run has no checkpoint at all yet (a fresh start, as in a job script that
/// always passes --restart auto). Checkpoint files that all fail validation are an InputError.
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

/// Restores the state and the clock from the checkpoint `restart` names; the step restored, or -1 when
/// there is none to restore ("auto" before the first checkpoint).
long restore(Simulation& sim, Clock& clock, const RunParams& rp, MPI_Comm comm, const std::string& restart) {
  const std::string path = resolve_restart(rp, comm, restart);
  if (path.empty()) return -1;
  CheckpointReader r(comm, path, rp.physics);
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
  return r.meta().step;
}

}  // namespace

void validate_restart(const RunParams& rp, MPI_Comm comm, const std::string& restart) {
  const std::string path = resolve_restart(rp, comm, restart);
  if (path.empty()) return;
  const CheckpointReader r(comm, path, rp.physics);
  log::info("restart file " + path + ": step " + std::to_string(r.meta().step) + ", t = " + fmt(r.meta().time) +
            ", written on " + std::to_string(r.meta().nranks) + " rank(s): OK");
}

RunStatus run_simulation(Simulation& sim, const Deck& deck, const RunParams& rp, MPI_Comm comm,
                         const std::string& restart) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  Timers timers;
  const double wall0 = MPI_Wtime();

  // The clock is the run loop's: the physics reads it, a checkpoint restores it.
  Clock clock;
  timers.start("initialize");
  sim.initialize();
  const long resume_step = restart.empty() ? -1 : restore(sim, clock, rp, comm, restart);
  timers.stop("initialize");

  StopHandlers stop_handlers(rp.stop_grace);

  // Output starts here, after the deck, the set-up and a restart file are known to be good: first the
  // lock on the output directory, so that no other run of this name writes there at the same time.
  const OutputLock lock(comm, rp.output_dir, rp.name);
  std::unique_ptr<GridSnapshotWriter> writer;
  Provenance prov{rp.physics, deck.text(), deck.resolved_text(), sim.length_unit(), sim.time_unit()};
  double own_bytes = 0.0, own_seconds = 0.0;  // the simulation's own snapshot output (trajectories)
  auto snapshot = [&]() {
    ScopedTimer t(timers, "output");
    const double t0 = MPI_Wtime();
    try {
      own_bytes += sim.write_snapshot(clock, rp.output_dir, rp.name);
    } catch (const CollectiveError&) {
      throw;
    } catch (const Error& e) {
      throw Error(e.what() + space_hint(rp.output_dir + "/" + rp.name));
    }
    own_seconds += MPI_Wtime() - t0;
    auto fields = sim.grid_fields();
    if (!fields) return;
    if (!writer) {
      writer = std::make_unique<GridSnapshotWriter>(*fields->decomp, fields->grid, rp.output_dir, rp.name, prov);
      writer->set_compression(rp.compression);
      if (resume_step >= 0) writer->resume_before(resume_step);
    }
    const std::string path = writer->write(fields->data, fields->vars, clock.step, clock.time);
    log::debug("wrote " + path);
  };
  std::unique_ptr<HistoryTable> history;
  auto record = [&](double dt) {
    ScopedTimer t(timers, "diagnostics");
    Diagnostics d = sim.diagnostics(clock, dt);
    if (!history) {
      std::vector<std::string> cols{"step", "time", "dt"};
      cols.insert(cols.end(), d.names.begin(), d.names.end());
      history = std::make_unique<HistoryTable>(comm, rp.output_dir + "/" + rp.name + "_history.csv", cols, resume_step);
    }
    std::vector<double> row{static_cast<double>(clock.step), clock.time, dt};
    row.insert(row.end(), d.values.begin(), d.values.end());
    history->append(row);
    sim.report(clock, d);
    return d;
  };
  // A diverging run stops with the step, the reason and (for non-finite values) where, after writing the
  // state it reached so that it can be inspected.
  auto diverged = [&](const std::string& what, bool nonfinite) {
    std::string where = nonfinite ? sim.locate_nonfinite() : std::string();
    snapshot();
    throw CollectiveError("the run diverged at step " + std::to_string(clock.step) + ", time " + fmt(clock.time, 10) + " " +
                sim.time_unit() + ": " + what + (where.empty() ? "" : "; first non-finite value: " + where) +
                "; the last state is in the final snapshot in " + rp.output_dir);
  };
  auto check_finite = [&](const Diagnostics& d) {
    for (std::size_t i = 0; i < d.values.size(); ++i)
      if (!std::isfinite(d.values[i])) diverged("diagnostic '" + d.names[i] + "' is " + fmt(d.values[i]), true);
    const std::string why = sim.divergence(d);
    if (!why.empty()) diverged(why, false);
  };

  snapshot();
  check_finite(record(0.0));

  const double eps = 1e-12 * rp.t_end;
  long progress_every = rp.progress_every;
  RunStatus status = RunStatus::completed;
  double last_dt = 0.0;
  long last_snapshot = clock.step;
  long last_checkpoint = clock.step;
  const long step0 = clock.step;
  timers.start("evolve");
  while (clock.time < rp.t_end - eps && (rp.max_steps == 0 || clock.step - step0 < rp.max_steps)) {
    double dt = rp.dt > 0.0 ? rp.dt : sim.stable_dt();
    if (!(dt > 0.0) || !std::isfinite(dt)) diverged("the stable time step is " + fmt(dt), !std::isfinite(dt));
    if (clock.time + dt > rp.t_end) dt = rp.t_end - clock.time;
    if (progress_every == 0) {
      const double est = rp.t_end / dt;
      progress_every = std::max<long>(1, static_cast<long>(est / 20.0));
      if (rp.max_steps > 0) progress_every = std::min(progress_every, std::max<long>(1, rp.max_steps / 20));
    }
    const long next = clock.step + 1;
    sim.will_report(next % rp.history_every == 0 || (rp.max_steps > 0 && next - step0 >= rp.max_steps));
    sim.advance(clock, dt);
    clock.tick(dt);
    last_dt = dt;
    if (clock.step % rp.history_every == 0) check_finite(record(dt));
    if (rp.snapshot_every > 0 && clock.step % rp.snapshot_every == 0) {
      snapshot();
      last_snapshot = clock.step;
    }
    if (rp.checkpoint_every > 0 && clock.step % rp.checkpoint_every == 0) {
      ScopedTimer t(timers, "checkpoint");
      write_checkpoint(sim, clock, deck, rp, comm, size);
      last_checkpoint = clock.step;
    }
    if (clock.step % progress_every == 0) {
      const double el = MPI_Wtime() - wall0;
      log::info("step " + std::to_string(clock.step) + "  t = " + fmt(clock.time) + " " + sim.time_unit() +
                "  dt = " + fmt(dt) + "  wall " + fmt(el, 3) + " s");
    }
    // Agree on a stop request so that every rank leaves the loop at the same step.
    int local = g_stop_signal != 0, any = 0;
    MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) {
      log::info("stop requested by a signal at step " + std::to_string(clock.step) + "; writing final output");
      status = RunStatus::interrupted;
      break;
    }
  }
  timers.stop("evolve");
  if (clock.step % rp.history_every != 0) check_finite(record(last_dt));
  if (last_snapshot != clock.step) snapshot();
  if (rp.checkpoint_every > 0 && last_checkpoint != clock.step) {  // the end, or a stop by a signal
    ScopedTimer t(timers, "checkpoint");
    write_checkpoint(sim, clock, deck, rp, comm, size);
  }
  sim.finish(clock);
  remove_stop_handlers();

  const long steps = clock.step - step0;
  const double evolve = timers.seconds("evolve");
  const std::string report = timers.report(comm);
  std::ostringstream os;
  os << "finished " << steps << " steps to t = " << fmt(clock.time) << " " << sim.time_unit() << " in "
     << fmt(MPI_Wtime() - wall0, 4) << " s wall on " << size << " rank(s)\n";
  if (steps > 0 && evolve > 0.0)
    os << "throughput: " << fmt(sim.work_per_step() * steps / evolve, 4) << " " << sim.work_unit() << "/s ("
       << fmt(evolve, 4) << " s stepping, output and diagnostics included)\n";
  if (own_bytes > 0.0 && own_seconds > 0.0)
    os << "output: " << fmt(own_bytes / 1e6, 4) << " MB of snapshots in " << fmt(own_seconds, 3) << " s ("
       << fmt(own_bytes / 1e6 / own_seconds, 4) << " MB/s) to " << rp.output_dir << "\n";
  if (writer && writer->seconds() > 0.0)
    os << "output: " << fmt(writer->bytes_written() / 1e6, 4) << " MB of fields in " << fmt(writer->seconds(), 3)
       << " s (" << fmt(writer->bytes_written() / 1e6 / writer->seconds(), 4) << " MB/s) to " << rp.output_dir << "\n";
  os << report;
  log::info(os.str());
  return status;
}

}  // namespace stratus
