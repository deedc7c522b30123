// The Slurm environment and time-left queries of core/batch_env.hpp. Numbers in the environment are
// checked strictly (digits only), since a launch-sanity check compares them with the MPI size. squeue
// runs through popen under coreutils' `timeout`, so a hung controller cannot stall the run; the job id
// is checked to be DIGITS[_DIGITS] before it becomes part of the command line.
#include "core/batch_env.hpp"

#include <sys/wait.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "core/error.hpp"

namespace stratus {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

/// A field of at most 12 digits as a number, or -1.
double digits_value(const std::string& s) {
  if (!all_digits(s) || s.size() > 12) return -1.0;
  return std::strtod(s.c_str(), nullptr);
}

/// Slurm's time syntax: "[D-]A[:B[:C]]". With days, the fields are hours[:minutes[:seconds]]; without,
/// one field is minutes, two are minutes:seconds and three hours:minutes:seconds. Fields after the
/// first are below 60 (hours after days below 24).
std::optional<double> parse_clock(const std::string& text) {
  std::string rest = text;
  double days = 0.0;
  bool has_days = false;
  const std::size_t dash = rest.find('-');
  if (dash != std::string::npos) {
    days = digits_value(rest.substr(0, dash));
    if (days < 0) return std::nullopt;
    has_days = true;
    rest = rest.substr(dash + 1);
  }
  std::vector<double> f;
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = rest.find(':', start);
    const double v = digits_value(rest.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (v < 0) return std::nullopt;
    f.push_back(v);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (f.size() > 3) return std::nullopt;
  for (std::size_t i = 1; i < f.size(); ++i) {
    if (f[i] >= 60) return std::nullopt;
  }
  double h = 0, m = 0, s = 0;
  if (has_days) {
    if (f[0] >= 24) return std::nullopt;
    h = f[0];
    m = f.size() > 1 ? f[1] : 0;
    s = f.size() > 2 ? f[2] : 0;
  } else if (f.size() == 1) {
    m = f[0];
  } else if (f.size() == 2) {
    m = f[0];
    s = f[1];
  } else {
    h = f[0];
    m = f[1];
    s = f[2];
  }
  return ((days * 24 + h) * 60 + m) * 60 + s;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

/// The value of count variable `name`, `fallback` when unset or empty; InputError when not digits.
int env_count(const char* name, int fallback) {
  const std::string v = trim(env(name));
  if (v.empty()) return fallback;
  if (!all_digits(v) || v.size() > 9) {
    throw InputError(std::string("environment variable ") + name + " = '" + v + "' is not a non-negative integer");
  }
  return std::atoi(v.c_str());
}

/// A GPU count hint: "4", or the number after the last ':' of "type:4"; 0 when there is none.
int gpu_hint(const std::string& text) {
  const std::string t = trim(text);
  const std::string n = t.substr(t.rfind(':') == std::string::npos ? 0 : t.rfind(':') + 1);
  return all_digits(n) && n.size() <= 6 ? std::atoi(n.c_str()) : 0;
}

bool valid_job_id(const std::string& id) {
  const std::size_t u = id.find('_');
  if (u == std::string::npos) return all_digits(id) && id.size() <= 20;
  return all_digits(id.substr(0, u)) && all_digits(id.substr(u + 1)) && id.size() <= 30;
}

}  // namespace

BatchJob slurm_job() {
  BatchJob j;
  j.job_id = trim(env("SLURM_JOB_ID"));
  j.in_slurm = !j.job_id.empty();
  if (!j.in_slurm) return j;
  j.partition = env("SLURM_JOB_PARTITION");
  j.nodelist = env("SLURM_JOB_NODELIST");
  j.cluster = env("SLURM_CLUSTER_NAME");
  j.nnodes = env_count("SLURM_JOB_NUM_NODES", env_count("SLURM_NNODES", 0));
  j.ntasks = env_count("SLURM_NTASKS", 0);
  j.restart_count = env_count("SLURM_RESTART_COUNT", 0);
  j.cpus_per_task = env_count("SLURM_CPUS_PER_TASK", 0);
  j.gpus_per_node_hint = gpu_hint(env("SLURM_GPUS_ON_NODE"));
  if (j.gpus_per_node_hint == 0) j.gpus_per_node_hint = gpu_hint(env("SLURM_GPUS_PER_NODE"));
  return j;
}

std::optional<double> parse_slurm_time_left(const std::string& text) {
  const std::string t = trim(text);
  if (t.empty() || t == "UNLIMITED" || t == "NOT_SET" || t == "INVALID") return std::nullopt;
  return parse_clock(t);
}

std::optional<double> slurm_seconds_left() {
  const std::string id = trim(env("SLURM_JOB_ID"));
  if (id.empty()) return std::nullopt;
  const std::string end = trim(env("SLURM_JOB_END_TIME"));
  if (all_digits(end) && end.size() <= 15) {
    const double e = std::strtod(end.c_str(), nullptr);
    if (e > 0) return e - static_cast<double>(std::time(nullptr));
  }
  if (!valid_job_id(id)) return std::nullopt;
  const std::string cmd = "timeout 10 squeue -h -j " + id + " -o %L 2>/dev/null";
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return std::nullopt;
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) {
    if (out.size() < 4096) out += buf;
  }
  const int status = ::pclose(p);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return parse_slurm_time_left(out.substr(0, out.find('\n')));
}

double parse_duration(const std::string& key, const std::string& text) {
  const std::string t = trim(text);
  std::optional<double> v;
  if (t.find(':') != std::string::npos) {
    v = parse_clock(t);
  } else if (!t.empty() && t.find_first_not_of("0123456789.eE+") == std::string::npos) {
    char* endp = nullptr;
    errno = 0;
    const double x = std::strtod(t.c_str(), &endp);
    if (endp == t.c_str() + t.size() && errno == 0 && x >= 0 && x < 1e15) v = x;
  }
  if (!v) {
    throw InputError("key '" + key + "' = '" + text +
                     "' is not a duration: expected seconds (a non-negative number) or [D-]HH:MM:SS or MM:SS");
  }
  return *v;
}

}  // namespace stratus
