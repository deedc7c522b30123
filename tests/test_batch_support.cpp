// Unit tests of the batch-run support modules: core/batch_env (durations, squeue's time-left text, the
// Slurm environment, time left from SLURM_JOB_END_TIME or from a stand-in squeue on PATH),
// core/host_memory (the high-water mark follows a 200 MB allocation) and io/metrics_file +
// io/atomic_file (exact exposition text, escaping, bad names, atomic replacement and its failures).
// The JSON, SHA-256 and GPU telemetry tests of the same executable are in test_json.cpp,
// test_sha256.cpp and test_gpu_telemetry.cpp. One rank, a temporary directory, about a second.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/batch_env.hpp"
#include "core/error.hpp"
#include "core/host_memory.hpp"
#include "core/timer.hpp"
#include "io/metrics_file.hpp"
#include "message_matcher.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using stratus::InputError;
using stratus::Metric;

namespace {

using TempDir = test::TempDir;

/// Sets (or, with nullptr, unsets) environment variables for the life of the object and restores them
/// after. Every Slurm variable read by batch_env starts unset, so that the tests behave the same inside
/// a Slurm job.
class Env {
 public:
  Env() {
    for (const char* v :
         {"SLURM_JOB_ID", "SLURM_JOB_PARTITION", "SLURM_JOB_NODELIST", "SLURM_CLUSTER_NAME", "SLURM_JOB_NUM_NODES",
          "SLURM_NNODES", "SLURM_NTASKS", "SLURM_RESTART_COUNT", "SLURM_CPUS_PER_TASK", "SLURM_GPUS_ON_NODE",
          "SLURM_GPUS_PER_NODE", "SLURM_JOB_END_TIME", "PATH"}) {
      const char* old = std::getenv(v);
      saved_[v] = old ? std::make_pair(true, std::string(old)) : std::make_pair(false, std::string());
      if (std::string(v) != "PATH") ::unsetenv(v);
    }
  }
  ~Env() {
    for (const auto& [name, value] : saved_) {
      if (value.first) {
        ::setenv(name.c_str(), value.second.c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  void set(const char* name, const std::string& value) const { ::setenv(name, value.c_str(), 1); }

 private:
  std::map<std::string, std::pair<bool, std::string>> saved_;
};


std::string error(const std::function<void()>& f) {
  try {
    f();
  } catch (const stratus::Error& e) {
    return e.what();
  }
  FAIL("expected a stratus::Error");
  return {};
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> n;
  for (const auto& e : fs::directory_iterator(dir)) n.push_back(e.path().filename().string());
  std::sort(n.begin(), n.end());
  return n;
}

/// An executable `squeue` in `dir` that runs the shell text `body`.
void fake_squeue(const fs::path& dir, const std::string& body) {
  const fs::path p = dir / "squeue";
  std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
  fs::permissions(p, fs::perms::owner_all);
}

}  // namespace

// --- core/batch_env

TEST_CASE("parse_duration reads seconds and clock times", "[batch]") {
  using stratus::parse_duration;
  CHECK(parse_duration("run.max_walltime", "0") == 0);
  CHECK(parse_duration("run.max_walltime", "3600") == 3600);
  CHECK(parse_duration("run.max_walltime", " 90.5 ") == 90.5);
  CHECK(parse_duration("run.max_walltime", "1e3") == 1000);
  CHECK(parse_duration("run.max_walltime", "05:30") == 330);
  CHECK(parse_duration("run.max_walltime", "90:00") == 5400);
  CHECK(parse_duration("run.max_walltime", "01:00:00") == 3600);
  CHECK(parse_duration("run.max_walltime", "48:00:00") == 172800);
  CHECK(parse_duration("run.max_walltime", "2-00:00:01") == 172801);
  for (const std::string bad : {"", " ", "-5", "abc", "1h", "nan", "inf", "1e400", "0x10", "1:60", "1:2:3:4",
                                "12:", ":30", "1-", "1-25:00:00", "-1:00", "1:-1", "1.5:00"}) {
    INFO("value '" << bad << "'");
    CHECK_THAT(input_error([&] { stratus::parse_duration("run.max_walltime", bad); }),
               Contains("key 'run.max_walltime'") && Contains("'" + bad + "'"));
  }
}

TEST_CASE("parse_slurm_time_left reads squeue's %L", "[batch]") {
  using stratus::parse_slurm_time_left;
  CHECK(parse_slurm_time_left("1-02:03:04") == 93784.0);
  CHECK(parse_slurm_time_left("02:03:04") == 7384.0);
  CHECK(parse_slurm_time_left("03:04") == 184.0);
  CHECK(parse_slurm_time_left("  0:00\n") == 0.0);
  CHECK(parse_slurm_time_left("5") == 300.0);
  for (const std::string none : {"UNLIMITED", "NOT_SET", "INVALID", "", "garbage", "1:2:3:4", "1-2-3"}) {
    INFO("text '" << none << "'");
    CHECK_FALSE(parse_slurm_time_left(none).has_value());
  }
}

TEST_CASE("slurm_job reads the Slurm environment", "[batch]") {
  Env env;
  CHECK_FALSE(stratus::slurm_job().in_slurm);
  env.set("SLURM_NTASKS", "4");  // without a job id, nothing is read
  CHECK(stratus::slurm_job().ntasks == 0);

  env.set("SLURM_JOB_ID", "123456");
  env.set("SLURM_JOB_PARTITION", "gpu");
  env.set("SLURM_JOB_NODELIST", "node[01-02]");
  env.set("SLURM_CLUSTER_NAME", "cirrus");
  env.set("SLURM_NNODES", "3");
  env.set("SLURM_RESTART_COUNT", "2");
  env.set("SLURM_CPUS_PER_TASK", "8");
  env.set("SLURM_GPUS_PER_NODE", "h100:4");
  stratus::BatchJob j = stratus::slurm_job();
  CHECK(j.in_slurm);
  CHECK(j.job_id == "123456");
  CHECK(j.partition == "gpu");
  CHECK(j.nodelist == "node[01-02]");
  CHECK(j.cluster == "cirrus");
  CHECK(j.nnodes == 3);  // SLURM_NNODES when SLURM_JOB_NUM_NODES is not set
  CHECK(j.ntasks == 4);
  CHECK(j.restart_count == 2);
  CHECK(j.cpus_per_task == 8);
  CHECK(j.gpus_per_node_hint == 4);

  env.set("SLURM_JOB_NUM_NODES", "2");
  env.set("SLURM_GPUS_ON_NODE", "2");
  j = stratus::slurm_job();
  CHECK(j.nnodes == 2);
  CHECK(j.gpus_per_node_hint == 2);

  for (const std::string bad : {"4x", "-1", "four", "1.5", "99999999999"}) {
    env.set("SLURM_NTASKS", bad);
    CHECK_THAT(input_error([] { stratus::slurm_job(); }), Contains("SLURM_NTASKS") && Contains("'" + bad + "'"));
  }
  env.set("SLURM_NTASKS", "4");
  env.set("SLURM_RESTART_COUNT", "x");
  CHECK_THAT(input_error([] { stratus::slurm_job(); }), Contains("SLURM_RESTART_COUNT"));
}

TEST_CASE("slurm_seconds_left asks the environment, then squeue", "[batch]") {
  Env env;
  TempDir t("stratus_batch_support");
  const fs::path marker = t.path / "squeue_ran";
  fake_squeue(t.path, "touch '" + marker.string() +
                          "'\n[ \"$1 $2 $3 $4 $5\" = \"-h -j 77 -o %L\" ] || exit 3\necho 1-02:03:04");
  env.set("PATH", t.path.string() + ":" + std::getenv("PATH"));
  CHECK_FALSE(stratus::slurm_seconds_left().has_value());  // not in Slurm
  CHECK_FALSE(fs::exists(marker));

  env.set("SLURM_JOB_ID", "77");
  env.set("SLURM_JOB_END_TIME", std::to_string(std::time(nullptr) + 500));
  auto left = stratus::slurm_seconds_left();
  REQUIRE(left.has_value());
  CHECK(*left > 490);
  CHECK(*left <= 501);
  CHECK_FALSE(fs::exists(marker));

  ::unsetenv("SLURM_JOB_END_TIME");
  left = stratus::slurm_seconds_left();
  CHECK(fs::exists(marker));
  REQUIRE(left.has_value());
  CHECK(*left == 93784.0);

  fs::remove(marker);
  env.set("SLURM_JOB_ID", "77; touch /nonexistent/x");  // never reaches a shell
  CHECK_FALSE(stratus::slurm_seconds_left().has_value());
  CHECK_FALSE(fs::exists(marker));

  env.set("SLURM_JOB_ID", "77_3");  // an array task id passes validation; this squeue refuses it
  CHECK_FALSE(stratus::slurm_seconds_left().has_value());
  CHECK(fs::exists(marker));

  env.set("SLURM_JOB_ID", "77");
  fake_squeue(t.path, "echo UNLIMITED");
  CHECK_FALSE(stratus::slurm_seconds_left().has_value());
  fake_squeue(t.path, "echo 'squeue: error: Invalid job id specified' >&2; exit 1");
  CHECK_FALSE(stratus::slurm_seconds_left().has_value());
}

// --- core/host_memory

TEST_CASE("host_rss_high_water_bytes follows a large allocation", "[batch]") {
  const double rss0 = stratus::host_rss_bytes();
  const double hwm0 = stratus::host_rss_high_water_bytes();
  CHECK(rss0 > 0);
  CHECK(hwm0 >= rss0);
  {
    std::vector<char> big(200u << 20, 1);  // every page written
    CHECK(stratus::host_rss_bytes() >= rss0 + 190e6);
    CHECK(big[12345] == 1);
  }
  const double hwm1 = stratus::host_rss_high_water_bytes();
  CHECK(hwm1 >= rss0 + 190e6);
  CHECK(hwm1 >= hwm0);
}

namespace {
// The VmFlags of the mapping of this process that holds address a (/proc/self/smaps), or "".
std::string vm_flags_at(const void* a) {
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool inside = false;
  const auto at = reinterpret_cast<std::uintptr_t>(a);
  while (std::getline(in, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      inside = at >= lo && at < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line.substr(8);
  }
  return {};
}
}  // namespace

TEST_CASE("a HostBuffer of 1 MiB or more lies on 2 MiB boundaries, advised huge pages, and keeps its contents",
          "[batch]") {
  // 1 MiB, the smallest such block (the types of a 256k-atom trajectory frame)
  const stratus::HostBuffer<int> types(std::size_t{1} << 18);
  CHECK(reinterpret_cast<std::uintptr_t>(types.data()) % (std::size_t{2} << 20) == 0);
  stratus::HostBuffer<double> big(std::size_t{1} << 20);  // 8 MiB
  CHECK(reinterpret_cast<std::uintptr_t>(big.data()) % (std::size_t{2} << 20) == 0);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<double>(i);
  big.resize(std::size_t{3} << 20);  // a new block: the contents move
  CHECK(reinterpret_cast<std::uintptr_t>(big.data()) % (std::size_t{2} << 20) == 0);
  CHECK(big[12345] == 12345.0);
  CHECK(big[(std::size_t{1} << 20) - 1] == static_cast<double>((std::size_t{1} << 20) - 1));
  CHECK(big.back() == 0.0);
  // The kernel records the advice on the mapping ("hg" among its VmFlags) where it has huge pages at all.
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(thp, modes);
  if (modes.empty() || modes.find("[never]") != std::string::npos) {
    WARN("no transparent huge pages on this kernel (" << modes << "): the advice is not checked");
  } else {
    const std::string flags = vm_flags_at(big.data() + 1000);
    INFO("VmFlags:" << flags);
    CHECK(flags.find(" hg") != std::string::npos);
  }
  stratus::HostBuffer<int> small(100, 7);  // operator new (not on a 2 MiB boundary but by chance)
  CHECK(small[99] == 7);
  small.resize(std::size_t{2} << 20, 1);  // 8 MiB of ints: grows into a huge-page block
  CHECK(small[99] == 7);
  CHECK(small.back() == 1);
}

// --- io/metrics_file, io/atomic_file

TEST_CASE("prometheus_text writes the exposition format", "[batch][io]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<Metric> m = {
      {"stratus_step", "Current step.", "gauge", {{"run", "g"}}, 1200},
      {"stratus_gpu_temperature_celsius", "GPU temperature.", "gauge", {{"run", "g"}, {"gpu", "0"}}, 61.5},
      {"stratus_steps_total", "Steps taken.", "counter", {}, 1e12},
      {"stratus_gpu_temperature_celsius", "ignored", "gauge", {{"run", "g"}, {"gpu", "1"}}, nan},
      {"stratus:ratio", "Help with \\ and\nnewline.", "gauge", {}, inf},
      {"stratus:ratio2", "", "gauge", {}, -inf},
  };
  CHECK(stratus::prometheus_text(m) ==
        "# HELP stratus_step Current step.\n"
        "# TYPE stratus_step gauge\n"
        "stratus_step{run=\"g\"} 1200\n"
        "# HELP stratus_gpu_temperature_celsius GPU temperature.\n"
        "# TYPE stratus_gpu_temperature_celsius gauge\n"
        "stratus_gpu_temperature_celsius{run=\"g\",gpu=\"0\"} 61.5\n"
        "stratus_gpu_temperature_celsius{run=\"g\",gpu=\"1\"} NaN\n"
        "# HELP stratus_steps_total Steps taken.\n"
        "# TYPE stratus_steps_total counter\n"
        "stratus_steps_total 1000000000000\n"
        "# HELP stratus:ratio Help with \\\\ and\\nnewline.\n"
        "# TYPE stratus:ratio gauge\n"
        "stratus:ratio +Inf\n"
        "# HELP stratus:ratio2 \n"
        "# TYPE stratus:ratio2 gauge\n"
        "stratus:ratio2 -Inf\n");
  CHECK(stratus::prometheus_text({}).empty());
  CHECK(stratus::prometheus_text({{"x", "h", "gauge", {}, 0.1}}) == "# HELP x h\n# TYPE x gauge\nx 0.1\n");
}

TEST_CASE("prometheus_text escapes label values and refuses bad names", "[batch][io]") {
  const Metric m{"m", "h", "gauge", {{"path", "C:\\dir \"x\"\nnext"}}, 1};
  CHECK(stratus::prometheus_text({m}) == "# HELP m h\n# TYPE m gauge\nm{path=\"C:\\\\dir \\\"x\\\"\\nnext\"} 1\n");
  for (const std::string bad : {"", "1abc", "a-b", "a b", "a.b", "é"}) {
    INFO("name '" << bad << "'");
    CHECK_THAT(error([&] { stratus::prometheus_text({{bad, "h", "gauge", {}, 1}}); }), Contains("'" + bad + "'"));
  }
  CHECK_THAT(error([] { stratus::prometheus_text({{"m", "h", "gauge", {{"a:b", "v"}}, 1}}); }), Contains("'a:b'"));
  CHECK_THAT(error([] { stratus::prometheus_text({{"m", "h", "histogram", {}, 1}}); }), Contains("'histogram'"));
  CHECK_THAT(error([] {
               stratus::prometheus_text({{"m", "h", "gauge", {}, 1}, {"m", "h", "counter", {{"a", "b"}}, 1}});
             }),
             Contains("'m'"));
}

TEST_CASE("write_file_atomically replaces a file and leaves nothing else", "[batch][io]") {
  TempDir t("stratus_batch_support");
  const fs::path p = t.path / "run.prom";
  stratus::write_file_atomically(p.string(), "first\n");
  CHECK(read(p) == "first\n");
  const std::string big(3 << 20, 'z');
  stratus::write_file_atomically(p.string(), big);
  CHECK(read(p) == big);
  stratus::write_file_atomically(p.string(), "");
  CHECK(read(p).empty());
  CHECK(names_in(t.path) == std::vector<std::string>{"run.prom"});
}

TEST_CASE("write_files_atomically replaces every file, or none it could not write", "[batch][io]") {
  TempDir t("stratus_batch_support");
  const std::string a = (t.path / "a.xmf").string(), b = (t.path / "b.xmf").string();
  stratus::write_files_atomically({{a, "a1\n"}, {b, "b1\n"}});
  CHECK(read(a) == "a1\n");
  CHECK(read(b) == "b1\n");
  stratus::write_files_atomically({{a, "a2\n"}, {b, "b2\n"}});
  CHECK(read(a) == "a2\n");
  CHECK(read(b) == "b2\n");
  // The second cannot be written: the first keeps its old text.
  const std::string missing_dir = (t.path / "no" / "c.xmf").string();
  CHECK_THAT(error([&] {
               stratus::write_files_atomically({{a, "a3\n"}, {missing_dir, "c\n"}});
             }),
             Contains(missing_dir));
  CHECK(read(a) == "a2\n");
  // The second's rename fails (onto a directory): the first stays replaced.
  fs::create_directory(t.path / "dir");
  const std::string onto_dir = (t.path / "dir").string();
  CHECK_THAT(error([&] { stratus::write_files_atomically({{a, "a4\n"}, {onto_dir, "d\n"}}); }), Contains(onto_dir));
  CHECK(read(a) == "a4\n");
  CHECK(names_in(t.path) == std::vector<std::string>{"a.xmf", "b.xmf", "dir"});
  CHECK(fs::is_empty(t.path / "dir"));
}

TEST_CASE("write_file_atomically names the path when it fails and leaves no temporary", "[batch][io]") {
  TempDir t("stratus_batch_support");
  std::ofstream(t.path / "file") << "x";
  const std::string under_file = (t.path / "file" / "run.prom").string();  // ENOTDIR, even for root
  CHECK_THAT(error([&] { stratus::write_file_atomically(under_file, "x"); }), Contains(under_file));
  const std::string missing_dir = (t.path / "no" / "run.prom").string();
  CHECK_THAT(error([&] { stratus::write_file_atomically(missing_dir, "x"); }), Contains(missing_dir));
  fs::create_directory(t.path / "dir");  // the temporary is written, the rename over a directory fails
  const std::string onto_dir = (t.path / "dir").string();
  CHECK_THAT(error([&] { stratus::write_file_atomically(onto_dir, "x"); }), Contains(onto_dir));
  CHECK(names_in(t.path) == std::vector<std::string>{"dir", "file"});
  CHECK(fs::is_empty(t.path / "dir"));
  if (::geteuid() != 0) {  // root may write anywhere
    fs::create_directory(t.path / "ro");
    ::chmod((t.path / "ro").c_str(), 0500);
    const std::string ro = (t.path / "ro" / "run.prom").string();
    CHECK_THAT(error([&] { stratus::write_file_atomically(ro, "x"); }), Contains(ro));
    ::chmod((t.path / "ro").c_str(), 0700);
    CHECK(fs::is_empty(t.path / "ro"));
  }
}

TEST_CASE("Phases time exclusively: nested phases add up to the elapsed time", "[batch][timer]") {
  using stratus::Phase;
  using stratus::Phases;
  auto spin = [](double s) {
    const double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < s) {
    }
  };
  // Lower bounds and a gap an inclusive timer could not pass: the machine may be loaded (a descheduled
  // thread makes a phase longer, never shorter).
  const double t0 = MPI_Wtime();
  Phases::reset(Phase::compute);
  spin(0.02);  // outer phase: compute
  Phases::begin(Phase::checkpoints);
  spin(0.03);
  Phases::begin(Phase::communication);  // inside the checkpoint: charged to communication only
  spin(0.3);
  Phases::end();
  spin(0.01);
  Phases::end();
  const auto s = Phases::seconds();
  const double elapsed = MPI_Wtime() - t0;
  double total = 0.0;
  for (double x : s) total += x;
  CHECK(total <= elapsed);
  CHECK(total >= elapsed - 0.01);
  CHECK(s[static_cast<int>(Phase::communication)] >= 0.3);
  CHECK(s[static_cast<int>(Phase::checkpoints)] >= 0.04);
  CHECK(s[static_cast<int>(Phase::checkpoints)] < 0.25);  // an inclusive timer would hold >= 0.34
  CHECK(s[static_cast<int>(Phase::compute)] >= 0.02);
  CHECK(s[static_cast<int>(Phase::diagnostics)] == 0.0);
  CHECK_THROWS_AS(Phases::end(), stratus::Error);  // nothing open
}
