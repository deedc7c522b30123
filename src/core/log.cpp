// Rank-aware logging to stdout (info) and stderr (warnings, errors).
#include "core/log.hpp"

#include <mpi.h>

#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <sstream>

namespace stratus::log {
namespace {
Level g_level = Level::info;
int rank() {
  int init = 0, fin = 0, r = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
}  // namespace

void set_level(Level l) { g_level = l; }
Level level() { return g_level; }

void info(const std::string& msg) {
  if (g_level >= Level::info && rank() == 0) std::cout << msg << std::endl;
}
void debug(const std::string& msg) {
  if (g_level >= Level::debug && rank() == 0) std::cout << msg << std::endl;
}
// Warnings and errors go out in one write each, so lines of different ranks never interleave mid-line.
void warn(const std::string& msg) { write_stderr_line("[rank " + std::to_string(rank()) + "] warning: " + msg); }
void error(const std::string& msg) { write_stderr_line("[rank " + std::to_string(rank()) + "] error: " + msg); }

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
