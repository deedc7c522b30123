// RowRouter (io/row_exchange.hpp): this rank's own rows stored in place; the others by one MPI_Alltoall of
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

RowRange row_block(long long natoms, int rank, int size) {
  RowRange b;
  b.row0 = block_begin(rank, natoms, size);
  b.count = static_cast<std::size_t>(block_begin(rank + 1, natoms, size) - b.row0);
  return b;
}

RowRouter::Plan RowRouter::plan(MPI_Comm comm, long long natoms, HostSpan<long long> id, std::size_t bytes) {
  Plan p;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &p.rank));
  STRATUS_MPI_CHECK(MPI_Comm_size(comm, &p.size));
  p.block = row_block(natoms, p.rank, p.size);
  char* seen = scratch(seen_, p.block.count);
  if (p.block.count > 0) std::memset(seen, 0, p.block.count);
  duplicates_ = 0;
  const std::size_t n = id.size();
  p.send_count.assign(p.size, 0);
  p.send_displ.assign(p.size + 1, 0);
  int* owner = scratch(owner_, n);
  for (std::size_t i = 0; i < n; ++i) {
    owner[i] = row_owner(id[i] - 1, natoms, p.size);
    if (owner[i] != p.rank) ++p.send_count[owner[i]];
  }
  for (int r = 0; r < p.size; ++r) p.send_displ[r + 1] = p.send_displ[r] + p.send_count[r];
  scratch(send_, std::max<std::size_t>(static_cast<std::size_t>(p.send_displ[p.size]) * (8 + bytes), 1));
  return p;
}

std::size_t RowRouter::exchange(MPI_Comm comm, const Plan& p, std::size_t words) {
  if (p.size == 1) return 0;
  std::vector<int> recv_count(p.size, 0), recv_displ(p.size + 1, 0);
  STRATUS_MPI_CHECK(MPI_Alltoall(p.send_count.data(), 1, MPI_INT, recv_count.data(), 1, MPI_INT, comm));
  for (int r = 0; r < p.size; ++r) recv_displ[r + 1] = recv_displ[r] + recv_count[r];
  const std::size_t nrecv = static_cast<std::size_t>(recv_displ[p.size]);
  char* recv = scratch(recv_, std::max<std::size_t>(nrecv * words, 1));
  MPI_Datatype record = MPI_DATATYPE_NULL;
  STRATUS_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(words), MPI_BYTE, &record));
  STRATUS_MPI_CHECK(MPI_Type_commit(&record));
  const int rc = MPI_Alltoallv(send_.data(), p.send_count.data(), p.send_displ.data(), record, recv, recv_count.data(),
                               recv_displ.data(), record, comm);
  MPI_Type_free(&record);
  STRATUS_MPI_CHECK(rc);
  return nrecv;
}

void RowRouter::agree_no_duplicates(MPI_Comm comm, const std::string& where) {
  long long duplicates = duplicates_;
  STRATUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &duplicates, 1, MPI_LONG_LONG, MPI_SUM, comm));
  if (duplicates > 0)
    throw CollectiveError(where + std::to_string(duplicates) + " id(s) given more than once, so as many are missing");
}

const RowBlock& RowRouter::route(MPI_Comm comm, long long natoms, HostSpan<long long> id, std::size_t bytes,
                                 const std::function<void(std::size_t, char*)>& pack, const std::string& where) {
  // This rank's block of rows. The records of the atoms whose rows it holds are packed straight into
  // place; only the others travel (at one rank, none): no copy into a send buffer, through MPI and out.
  RowBlock& b = block_;
  int rank = 0, size = 1;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  STRATUS_MPI_CHECK(MPI_Comm_size(comm, &size));
  const RowRange range = row_block(natoms, rank, size);
  b.row0 = range.row0;
  b.count = range.count;
  b.bytes = bytes;
  char* data = scratch(b.data, std::max<std::size_t>(b.count * bytes, 1));
  scatter(
      comm, natoms, id, bytes, [&](std::size_t i, std::size_t j) { pack(i, &data[j * bytes]); }, pack,
      [&](const char* in, std::size_t j) { std::memcpy(&data[j * bytes], in, bytes); }, where);
  return b;
}

}  // namespace stratus
