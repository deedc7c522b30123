// Rank-aware logging to stdout (info) and stderr (warnings, errors).
#include "core/log.hpp"

#include <mpi.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <iostream>
#include <sstream>

#include "core/json.hpp"

namespace stratus::log {
namespace {
Level g_level = Level::info;
Format g_format = Format::text;
int rank() {
  int init = 0, fin = 0, r = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
}  // namespace

/// One JSON log line (no newline).
std::string json_line(const char* level, int r, const std::string& msg) {
  return "{\"time\":" + json_quote(utc_timestamp()) + ",\"level\":\"" + level + "\",\"rank\":" + std::to_string(r) +
         ",\"message\":" + json_quote(msg) + "}";
}

void set_level(Level l) { g_level = l; }
void set_format(Format f) { g_format = f; }
Level level() { return g_level; }

void info(const std::string& msg) {
  if (g_level < Level::info || rank() != 0) return;
  if (g_format == Format::json)
    std::cout << json_line("info", 0, msg) << std::endl;
  else
    std::cout << msg << std::endl;
}
void debug(const std::string& msg) {
  if (g_level < Level::debug || rank() != 0) return;
  if (g_format == Format::json)
    std::cout << json_line("debug", 0, msg) << std::endl;
  else
    std::cout << msg << std::endl;
}
// Warnings and errors go out in one write each, so lines of different ranks never interleave mid-line.
void warn(const std::string& msg) {
  const int r = rank();
  write_stderr_line(g_format == Format::json ? json_line("warning", r, msg)
                                             : "[rank " + std::to_string(r) + "] warning: " + msg);
}
void error(const std::string& msg) {
  const int r = rank();
  write_stderr_line(g_format == Format::json ? json_line("error", r, msg)
                                             : "[rank " + std::to_string(r) + "] error: " + msg);
}
void fatal(const std::string& msg, int r) {
  write_stderr_line(g_format == Format::json ? json_line("error", r, msg) : "stratus: error: " + msg);
}

std::string utc_timestamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string bytes_text(double b) {
  std::ostringstream os;
  os.precision(3);
  if (b >= 1e9)
    os << b / 1e9 << " GB";
  else if (b >= 1e6)
    os << b / 1e6 << " MB";
  else
    os << b / 1e3 << " kB";
  return os.str();
}

void write_stderr_line(const std::string& line) {
  std::cerr.flush();
  const std::string text = line + "\n";
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace stratus::log
