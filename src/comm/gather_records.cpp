// gather_records (comm/gather_records.hpp).
#include "comm/gather_records.hpp"

#include <climits>
#include <string>

#include "core/error.hpp"

namespace stratus {

std::vector<int> record_displacements(const std::vector<long long>& counts) {
  std::vector<int> displs(counts.size());
  long long total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    STRATUS_REQUIRE(counts[r] >= 0 && counts[r] <= INT_MAX, "gather: rank " << r << " has " << counts[r] << " records");
    displs[r] = static_cast<int>(total);
    total += counts[r];
    if (total > INT_MAX)
      throw Error("gather: " + std::to_string(total) + " records or more exceed MPI's int counts (2^31 - 1)");
  }
  return displs;
}

std::vector<double> gather_records(const std::vector<double>& mine, int width, MPI_Comm comm) {
  STRATUS_REQUIRE(width >= 1 && mine.size() % static_cast<std::size_t>(width) == 0,
                  "gather: " << mine.size() << " doubles are not records of " << width);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const long long n = static_cast<long long>(mine.size()) / width;
  STRATUS_REQUIRE(n <= INT_MAX, "gather: " << n << " records on one rank");
  std::vector<long long> counts(static_cast<std::size_t>(size));
  STRATUS_MPI_CHECK(MPI_Gather(&n, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, 0, comm));
  // Rank 0 checks the total; every rank learns whether it may go on.
  std::vector<int> displs, icounts;
  int ok = 1;
  std::string why;
  if (rank == 0) {
    try {
      displs = record_displacements(counts);
      icounts.assign(counts.begin(), counts.end());
    } catch (const Error& e) {
      ok = 0;
      why = e.what();
    }
  }
  STRATUS_MPI_CHECK(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  if (!ok) throw CollectiveError(rank == 0 ? why : "gather: too many records (rank 0 says why)");
  MPI_Datatype rec;
  STRATUS_MPI_CHECK(MPI_Type_contiguous(width, MPI_DOUBLE, &rec));
  STRATUS_MPI_CHECK(MPI_Type_commit(&rec));
  std::vector<double> all;
  if (rank == 0) {
    long long total = 0;
    for (const long long c : counts) total += c;
    all.resize(static_cast<std::size_t>(total) * static_cast<std::size_t>(width));
  }
  const int rc = MPI_Gatherv(mine.data(), static_cast<int>(n), rec, all.data(), icounts.data(), displs.data(), rec, 0,
                             comm);
  MPI_Type_free(&rec);
  STRATUS_MPI_CHECK(rc);
  return all;
}

}  // namespace stratus
