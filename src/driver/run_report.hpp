// What a run cost and where its time went: NAME_report.json (schema in docs/batch.md, "schema_version"
// 1) and a short table at the end of every invocation (complete, stopped early, or failed after start-up),
// the Prometheus metrics file while it runs (run.metrics_file), and the ETA and projected cost of the
// progress line. A run continued from a checkpoint appends a segment to the report of the earlier ones,
// so the report of a run requeued three times lists all of its segments and their node-hours.
#pragma once
#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/timer.hpp"
#include "driver/run_params.hpp"
#include "driver/simulation.hpp"
#include "input/deck.hpp"

namespace stratus {

class GpuTelemetry;

/// Where a run stands, for the progress line, the metrics file and the report.
struct RunProgress {
  long step0 = 0;      // step of this invocation's start
  double time0 = 0.0;  // its simulated time
  long step = 0;
  double time = 0.0;
  double started = 0.0;  // MPI_Wtime of this invocation's first step
};

class RunReport {
 public:
  /// Collective. `inputs` are the files the run read (deck, data files, restart file), hashed for the
  /// report's provenance; `resumed`: continuing an earlier segment (whose report is read back, rank 0).
  RunReport(MPI_Comm comm, const RunParams& rp, const Deck& deck, const Simulation& sim,
            const std::vector<std::string>& inputs, bool resumed);
  ~RunReport();
  RunReport(const RunReport&) = delete;
  RunReport& operator=(const RunReport&) = delete;

  /// " 45%  ETA 1m20s  cost 0.31 (projected 0.52)" for the progress line (rank 0; empty parts omitted).
  std::string progress_text(const RunProgress& p) const;
  /// Rank 0: rewrites run.metrics_file when run.metrics_every seconds have passed (or `force`).
  /// `rss_max` is the largest host memory high water over the ranks.
  void metrics(const RunProgress& p, double rss_max, bool force = false);
  /// Collective. Writes NAME_report.json (atomically) and returns the summary table (valid on rank 0).
  /// `exit_code` 0 complete, 3 stopped early (`reason`), 1 failed (`error`).
  std::string write(const RunProgress& p, int exit_code, const std::string& reason, const std::string& error);

  /// The fraction of the run done (0..1) and the estimated seconds to its end (none before an estimate).
  double fraction_done(const RunProgress& p) const;
  std::optional<double> eta_seconds(const RunProgress& p) const;

 private:

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1, nodes_ = 1, gpus_ = 0;
  RunParams rp_;
  std::string physics_, work_unit_, time_unit_, deck_source_, deck_sha_, job_id_;
  std::vector<std::pair<std::string, std::string>> history_units_;  // the history table's columns
  double work_per_step_ = 0.0, state_bytes_ = 0.0, price_ = 0.0, last_metrics_ = -1e300;
  double earlier_wall_s_ = 0.0, earlier_node_hours_ = 0.0;
  std::vector<std::pair<std::string, std::string>> inputs_;  // path, sha256
  std::vector<JsonValue> earlier_segments_;                  // of the earlier report (rank 0)
  std::string started_at_;
  std::unique_ptr<GpuTelemetry> gpu_;
};

}  // namespace stratus
