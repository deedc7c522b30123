// When a run stops early, and how every rank agrees on it: stop signals (SIGTERM, SIGINT, SIGUSR1), a
// stop file named by the launcher (STRATUS_STOP_FILE: no signal has to pass through mpiexec), and the
// wall-time guard (run.max_walltime, or the Slurm job's own end). One small MPI_Allreduce per step carries
// the decision (rank 0's clock decides the wall time, so that every rank stops at the same step) and each
// rank's host memory high water for the run report. Signals during the stop checkpoint cannot cut it:
// a second signal waits for the checkpoint to be committed, a third ends the process at once (the
// previous checkpoint stays valid: checkpoints are renamed into place only when complete).
#pragma once
#include <mpi.h>

#include <optional>
#include <string>

namespace stratus {

/// Why a run stopped early (bit flags; several may come at once).
enum StopReason : int { kStopNone = 0, kStopSignal = 1, kStopFile = 2, kStopWalltime = 4 };
/// "signal SIGTERM", "stop file", "wall-time limit", joined by " and ".
std::string stop_reason_text(int reasons, int signal);

class RunControl {
 public:
  /// Collective. Installs the stop handlers (they stay installed after the destructor, which only cancels
  /// the grace alarm: a signal while the process ends is no reason to die without its exit code). `deadline` is the
  /// MPI_Wtime at which the wall time runs out (nullopt: none); `margin` the least time [s] kept in hand before it;
  /// `grace` the seconds from a stop signal to a forced exit (0: none).
  RunControl(MPI_Comm comm, std::optional<double> deadline, double margin, long grace);
  ~RunControl();
  RunControl(const RunControl&) = delete;
  RunControl& operator=(const RunControl&) = delete;

  /// Collective, once per step: the reasons to stop now (0: go on). `step_seconds` is the duration of the
  /// step just taken (the guard keeps two of them in hand).
  int poll(double step_seconds);
  /// The largest host RSS high water over the ranks at the last poll [bytes].
  double rss_high_water() const { return rss_max_; }
  /// The signal that asked for the stop (0: none).
  int signal() const;

  /// Brackets a checkpoint write, however it ends: a second signal inside waits for its end, and its
  /// duration raises the guard's margin.
  class CheckpointWindow {
   public:
    explicit CheckpointWindow(RunControl& control);
    ~CheckpointWindow();
    CheckpointWindow(const CheckpointWindow&) = delete;
    CheckpointWindow& operator=(const CheckpointWindow&) = delete;

   private:
    RunControl& control_;
    double t0_;
  };

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  std::optional<double> deadline_;
  double margin_ = 0.0, checkpoint_s_ = 0.0, step_s_ = 0.0;
  double last_file_check_ = -1e300, last_rss_ = -1e300;
  double rss_local_ = 0.0, rss_max_ = 0.0;
  std::string stop_file_;
};

/// The wall-time deadline of this invocation as an MPI_Wtime (rank 0's, broadcast): `max_walltime` seconds
/// from `start`, or else inside a Slurm job the job's end as Slurm reports it; nullopt when neither. Logs
/// where it comes from. Collective.
std::optional<double> walltime_deadline(MPI_Comm comm, double max_walltime, double start);

}  // namespace stratus
