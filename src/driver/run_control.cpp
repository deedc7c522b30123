// RunControl: stop signals, the stop file and the wall-time guard (driver/run_control.hpp).
#include "driver/run_control.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "core/batch_env.hpp"
#include "core/error.hpp"
#include "core/host_memory.hpp"
#include "core/log.hpp"

namespace stratus {

namespace {
volatile std::sig_atomic_t g_signals = 0;        // stop signals received
volatile std::sig_atomic_t g_first_signal = 0;   // the first of them
volatile std::sig_atomic_t g_in_checkpoint = 0;  // a checkpoint is being written
volatile std::sig_atomic_t g_grace = 0;          // seconds; 0: no limit
volatile std::sig_atomic_t g_first_ms = 0;       // CLOCK_MONOTONIC of the first signal [ms, wrapping]

/// Milliseconds of CLOCK_MONOTONIC (clock_gettime is async-signal-safe), wrapped into a sig_atomic_t.
std::sig_atomic_t monotonic_ms() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::sig_atomic_t>((static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000) & 0x3fffffff);
}
/// A scheduler that ends a job sends SIGTERM to every process of it, and mpiexec passes its own copy on to
/// the ranks: one request arrives twice. A SIGTERM this soon after the first counts once.
constexpr int kSameRequestMs = 3000;

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

// The first stop signal asks the run loop to stop at the next step (writing a checkpoint and the final
// output) and arms an alarm, because a rank stuck in I/O or communication would never get there. A second
// one ends the process at once, unless a checkpoint is being written: then that write completes first
// (a third signal does not wait). A SIGTERM repeated within 3 s is the same request delivered twice.
extern "C" void on_stop_signal(int sig) {
  if (g_signals > 0 && sig == SIGTERM && g_first_signal == SIGTERM) {
    const int since = (monotonic_ms() - g_first_ms) & 0x3fffffff;
    if (since < kSameRequestMs) {
      signal_safe_message(
          "stratus: warning: SIGTERM again within 3 s: the same stop request (from the scheduler and "
          "from mpiexec)\n");
      return;
    }
  }
  const int n = g_signals + 1;
  g_signals = n;
  if (n == 1) {
    g_first_signal = sig;
    g_first_ms = monotonic_ms();
    if (g_grace > 0) ::alarm(static_cast<unsigned>(g_grace));
    return;
  }
  if (n == 2 && g_in_checkpoint != 0) {
    signal_safe_message(
        "stratus: warning: a second stop signal while a checkpoint is being written: it completes first "
        "(a third signal exits at once)\n");
    return;
  }
  signal_safe_message("stratus: error: another stop signal: exiting at once, without final output\n");
  ::_exit(128 + sig);
}
extern "C" void on_stop_alarm(int) {
  signal_safe_message(
      "stratus: error: the run did not reach a safe point within run.stop_grace seconds of the stop signal "
      "(stuck in I/O or communication); exiting without final output\n");
  ::_exit(1);
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGUSR1:
      return "SIGUSR1";
    default:
      return "a signal";
  }
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}
}  // namespace

std::string stop_reason_text(int reasons, int signal) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : " and ") + s; };
  if (reasons & kStopSignal) add(std::string("signal ") + signal_name(signal));
  if (reasons & kStopFile) add("the stop file (STRATUS_STOP_FILE)");
  if (reasons & kStopWalltime) add("the wall-time limit");
  return out.empty() ? "no reason" : out;
}

RunControl::RunControl(MPI_Comm comm, std::optional<double> deadline, double margin, long grace)
    : comm_(comm), deadline_(deadline), margin_(margin) {
  MPI_Comm_rank(comm, &rank_);
  if (const char* f = std::getenv("STRATUS_STOP_FILE")) stop_file_ = f;
  g_signals = 0;
  g_first_signal = 0;
  g_in_checkpoint = 0;
  g_grace = static_cast<std::sig_atomic_t>(grace);
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGUSR1, on_stop_signal);
  std::signal(SIGALRM, on_stop_alarm);
  if (rank_ == 0 && !stop_file_.empty() && file_exists(stop_file_))
    log::warn("the stop file '" + stop_file_ + "' (STRATUS_STOP_FILE) exists already: the run stops after one step");
}

// The stop handlers stay in place: a stop signal during the final output and shutdown is taken as the
// request it is (the run is ending already), and a second one still ends the process at once. Only the
// grace alarm goes.
RunControl::~RunControl() {
  ::alarm(0);
  std::signal(SIGALRM, SIG_DFL);
}

int RunControl::signal() const { return g_first_signal; }

RunControl::CheckpointWindow::CheckpointWindow(RunControl& control) : control_(control), t0_(MPI_Wtime()) {
  g_in_checkpoint = 1;
}

RunControl::CheckpointWindow::~CheckpointWindow() {
  g_in_checkpoint = 0;
  control_.checkpoint_s_ = std::max(control_.checkpoint_s_, MPI_Wtime() - t0_);
}

int RunControl::poll(double step_seconds) {
  const double now = MPI_Wtime();
  // The guard keeps two of the slowest recent steps in hand (decaying, so one slow step is forgotten).
  step_s_ = std::max(step_seconds, 0.95 * step_s_);
  if (now - last_rss_ >= 2.0) {
    rss_local_ = host_rss_high_water_bytes();
    last_rss_ = now;
  }
  // [a signal on any rank, rank 0's file and wall-time verdict, host memory high water]
  double local[3] = {g_signals != 0 ? 1.0 : 0.0, 0.0, rss_local_}, all[3] = {0.0, 0.0, 0.0};
  if (rank_ == 0) {
    int bits = 0;
    if (!stop_file_.empty() && now - last_file_check_ >= 0.1) {
      last_file_check_ = now;
      if (file_exists(stop_file_)) bits |= kStopFile;
    }
    if (deadline_) {
      const double needed = std::max(margin_, 2.0 * checkpoint_s_ + 2.0 * step_s_);
      if (*deadline_ - now <= needed) bits |= kStopWalltime;
    }
    local[1] = bits;
  }
  STRATUS_MPI_CHECK(MPI_Allreduce(local, all, 3, MPI_DOUBLE, MPI_MAX, comm_));
  rss_max_ = all[2];
  return (all[0] > 0.0 ? kStopSignal : 0) | static_cast<int>(all[1]);
}

std::optional<double> walltime_deadline(MPI_Comm comm, double max_walltime, double start) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  double left = -1.0;  // seconds from start; < 0: none
  std::string from;
  if (rank == 0) {
    if (max_walltime > 0.0) {
      left = max_walltime;
      from = "run.max_walltime";
    } else if (slurm_job().in_slurm) {
      if (const auto s = slurm_seconds_left()) {
        left = std::max(0.0, *s) + (MPI_Wtime() - start);  // from `start`
        from = "the Slurm job's time limit";
      }
    }
  }
  STRATUS_MPI_CHECK(MPI_Bcast(&left, 1, MPI_DOUBLE, 0, comm));
  if (left < 0.0) return std::nullopt;
  if (rank == 0)
    log::info("wall-time guard: " + std::to_string(std::lround(start + left - MPI_Wtime())) + " s left (" + from + ")");
  return start + left;
}

}  // namespace stratus
