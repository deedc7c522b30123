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
/// One JSON log line (no newline).
std::string json_line(const char* level, int r, const std::string& msg) {
  return "{\"time\":" + json_quote(utc_timestamp()) + ",\"level\":\"" + level + "\",\"rank\":" + std::to_string(r) +
         ",\"message\":" + json_quote(msg) + "}";
}

/// Rank 0's message on stdout when the level admits it.
void stdout_line(Level at, const char* level, const std::string& msg) {
  if (g_level < at || rank() != 0) return;
  std::cout << (g_format == Format::json ? json_line(level, 0, msg) : msg) << std::endl;
}

/// Any rank's message on stderr, tagged with the rank, in one write (lines of different ranks never
/// interleave mid-line).
void stderr_line(const char* level, const std::string& msg) {
  const int r = rank();
  write_stderr_line(g_format == Format::json ? json_line(level, r, msg)
                                             : "[rank " + std::to_string(r) + "] " + level + ": " + msg);
}
}  // namespace

void set_level(Level l) { g_level = l; }
void set_format(Format f) { g_format = f; }
Level level() { return g_level; }

void info(const std::string& msg) { stdout_line(Level::info, "info", msg); }
void debug(const std::string& msg) { stdout_line(Level::debug, "debug", msg); }
void warn(const std::string& msg) { stderr_line("warning", msg); }
void error(const std::string& msg) { stderr_line("error", msg); }
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
