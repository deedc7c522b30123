// Rank and size of MPI_COMM_WORLD for the MPI tests, and rank 0's verdict shared with every rank.
#pragma once
#include <mpi.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace stratus::test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// Collective. `prefix`, the rank count and rank 0's process id: a name no other test run shares (ctest
/// runs one executable at the same rank count in several variants at once, in one directory).
inline std::string run_name(const std::string& prefix) {
  long pid = static_cast<long>(::getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return prefix + "_np" + std::to_string(world_size()) + "_" + std::to_string(pid);
}

/// Collective. Every rank learns whether rank 0 found problems (its list goes into the assertion's
/// message with joined()).
inline bool root_passed(const std::vector<std::string>& failures) {
  int ok = failures.empty() ? 1 : 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok == 1;
}

/// The items, one a line.
inline std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += i + "\n";
  return s;
}

}  // namespace stratus::test
