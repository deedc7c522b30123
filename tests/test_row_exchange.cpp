// RowRouter (io/row_exchange.*): every atom's record reaches the rank that holds its row, in row order,
// whichever rank held the atom, with the records of a rank's own rows placed without the all-to-all; an
// id given twice (by one rank or by two, one of them the row's holder) is counted once, on every rank.
// Compiled into test_h5md (np = 1, 2, 4).
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/row_exchange.hpp"
#include "mpi_world.hpp"

namespace {

// The ids a rank holds: scattered over the ranks (id * 7 mod P), in descending order.
std::vector<long long> held_ids(long long natoms, int rank, int size) {
  std::vector<long long> id;
  for (long long i = natoms; i >= 1; --i)
    if ((i * 7) % size == rank) id.push_back(i);
  return id;
}

struct Record {
  std::int64_t id;
  std::int32_t from, pad;
};

}  // namespace

TEST_CASE("RowRouter brings every record to the rank of its row, in row order", "[io][mpi]") {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = stratus::test::world_rank(), size = stratus::test::world_size();
  stratus::RowRouter router;
  for (const long long natoms : {1LL, 7LL, 1000LL, 1003LL, 250LL}) {  // the buffers kept and regrown
    INFO(natoms << " atoms");
    const std::vector<long long> id = held_ids(natoms, rank, size);
    const stratus::RowBlock& b = router.route(
        comm, natoms, id, sizeof(Record),
        [&](std::size_t i, char* p) {
          const Record r{id[i], rank, 0};
          std::memcpy(p, &r, sizeof r);
        },
        "test: ");
    CHECK(b.row0 == rank * natoms / size);
    CHECK(static_cast<long long>(b.count) == (rank + 1) * natoms / size - b.row0);
    long long wrong = 0;
    for (std::size_t j = 0; j < b.count; ++j) {
      Record r{};
      std::memcpy(&r, b.record(j), sizeof r);
      const long long want = b.row0 + static_cast<long long>(j) + 1;
      wrong += r.id != want || r.from != static_cast<int>((want * 7) % size);
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("RowRouter counts an id given twice once, on every rank", "[io][mpi]") {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = stratus::test::world_rank(), size = stratus::test::world_size();
  const long long natoms = 100;
  // An id of the last rank's block that the last rank holds, given again by rank 0: at one rank a
  // duplicate among the rows placed in place, at more a placed row met again in the exchange.
  long long dup = 0;
  for (long long i = (size - 1) * natoms / size + 1; i <= natoms && dup == 0; ++i)
    if ((i * 7) % size == size - 1) dup = i;
  REQUIRE(dup > 0);
  std::vector<long long> id = held_ids(natoms, rank, size);
  if (rank == 0) id.push_back(dup);
  stratus::RowRouter router;
  const auto pack = [](std::size_t, char* p) { std::memset(p, 0, sizeof(Record)); };
  REQUIRE_THROWS_WITH(router.route(comm, natoms, id, sizeof(Record), pack, "test: "),
                      "test: 1 id(s) given more than once, so as many are missing");
  // Twice by a rank that does not hold the row's block (at one rank, the same rank).
  id = held_ids(natoms, rank, size);
  const long long last_row_id = natoms;  // held by the last rank's block
  if (rank == 0) {
    id.push_back(last_row_id);
    id.push_back(last_row_id);
  }
  REQUIRE_THROWS_WITH(router.route(comm, natoms, id, sizeof(Record), pack, "test: "),
                      "test: 2 id(s) given more than once, so as many are missing");
}
