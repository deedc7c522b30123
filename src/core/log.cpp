// Rank-aware logging to stdout (info) and stderr (warnings, errors).
#include "core/log.hpp"

#include <mpi.h>

#include <iostream>

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
void warn(const std::string& msg) { std::cerr << "[rank " << rank() << "] warning: " << msg << std::endl; }
void error(const std::string& msg) { std::cerr << "[rank " << rank() << "] error: " << msg << std::endl; }

}  // namespace stratus::log
