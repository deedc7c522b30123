// RowRouter (io/row_exchange.*): every atom's record reaches the rank that holds its row, in row order,
// whichever rank held the atom, with the records of a rank's own rows placed without the all-to-all; an
// id given twice (by one rank or by two, one of them the row's holder) is counted once, on every rank, and
// one given 300 times 299 times. scatter() stores every row of a block exactly once, a rank's own atoms in
// place and the others from their records. Compiled into test_h5md (np = 1, 2, 4).
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
  // 300 times in all: once by the rank that holds it, 299 times more by rank 0, whose block has its row
  // (the meetings of a row were counted in a char, which wrapped after 255: the 257th copy was stored
  // again and 298 counted).
  id = held_ids(natoms, rank, size);
  if (rank == 0) id.insert(id.end(), 299, 1LL);
  REQUIRE_THROWS_WITH(router.route(comm, natoms, id, sizeof(Record), pack, "test: "),
                      "test: 299 id(s) given more than once, so as many are missing");
}

TEST_CASE("RowRouter::scatter stores every row of a rank's block once, its own atoms in place", "[io][mpi]") {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = stratus::test::world_rank(), size = stratus::test::world_size();
  stratus::RowRouter router;
  for (const long long natoms : {1LL, 1000LL, 1003LL}) {
    INFO(natoms << " atoms");
    std::vector<long long> id = held_ids(natoms, rank, size);
    const std::size_t held = id.size();
    // Every rank gives an id of every block a second time: the copy must reach neither store nor unpack.
    const bool dup = natoms >= size;
    if (dup) {
      for (int r = 0; r < size; ++r) {
        const long long row = r * natoms / size;  // the first row of r's block
        if ((row + 1) * 7 % size == rank) id.push_back(row + 1);
      }
    }
    const stratus::RowRange block = stratus::row_block(natoms, rank, size);
    std::vector<int> calls(block.count, 0);
    std::vector<long long> got(block.count, 0);
    long long stored = 0, unpacked = 0, wrong = 0;
    const auto run = [&] {
      return router.scatter(
          comm, natoms, id, sizeof(long long),
          [&](std::size_t i, std::size_t j) {
            wrong += i >= held;  // the first copy of an id is the held one
            ++calls[j];
            got[j] = id[i];
            ++stored;
          },
          [&](std::size_t i, char* p) { std::memcpy(p, &id[i], sizeof(long long)); },
          [&](const char* p, std::size_t j) {
            ++calls[j];
            std::memcpy(&got[j], p, sizeof(long long));
            ++unpacked;
          },
          "test: ");
    };
    if (dup) {
      long long dups = 0;
      for (int r = 0; r < size; ++r) dups += r * natoms / size < (r + 1) * natoms / size;
      REQUIRE_THROWS_WITH(run(),
                          "test: " + std::to_string(dups) + " id(s) given more than once, so as many are missing");
    } else {
      const stratus::RowRange r = run();
      CHECK(r.row0 == block.row0);
      CHECK(r.count == block.count);
    }
    long long bad_rows = 0, own = 0;
    for (std::size_t j = 0; j < block.count; ++j) {
      const long long want = block.row0 + static_cast<long long>(j) + 1;
      bad_rows += calls[j] != 1 || got[j] != want;
      own += (want * 7) % size == rank;
    }
    CHECK(bad_rows == 0);
    CHECK(wrong == 0);
    CHECK(stored == own);  // in place exactly the rows whose atoms this rank holds
    CHECK(unpacked == static_cast<long long>(block.count) - own);
  }
}
