// Records gathered on rank 0 (comm/gather_records.hpp) with counts in records: every rank's records in
// rank order at 1, 2 and 4 ranks, and the displacements of systems far larger than memory (200 M atoms
// of 12 doubles: 2.4e9 doubles, past an int count of doubles) computed without allocating them.
// Built into test_particle_comm.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <climits>
#include <vector>

#include "comm/gather_records.hpp"
#include "core/error.hpp"

using stratus::gather_records;
using stratus::record_displacements;

TEST_CASE("record displacements reach 2^31 - 1 records, not 2^31 - 1 doubles", "[md][particle_comm]") {
  // 200 M atoms of 12 doubles on 4 ranks: as doubles the last displacement (1.8e9) would still fit, the
  // total (2.4e9) would not; in records everything does.
  const std::vector<long long> counts(4, 50'000'000);
  CHECK(4LL * 50'000'000 * 12 > INT_MAX);
  const std::vector<int> d = record_displacements(counts);
  CHECK(d == std::vector<int>{0, 50'000'000, 100'000'000, 150'000'000});
  // Uneven ranks and empty ones.
  CHECK(record_displacements({0, 3, 0, 5}) == std::vector<int>{0, 0, 3, 3});
  CHECK(record_displacements({INT_MAX}) == std::vector<int>{0});
  // Past INT_MAX records (2.2e9 atoms): refused with the figure, not wrapped around.
  CHECK_THROWS_WITH(record_displacements({INT_MAX, 1}),
                    Catch::Matchers::Contains("2147483648 records or more exceed MPI's int counts"));
  CHECK_THROWS_AS(record_displacements({-1}), stratus::Error);
}

TEST_CASE("every rank's records arrive on rank 0 in rank order", "[md][particle_comm]") {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Rank r sends r + 1 records of 3 doubles: (r, k, r * 100 + k).
  std::vector<double> mine;
  for (int k = 0; k <= rank; ++k) mine.insert(mine.end(), {double(rank), double(k), rank * 100.0 + k});
  const std::vector<double> all = gather_records(mine, 3, MPI_COMM_WORLD);
  if (rank != 0) {
    CHECK(all.empty());
    return;
  }
  std::vector<double> expect;
  for (int r = 0; r < size; ++r)
    for (int k = 0; k <= r; ++k) expect.insert(expect.end(), {double(r), double(k), r * 100.0 + k});
  CHECK(all == expect);
  CHECK_THROWS_AS(gather_records({1.0, 2.0}, 3, MPI_COMM_SELF), stratus::Error);  // not whole records
}
