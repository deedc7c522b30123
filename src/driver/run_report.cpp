// RunReport: the run report, the metrics file and the progress line's ETA and cost (driver/run_report.hpp).
#include "driver/run_report.hpp"

#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <tuple>

#include "core/agree.hpp"
#include "core/batch_env.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/gpu_telemetry.hpp"
#include "core/host_memory.hpp"
#include "core/json.hpp"
#include "core/log.hpp"
#include "core/sha256.hpp"
#include "io/atomic_file.hpp"
#include "io/metrics_file.hpp"
#include "stratus/version.hpp"

namespace stratus {

namespace {

constexpr int kSchemaVersion = 1;

std::string report_path(const RunParams& rp) { return rp.output_dir + "/" + rp.name + "_report.json"; }

std::string fmt(double v, int prec = 3) {
  std::ostringstream os;
  os << std::setprecision(prec) << v;
  return os.str();
}

std::string duration_text(double s) {
  if (!(s >= 0.0) || !std::isfinite(s)) return "?";
  const long t = std::lround(s);
  std::ostringstream os;
  if (t >= 86400)
    os << t / 86400 << "d" << (t % 86400) / 3600 << "h";
  else if (t >= 3600)
    os << t / 3600 << "h" << std::setw(2) << std::setfill('0') << (t % 3600) / 60 << "m";
  else if (t >= 60)
    os << t / 60 << "m" << std::setw(2) << std::setfill('0') << t % 60 << "s";
  else
    os << t << "s";
  return os.str();
}

/// Nodes of comm (the ranks that share memory count once), and whether this rank is its node's first.
std::pair<int, bool> count_nodes(MPI_Comm comm) {
  MPI_Comm node;
  STRATUS_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  int first = local == 0 ? 1 : 0, nodes = 0;
  STRATUS_MPI_CHECK(MPI_Allreduce(&first, &nodes, 1, MPI_INT, MPI_SUM, comm));
  return {nodes, first == 1};
}

std::string host_name() {
  char host[256] = "unknown";
  ::gethostname(host, sizeof host - 1);
  return host;
}

void min_mean_max(JsonWriter& w, const std::string& name, double lo, double mean, double hi) {
  w.key(name).begin_object().key("min").value(lo).key("mean").value(mean).key("max").value(hi).end_object();
}

// The keys of a segment and the kind of value each holds (docs/run-report.schema.json).
const std::pair<const char*, JsonValue::Type> kSegmentKeys[] = {{"index", JsonValue::Type::number},
                                                                {"start_step", JsonValue::Type::number},
                                                                {"end_step", JsonValue::Type::number},
                                                                {"start_time", JsonValue::Type::number},
                                                                {"end_time", JsonValue::Type::number},
                                                                {"wall_s", JsonValue::Type::number},
                                                                {"nodes", JsonValue::Type::number},
                                                                {"ranks", JsonValue::Type::number},
                                                                {"node_hours", JsonValue::Type::number},
                                                                {"gpu_hours", JsonValue::Type::number},
                                                                {"exit_code", JsonValue::Type::number},
                                                                {"reason", JsonValue::Type::string},
                                                                {"started_at", JsonValue::Type::string},
                                                                {"ended_at", JsonValue::Type::string},
                                                                {"host", JsonValue::Type::string},
                                                                {"slurm_job_id", JsonValue::Type::string},
                                                                {"slurm_restart_count", JsonValue::Type::number}};

// One GPU's statistics travel to rank 0 as doubles and a fixed-size text (host | bus id | name).
constexpr int kGpuDoubles = 11;
constexpr int kGpuText = 192;

}  // namespace

RunReport::RunReport(MPI_Comm comm, const RunParams& rp, const Deck& deck, const Simulation& sim,
                     const std::vector<std::string>& inputs, bool resumed)
    : comm_(comm), rp_(rp) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  bool leader = false;
  std::tie(nodes_, leader) = count_nodes(comm);
  physics_ = rp.physics;
  work_unit_ = sim.work_unit();
  time_unit_ = sim.time_unit();
  history_units_ = {{"time", time_unit_}, {"dt", time_unit_}};
  for (const auto& u : sim.history_units()) history_units_.push_back(u);
  work_per_step_ = sim.work_per_step();
  state_bytes_ = sim.memory_bytes();
  price_ = rp.price_per_node_hour;
  deck_source_ = deck.source();
  job_id_ = slurm_job().job_id;
  started_at_ = log::utc_timestamp();
#ifdef KOKKOS_ENABLE_CUDA
  gpus_ = size_;  // one GPU per rank
#endif
  if (rank_ == 0) {
    deck_sha_ = sha256_hex(deck.text());
    for (const auto& f : inputs) {
      std::string sha;
      try {
        sha = sha256_file(f);
      } catch (const Error&) {
        sha = "";  // read already by the set-up; a file gone since is not this report's concern
      }
      inputs_.emplace_back(f, sha);
    }
    if (resumed) {
      // The earlier segments of this run, from its report (a damaged report only loses that history).
      std::ifstream in(report_path(rp));
      if (in) {
        std::ostringstream text;
        text << in.rdbuf();
        try {
          const JsonValue r = parse_json(text.str(), report_path(rp));
          // Each earlier segment keeps the keys of the schema, a value of the wrong kind as null.
          for (const auto& s : r.at("segments").as_array()) {
            JsonValue::Object seg;
            for (const auto& [k, type] : kSegmentKeys) {
              const JsonValue* v = s.find(k);
              seg.emplace_back(k, v && v->type() == type ? *v : JsonValue());
            }
            earlier_segments_.emplace_back(std::move(seg));
            if (const JsonValue* v = s.find("wall_s"); v && v->is_number()) earlier_wall_s_ += v->as_number();
            if (const JsonValue* v = s.find("node_hours"); v && v->is_number()) earlier_node_hours_ += v->as_number();
          }
        } catch (const Error& e) {
          log::warn(std::string("the earlier run report cannot be read (") + e.what() +
                    "); the new report lists this segment only");
          earlier_segments_.clear();
          earlier_wall_s_ = earlier_node_hours_ = 0.0;
        }
      }
    }
  }
  // GPU telemetry: each rank watches its own GPU in the CUDA build; in a CPU build a node's first rank
  // watches whatever GPUs the node has (none on most CPU nodes: then NVML is simply absent).
  const std::string bus = device_pci_bus_id();
  if (!bus.empty() || leader) {
    gpu_ = std::make_unique<GpuTelemetry>(bus.empty() ? std::vector<std::string>{} : std::vector<std::string>{bus});
    if (gpu_->available()) {
      gpu_->sample_now();
      gpu_->start(std::min(5.0, rp.metrics_every));
    }
  }
}

RunReport::~RunReport() = default;

double RunReport::fraction_done(const RunProgress& p) const {
  double f = 0.0;
  if (rp_.max_steps > 0) f = static_cast<double>(p.step) / static_cast<double>(rp_.max_steps);
  if (rp_.t_end > 0.0 && rp_.t_end < 1e300) f = std::max(f, p.time / rp_.t_end);
  return std::min(1.0, std::max(0.0, f));
}

namespace {
std::string gpu_reason_or(const GpuTelemetry* g) {
  return g ? (g->available() ? std::string("nvml: no samples") : g->unavailable_reason()) : std::string("not watched");
}
}  // namespace

std::optional<double> RunReport::eta_seconds(const RunProgress& p) const {
  const double el = MPI_Wtime() - p.started;
  const double done = fraction_done(p), done0 = [&] {
    RunProgress q = p;
    q.step = p.step0;
    q.time = p.time0;
    return fraction_done(q);
  }();
  if (p.step <= p.step0 || done <= done0 || el <= 0.0) return std::nullopt;
  return (1.0 - done) * el / (done - done0);
}

std::string RunReport::progress_text(const RunProgress& p) const {
  std::ostringstream os;
  os << "  " << std::fixed << std::setprecision(1) << 100.0 * fraction_done(p) << "%";
  const auto eta = eta_seconds(p);
  if (eta) os << "  ETA " << duration_text(*eta);
  if (price_ > 0.0) {
    const double spent = (earlier_node_hours_ + nodes_ * (MPI_Wtime() - p.started) / 3600.0) * price_;
    os << "  cost " << fmt(spent, 3);
    if (eta) os << " (projected " << fmt(spent + nodes_ * *eta / 3600.0 * price_, 3) << ")";
  }
  return os.str();
}

void RunReport::metrics(const RunProgress& p, double rss_max, bool force) {
  if (rank_ != 0 || rp_.metrics_file.empty()) return;
  const double now = MPI_Wtime();
  if (!force && now - last_metrics_ < rp_.metrics_every) return;
  last_metrics_ = now;
  std::vector<std::pair<std::string, std::string>> run{{"run", rp_.name}, {"physics", physics_}};
  if (!job_id_.empty()) run.emplace_back("slurm_job_id", job_id_);
  const double el = now - p.started;
  const double rate = el > 0.0 ? work_per_step_ * static_cast<double>(p.step - p.step0) / el : 0.0;
  std::vector<Metric> m{
      {"stratus_step", "steps taken (the run's step number)", "gauge", run, static_cast<double>(p.step)},
      {"stratus_simulated_time", "simulated time [" + time_unit_ + "]", "gauge", run, p.time},
      {"stratus_progress_ratio", "fraction of the run done", "gauge", run, fraction_done(p)},
      {"stratus_throughput", work_unit_ + " per second in this segment", "gauge", run, rate},
      {"stratus_wall_seconds", "wall time of this segment", "gauge", run, el},
      {"stratus_host_rss_high_water_bytes", "largest host memory high water over the ranks", "gauge", run, rss_max},
      {"stratus_ranks", "MPI ranks", "gauge", run, static_cast<double>(size_)},
      {"stratus_metrics_timestamp_seconds", "when this file was written (Unix time): a stale file means a stopped run",
       "gauge", run, static_cast<double>(std::time(nullptr))},
  };
  if (const auto eta = eta_seconds(p))
    m.push_back({"stratus_eta_seconds", "estimated wall time to the end", "gauge", run, *eta});
  if (price_ > 0.0) {
    const double spent = (earlier_node_hours_ + nodes_ * el / 3600.0) * price_;
    m.push_back({"stratus_cost", "cost so far (node-hours times the node-hour price)", "gauge", run, spent});
  }
  if (gpu_ && gpu_->available()) {
    for (const auto& g : gpu_->stats()) {
      auto labels = run;
      labels.emplace_back("gpu", g.bus_id);
      m.push_back({"stratus_gpu_temperature_celsius", "GPU temperature", "gauge", labels, g.last.temperature_c});
      m.push_back({"stratus_gpu_power_watts", "GPU power draw", "gauge", labels, g.last.power_w});
      m.push_back({"stratus_gpu_utilization_percent", "GPU utilisation", "gauge", labels, g.last.utilization_pct});
      m.push_back({"stratus_gpu_memory_used_bytes", "GPU memory in use", "gauge", labels, g.last.memory_used_bytes});
    }
  }
  try {
    write_file_atomically(rp_.output_dir + "/" + rp_.metrics_file, prometheus_text(m));
  } catch (const Error& e) {
    log::warn(std::string("metrics file not written: ") + e.what());  // monitoring must not stop a run
  }
}

std::string RunReport::write(const RunProgress& p, int exit_code, const std::string& reason, const std::string& error) {
  const std::array<double, kPhases> local = Phases::seconds();
  const PhaseStats ph = reduce_phases(comm_, local);
  double wall = 0.0;  // the slowest rank's: every phase of it, start-up included
  {
    double w = 0.0;
    for (double s : local) w += s;
    STRATUS_MPI_CHECK(MPI_Allreduce(&w, &wall, 1, MPI_DOUBLE, MPI_MAX, comm_));
  }
  double mem_local[2] = {host_rss_high_water_bytes(), device_memory_used_bytes()}, mem[2] = {0.0, 0.0};
  STRATUS_MPI_CHECK(MPI_Allreduce(mem_local, mem, 2, MPI_DOUBLE, MPI_MAX, comm_));
  // Load imbalance: the slowest rank's working time (compute and neighbor builds; waiting shows up in
  // communication) over the mean.
  const double work = local[static_cast<int>(Phase::compute)] + local[static_cast<int>(Phase::neighbor)];
  double work_max = 0.0, work_sum = 0.0;
  STRATUS_MPI_CHECK(MPI_Allreduce(&work, &work_max, 1, MPI_DOUBLE, MPI_MAX, comm_));
  STRATUS_MPI_CHECK(MPI_Allreduce(&work, &work_sum, 1, MPI_DOUBLE, MPI_SUM, comm_));
  const double imbalance = work_sum > 0.0 ? work_max / (work_sum / size_) : 1.0;

  // GPU statistics of every rank that watched some, gathered on rank 0.
  std::vector<double> gd;
  std::string gt;
  if (gpu_ && gpu_->available()) {
    gpu_->sample_now();
    for (const auto& g : gpu_->stats()) {
      const double v[kGpuDoubles] = {static_cast<double>(g.samples),
                                     g.min.temperature_c,
                                     g.mean.temperature_c,
                                     g.max.temperature_c,
                                     g.min.power_w,
                                     g.mean.power_w,
                                     g.max.power_w,
                                     g.mean.utilization_pct,
                                     g.max.utilization_pct,
                                     g.max.memory_used_bytes,
                                     g.max.memory_total_bytes};
      gd.insert(gd.end(), v, v + kGpuDoubles);
      std::string t = host_name() + "|" + g.bus_id + "|" + g.name;
      t.resize(kGpuText, '\0');
      gt += t;
    }
  }
  const int ng = static_cast<int>(gd.size() / kGpuDoubles);
  std::vector<int> counts(static_cast<std::size_t>(size_));
  STRATUS_MPI_CHECK(MPI_Gather(&ng, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_));
  std::vector<int> dcount(counts.size()), tcount(counts.size()), ddisp(counts.size()), tdisp(counts.size());
  int total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    dcount[r] = counts[r] * kGpuDoubles;
    tcount[r] = counts[r] * kGpuText;
    ddisp[r] = total * kGpuDoubles;
    tdisp[r] = total * kGpuText;
    total += counts[r];
  }
  std::vector<double> all_d(static_cast<std::size_t>(std::max(1, total * kGpuDoubles)));
  std::vector<char> all_t(static_cast<std::size_t>(std::max(1, total * kGpuText)));
  STRATUS_MPI_CHECK(MPI_Gatherv(gd.data(), ng * kGpuDoubles, MPI_DOUBLE, all_d.data(), dcount.data(), ddisp.data(),
                                MPI_DOUBLE, 0, comm_));
  STRATUS_MPI_CHECK(
      MPI_Gatherv(gt.data(), ng * kGpuText, MPI_CHAR, all_t.data(), tcount.data(), tdisp.data(), MPI_CHAR, 0, comm_));
  if (rank_ != 0) return {};

  const long steps = p.step - p.step0;
  const double rate = wall > 0.0 ? work_per_step_ * static_cast<double>(steps) / wall : 0.0;
  const double node_hours = nodes_ * wall / 3600.0, gpu_hours = gpus_ * wall / 3600.0;
  const BatchJob job = slurm_job();
  const std::string status = exit_code == 0 ? "complete" : exit_code == 3 ? "stopped" : "failed";
  const std::string ended_at = log::utc_timestamp();

  JsonWriter w;
  w.begin_object();
  w.key("schema").value("stratus-run-report").key("schema_version").value(kSchemaVersion);
  w.key("run").begin_object();
  w.key("name").value(rp_.name).key("output_dir").value(rp_.output_dir).key("physics").value(physics_);
  w.key("status").value(status).key("exit_code").value(exit_code);
  w.key("reason").value(reason).key("error").value(error);
  w.key("started_at").value(started_at_).key("ended_at").value(ended_at);
  w.end_object();

  w.key("progress").begin_object();
  w.key("start_step").value(p.step0).key("end_step").value(p.step).key("steps").value(steps);
  w.key("start_time").value(p.time0).key("end_time").value(p.time).key("time_unit").value(time_unit_);
  w.key("target_end_step").value(rp_.max_steps > 0 ? static_cast<double>(rp_.max_steps) : std::nan(""));
  w.key("target_end_time").value(rp_.t_end).key("fraction_done").value(fraction_done(p));
  w.end_object();
  w.key("history_units").begin_object();  // the units of NAME_history.csv's columns, where known
  for (const auto& [column, unit] : history_units_) w.key(column).value(unit);
  w.end_object();

  w.key("wall_s").value(wall);
  w.key("phases").begin_object();
  for (int i = 0; i < kPhases; ++i)
    min_mean_max(w, phase_name(static_cast<Phase>(i)), ph.min[i], ph.mean[i], ph.max[i]);
  w.end_object();
  w.key("load_imbalance").value(imbalance);

  w.key("throughput").begin_object();
  w.key("unit").value(work_unit_ + "/s").key("per_second").value(rate);
  w.key("per_node_per_second").value(rate / nodes_);
  w.key("per_gpu_per_second").value(gpus_ > 0 ? rate / gpus_ : std::nan(""));
  w.key("work_per_step").value(work_per_step_);
  w.end_object();

  w.key("resources").begin_object();
  w.key("ranks").value(size_).key("nodes").value(nodes_).key("gpus").value(gpus_);
  w.key("threads_per_rank").value(static_cast<int>(Kokkos::DefaultHostExecutionSpace().concurrency()));
  w.key("backend").value(Kokkos::DefaultExecutionSpace::name());
  w.end_object();

  w.key("cost").begin_object();
  w.key("node_hours").value(node_hours).key("gpu_hours").value(gpu_hours);
  w.key("run_node_hours").value(earlier_node_hours_ + node_hours);
  w.key("price_per_node_hour").value(price_ > 0.0 ? price_ : std::nan(""));
  w.key("cost").value(price_ > 0.0 ? node_hours * price_ : std::nan(""));
  w.key("run_cost").value(price_ > 0.0 ? (earlier_node_hours_ + node_hours) * price_ : std::nan(""));
  w.key("includes")
      .value(
          "node-hours of this run's segments (wall time x nodes) only: not queue time, storage, "
          "data transfer or idle nodes");
  w.end_object();

  w.key("memory").begin_object();
  w.key("host_rss_high_water_bytes_max").value(mem[0]);
  w.key("device_memory_used_bytes_max").value(mem[1] >= 0.0 ? mem[1] : std::nan(""));
  w.key("estimated_state_bytes_per_rank").value(state_bytes_);
  w.end_object();

  w.key("gpu_telemetry").value(total > 0 ? std::string("nvml") : gpu_reason_or(gpu_.get()));
  w.key("gpus").begin_array();
  for (int g = 0; g < total; ++g) {
    const double* v = &all_d[static_cast<std::size_t>(g) * kGpuDoubles];
    const std::string t(&all_t[static_cast<std::size_t>(g) * kGpuText], kGpuText);
    std::string fields[3];
    std::istringstream ts(t.substr(0, t.find('\0')));
    for (auto& f : fields) std::getline(ts, f, '|');
    w.begin_object();
    w.key("host").value(fields[0]).key("bus_id").value(fields[1]).key("name").value(fields[2]);
    w.key("samples").value(v[0]);
    min_mean_max(w, "temperature_c", v[1], v[2], v[3]);
    min_mean_max(w, "power_w", v[4], v[5], v[6]);
    w.key("utilization_pct").begin_object().key("mean").value(v[7]).key("max").value(v[8]).end_object();
    w.key("memory_used_bytes_max").value(v[9]).key("memory_total_bytes").value(v[10]);
    w.end_object();
  }
  w.end_array();

  w.key("provenance").begin_object();
  w.key("version").value(kVersion).key("git_hash").value(kGitHash);
  w.key("deck").value(deck_source_).key("deck_sha256").value(deck_sha_);
  w.key("inputs").begin_array();
  for (const auto& [path, sha] : inputs_)
    w.begin_object().key("path").value(path).key("sha256").value(sha).end_object();
  w.end_array();
  w.key("host").value(host_name());
  w.key("slurm");
  if (job.in_slurm) {
    w.begin_object();
    w.key("job_id").value(job.job_id).key("partition").value(job.partition).key("nodelist").value(job.nodelist);
    w.key("cluster").value(job.cluster).key("nodes").value(job.nnodes).key("ntasks").value(job.ntasks);
    w.key("restart_count").value(job.restart_count);
    w.end_object();
  } else {
    w.value(nullptr);
  }
  w.end_object();

  const int earlier = static_cast<int>(earlier_segments_.size());
  w.key("segments_total").value(earlier + 1);
  w.key("run_wall_s").value(earlier_wall_s_ + wall);
  // Every segment of the run: the earlier ones from the earlier report, then this one.
  w.key("segments").begin_array();
  for (const auto& s : earlier_segments_) w.value(s);
  w.begin_object();
  w.key("index").value(earlier).key("start_step").value(p.step0).key("end_step").value(p.step);
  w.key("start_time").value(p.time0).key("end_time").value(p.time).key("wall_s").value(wall);
  w.key("nodes").value(nodes_).key("ranks").value(size_).key("node_hours").value(node_hours);
  w.key("gpu_hours").value(gpu_hours).key("exit_code").value(exit_code).key("reason").value(reason);
  w.key("started_at").value(started_at_).key("ended_at").value(ended_at).key("host").value(host_name());
  w.key("slurm_job_id");
  if (job.in_slurm)
    w.value(job.job_id);
  else
    w.value(nullptr);
  w.key("slurm_restart_count");
  if (job.in_slurm)
    w.value(job.restart_count);
  else
    w.value(nullptr);
  w.end_object().end_array();
  w.end_object();
  try {
    write_file_atomically(report_path(rp_), w.str() + "\n");
  } catch (const Error& e) {
    // After a failure (often the same full disk) the run's own error is the one to read.
    const std::string msg = std::string("run report not written: ") + e.what();
    if (exit_code == 1)
      log::debug(msg);
    else
      log::warn(msg);
  }

  std::ostringstream os;
  os << "run report (" << report_path(rp_) << "):\n";
  os << "  " << status << (reason.empty() ? "" : " (" + reason + ")") << ": " << steps << " steps, step " << p.step0
     << " -> " << p.step << ", " << fmt(wall, 4) << " s wall on " << size_ << " rank(s), " << nodes_ << " node(s)"
     << (gpus_ ? ", " + std::to_string(gpus_) + " GPU(s)" : std::string()) << "\n";
  if (steps > 0 && wall > 0.0)
    os << "  throughput " << fmt(rate, 4) << " " << work_unit_ << "/s (" << fmt(rate / nodes_, 4) << " per node"
       << (gpus_ ? ", " + fmt(rate / gpus_, 4) + " per GPU" : std::string()) << ")\n";
  os << "  " << fmt(node_hours, 3) << " node-hours";
  if (gpus_) os << ", " << fmt(gpu_hours, 3) << " GPU-hours";
  if (earlier)
    os << "; the run's " << earlier + 1 << " segments: " << fmt(earlier_node_hours_ + node_hours, 3) << " node-hours";
  if (price_ > 0.0)
    os << "; cost " << fmt(node_hours * price_, 4) << " (run " << fmt((earlier_node_hours_ + node_hours) * price_, 4)
       << ")";
  os << "\n  load imbalance " << fmt(imbalance, 3) << " (slowest rank's compute over the mean)";
  os << "\n  host memory high water " << log::bytes_text(mem[0]) << " (largest rank)";
  if (mem[1] >= 0.0) os << ", GPU memory in use " << log::bytes_text(mem[1]);
  os << "\n" << phase_table(ph);
  return os.str();
}

}  // namespace stratus
