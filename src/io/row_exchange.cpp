// RowRouter (io/row_exchange.hpp): this rank's own rows packed in place; the others by one MPI_Alltoall of
// counts and one MPI_Alltoallv of records.
#include "io/row_exchange.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/error.hpp"

namespace stratus {

namespace {

long long block_begin(long long r, long long natoms, long long nranks) { return r * natoms / nranks; }

/// The rank whose block of rows holds `row`: the largest r with r N / P <= row.
int row_owner(long long row, long long natoms, int nranks) {
  const long long r = ((row + 1) * nranks - 1) / natoms;
  return static_cast<int>(std::min<long long>(r, nranks - 1));
}

}  // namespace

const RowBlock& RowRouter::route(MPI_Comm comm, long long natoms, HostSpan<long long> id, std::size_t bytes,
                                 const std::function<void(std::size_t, char*)>& pack, const std::string& where) {
  int rank = 0, size = 1;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  STRATUS_MPI_CHECK(MPI_Comm_size(comm, &size));
  const std::size_t n = id.size();
  const std::size_t words = 8 + bytes;  // the row (int64), then the record

  // This rank's block of rows. The records of the atoms whose rows it holds are packed straight into
  // place; only the others travel (at one rank, none): no copy into a send buffer, through MPI and out.
  RowBlock& b = block_;
  b.row0 = block_begin(rank, natoms, size);
  b.count = static_cast<std::size_t>(block_begin(rank + 1, natoms, size) - b.row0);
  b.bytes = bytes;
  scratch(b.data, std::max<std::size_t>(b.count * bytes, 1));
  char* seen = scratch(seen_, b.count);
  if (b.count > 0) std::memset(seen, 0, b.count);
  long long duplicates = 0;  // a row met twice means another is missing
  const auto place = [&](std::int64_t row) -> char* {
    const std::size_t j = static_cast<std::size_t>(row - b.row0);
    if (seen[j]++) {
      ++duplicates;
      return nullptr;
    }
    return &b.data[j * bytes];
  };

  std::vector<int> send_count(size, 0), recv_count(size, 0), send_displ(size + 1, 0), recv_displ(size + 1, 0);
  int* owner = scratch(owner_, n);
  for (std::size_t i = 0; i < n; ++i) {
    owner[i] = row_owner(id[i] - 1, natoms, size);
    if (owner[i] != rank) ++send_count[owner[i]];
  }
  for (int r = 0; r < size; ++r) send_displ[r + 1] = send_displ[r] + send_count[r];
  char* send = scratch(send_, std::max<std::size_t>(static_cast<std::size_t>(send_displ[size]) * words, 1));
  {
    std::vector<int> next(send_displ.begin(), send_displ.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t row = id[i] - 1;
      if (owner[i] == rank) {
        if (char* to = place(row)) pack(i, to);
        continue;
      }
      char* p = &send[static_cast<std::size_t>(next[owner[i]]++) * words];
      std::memcpy(p, &row, 8);
      pack(i, p + 8);
    }
  }
  if (size > 1) {
    STRATUS_MPI_CHECK(MPI_Alltoall(send_count.data(), 1, MPI_INT, recv_count.data(), 1, MPI_INT, comm));
    for (int r = 0; r < size; ++r) recv_displ[r + 1] = recv_displ[r] + recv_count[r];
    const std::size_t nrecv = static_cast<std::size_t>(recv_displ[size]);
    char* recv = scratch(recv_, std::max<std::size_t>(nrecv * words, 1));
    MPI_Datatype record = MPI_DATATYPE_NULL;
    STRATUS_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(words), MPI_BYTE, &record));
    STRATUS_MPI_CHECK(MPI_Type_commit(&record));
    const int rc = MPI_Alltoallv(send, send_count.data(), send_displ.data(), record, recv, recv_count.data(),
                                 recv_displ.data(), record, comm);
    MPI_Type_free(&record);
    STRATUS_MPI_CHECK(rc);
    for (std::size_t k = 0; k < nrecv; ++k) {
      const char* p = &recv[k * words];
      std::int64_t row = 0;
      std::memcpy(&row, p, 8);
      if (char* to = place(row)) std::memcpy(to, p + 8, bytes);
    }
  }
  STRATUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &duplicates, 1, MPI_LONG_LONG, MPI_SUM, comm));
  if (duplicates > 0)
    throw CollectiveError(where + std::to_string(duplicates) + " id(s) given more than once, so as many are missing");
  return b;
}

}  // namespace stratus
