// Collective agreement on rank 0's outcome; see agree.hpp.
#include "core/agree.hpp"

#include "core/error.hpp"

namespace stratus {

void agree_or_throw(MPI_Comm comm, bool ok, const std::string& msg) {
  int rank = 0;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  int flag = ok ? 1 : 0;
  STRATUS_MPI_CHECK(MPI_Bcast(&flag, 1, MPI_INT, 0, comm));
  if (flag) return;
  throw Error(bcast_string(comm, rank == 0 ? msg : std::string()));
}

std::string bcast_string(MPI_Comm comm, std::string s) {
  int len = static_cast<int>(s.size());
  STRATUS_MPI_CHECK(MPI_Bcast(&len, 1, MPI_INT, 0, comm));
  s.resize(static_cast<std::size_t>(len));
  if (len > 0) STRATUS_MPI_CHECK(MPI_Bcast(s.data(), len, MPI_CHAR, 0, comm));
  return s;
}

}  // namespace stratus
