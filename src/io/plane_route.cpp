// PlaneRoute (io/plane_route.hpp): the plan from one MPI_Allgather of the ranks' boxes, then per call and
// variable one message per pair of distinct ranks whose z-ranges meet, described by MPI datatypes on both
// sides (no packing of our own; the sender's part is whole planes of its box, strided as its memory is,
// the receiver's a box in its planes).
#include "io/plane_route.hpp"

#include <algorithm>
#include <array>

#include "core/error.hpp"

namespace stratus {

namespace {

constexpr int kTag = 7301;

/// The planes [lo, hi) rank r of p writes.
std::array<long long, 2> owned_planes(int r, int p, long long nz) { return {r * nz / p, (r + 1) * nz / p}; }

/// An MPI type for count cells (x, y, z) with x contiguous, rows `row` and planes `plane` doubles apart.
MPI_Datatype strided_type(const Int3& count, long long row, long long plane) {
  MPI_Datatype x = MPI_DATATYPE_NULL, xy = MPI_DATATYPE_NULL, xyz = MPI_DATATYPE_NULL;
  STRATUS_MPI_CHECK(MPI_Type_contiguous(count[0], MPI_DOUBLE, &x));
  STRATUS_MPI_CHECK(MPI_Type_create_hvector(count[1], 1, static_cast<MPI_Aint>(row * sizeof(double)), x, &xy));
  STRATUS_MPI_CHECK(MPI_Type_create_hvector(count[2], 1, static_cast<MPI_Aint>(plane * sizeof(double)), xy, &xyz));
  STRATUS_MPI_CHECK(MPI_Type_commit(&xyz));
  STRATUS_MPI_CHECK(MPI_Type_free(&xy));
  STRATUS_MPI_CHECK(MPI_Type_free(&x));
  return xyz;
}

}  // namespace

PlaneRoute::PlaneRoute(MPI_Comm comm, const Int3& global, const WriteBox& own) : own_(own), write_(own) {
  int rank = 0, size = 1;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  STRATUS_MPI_CHECK(MPI_Comm_size(comm, &size));
  const int mine[6] = {own.start[0], own.start[1], own.start[2], own.count[0], own.count[1], own.count[2]};
  std::vector<int> all(6 * static_cast<std::size_t>(size));
  STRATUS_MPI_CHECK(MPI_Allgather(mine, 6, MPI_INT, all.data(), 6, MPI_INT, comm));
  const auto box = [&](int r) {
    const int* b = all.data() + 6 * static_cast<std::size_t>(r);
    return WriteBox{Int3{b[0], b[1], b[2]}, Int3{b[3], b[4], b[5]}};
  };
  bool partial = false;  // a box with cells that does not span whole z-planes
  for (int r = 0; r < size; ++r) {
    const WriteBox b = box(r);
    partial |= b.cells() > 0 && (b.count[0] != global[0] || b.count[1] != global[1]);
  }
  const long long nz = global[2];
  active_ = size > 1 && partial && nz >= size;
  whole_planes_ = active_ || !partial;
  if (!active_) return;

  const auto mine_z = owned_planes(rank, size, nz);
  write_ = WriteBox{Int3{0, 0, static_cast<int>(mine_z[0])},
                    Int3{global[0], global[1], static_cast<int>(mine_z[1] - mine_z[0])}};
  for (int r = 0; r < size; ++r) {
    if (r == rank) continue;  // what this rank keeps, it writes from where it lies
    // To r: the planes of the own box that r writes.
    const auto z = owned_planes(r, size, nz);
    long long lo = std::max<long long>(own.start[2], z[0]), hi = std::min<long long>(own.start[2] + own.count[2], z[1]);
    if (hi > lo && own.cells() > 0) {
      sends_.push_back(Peer{r, Int3{own.count[0], own.count[1], static_cast<int>(hi - lo)},
                            Int3{0, 0, static_cast<int>(lo - own.start[2])}, Int3{}});
    }
    // From r: the planes of its box this rank writes.
    const WriteBox b = box(r);
    lo = std::max<long long>(b.start[2], mine_z[0]);
    hi = std::min<long long>(b.start[2] + b.count[2], mine_z[1]);
    if (hi > lo && b.cells() > 0) {
      recvs_.push_back(Peer{r, Int3{b.count[0], b.count[1], static_cast<int>(hi - lo)}, Int3{},
                            Int3{b.start[0], b.start[1], static_cast<int>(lo - mine_z[0])}});
    }
  }
}

const double* PlaneRoute::route(MPI_Comm comm, const std::vector<StridedCells>& own) {
  STRATUS_REQUIRE(active_, "PlaneRoute::route: nothing to route");
  const long long wx = write_.count[0], wxy = wx * write_.count[1], block = wxy * write_.count[2];
  const std::size_t need = own.size() * static_cast<std::size_t>(block);
  if (routed_size_ < need) {
    routed_.reset(new double[need]);
    routed_size_ = need;
  }
  std::vector<MPI_Request> req;
  std::vector<MPI_Datatype> types;
  req.reserve(own.size() * (sends_.size() + recvs_.size()));
  types.reserve(req.capacity());
  for (std::size_t q = 0; q < own.size(); ++q) {
    const int tag = kTag + static_cast<int>(q);
    for (const Peer& p : recvs_) {
      types.push_back(strided_type(p.count, wx, wxy));
      double* at = routed_.get() + q * block + (p.recv_start[2] * wxy + p.recv_start[1] * wx + p.recv_start[0]);
      req.emplace_back();
      STRATUS_MPI_CHECK(MPI_Irecv(at, 1, types.back(), p.rank, tag, comm, &req.back()));
    }
    for (const Peer& p : sends_) {
      types.push_back(strided_type(p.count, own[q].row, own[q].plane));
      const double* at = own[q].first + p.send_start[2] * own[q].plane;
      req.emplace_back();
      // MPI-3 takes a const buffer; the cast is for MPI libraries that still declare void*.
      STRATUS_MPI_CHECK(MPI_Isend(const_cast<double*>(at), 1, types.back(), p.rank, tag, comm, &req.back()));
    }
  }
  STRATUS_MPI_CHECK(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE));
  for (MPI_Datatype& t : types) STRATUS_MPI_CHECK(MPI_Type_free(&t));
  return routed_.get();
}

}  // namespace stratus
