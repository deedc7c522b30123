// Reads VmHWM / VmRSS ("<number> kB" lines) from /proc/self/status; getrusage backs up the high water.
// ru_maxrss is in kilobytes on Linux. Never throws: a missing value is reported as 0.
#include "core/host_memory.hpp"

#include <sys/resource.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace stratus {
namespace {

/// The value of `field` ("VmHWM:") in /proc/self/status in bytes, or -1 when absent.
double proc_status_bytes(const char* field) {
  std::ifstream in("/proc/self/status");
  const std::string f(field);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, f.size(), f) != 0) continue;
    char* end = nullptr;
    const double kb = std::strtod(line.c_str() + f.size(), &end);
    if (end == line.c_str() + f.size()) return -1.0;
    return kb * 1024.0;
  }
  return -1.0;
}

}  // namespace

double host_rss_high_water_bytes() {
  const double hwm = proc_status_bytes("VmHWM:");
  if (hwm >= 0.0) return hwm;
  struct rusage ru {};
  if (::getrusage(RUSAGE_SELF, &ru) == 0) return static_cast<double>(ru.ru_maxrss) * 1024.0;
  return 0.0;
}

double host_rss_bytes() {
  const double rss = proc_status_bytes("VmRSS:");
  return rss >= 0.0 ? rss : 0.0;
}

}  // namespace stratus
