// Collective agreement on rank 0's outcome; see agree.hpp.
#include "core/agree.hpp"

#include <climits>

#include "core/error.hpp"

namespace stratus {

void agree_or_throw(MPI_Comm comm, bool ok, const std::string& msg) {
  int rank = 0;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  int flag = ok ? 1 : 0;
  STRATUS_MPI_CHECK(MPI_Bcast(&flag, 1, MPI_INT, 0, comm));
  if (flag) return;
  throw CollectiveError(bcast_string(comm, rank == 0 ? msg : std::string()));
}

void agree_all_or_throw(MPI_Comm comm, bool ok, const std::string& msg) {
  int rank = 0;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  int first = ok ? INT_MAX : rank;
  STRATUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == INT_MAX) return;
  int len = rank == first ? static_cast<int>(msg.size()) : 0;
  STRATUS_MPI_CHECK(MPI_Bcast(&len, 1, MPI_INT, first, comm));
  std::string text = rank == first ? msg : std::string(static_cast<std::size_t>(len), ' ');
  if (len > 0) STRATUS_MPI_CHECK(MPI_Bcast(text.data(), len, MPI_CHAR, first, comm));
  throw CollectiveError(text);
}

std::string bcast_string(MPI_Comm comm, std::string s) {
  int len = static_cast<int>(s.size());
  STRATUS_MPI_CHECK(MPI_Bcast(&len, 1, MPI_INT, 0, comm));
  s.resize(static_cast<std::size_t>(len));
  if (len > 0) STRATUS_MPI_CHECK(MPI_Bcast(s.data(), len, MPI_CHAR, 0, comm));
  return s;
}

}  // namespace stratus
