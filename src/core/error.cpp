// Location strings for error messages.
#include "core/error.hpp"

#include <mpi.h>

#include <algorithm>

namespace stratus {

std::string where(const char* file, int line) {
  std::string f(file);
  const auto pos = f.rfind("/src/");
  const auto pos2 = f.rfind("/physics/");
  const auto pos3 = f.rfind("/solvers/");
  const auto cut = std::max({pos == std::string::npos ? 0 : pos + 1, pos2 == std::string::npos ? 0 : pos2 + 1,
                             pos3 == std::string::npos ? 0 : pos3 + 1});
  int init = 0, rank = -1;
  MPI_Initialized(&init);
  int fin = 0;
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::ostringstream os;
  os << f.substr(cut) << ":" << line;
  if (rank >= 0) os << " rank " << rank;
  return os.str();
}

}  // namespace stratus
