// Moving a distributed 3D array from one box layout to another (each rank holds one box of the global index
// space in layout A and one in layout B): every rank intersects its A box with every rank's B box, packs the
// overlaps into one message per rank, and unpacks what it receives. Used by DistributedFFT between its
// stages; it knows nothing of transforms. The overlap with itself is copied on the device, not sent.
#pragma once
#include <mpi.h>

#include <vector>

#include "comm/staging.hpp"
#include "core/types.hpp"
#include "fft/distributed_fft.hpp"

namespace stratus::fft::detail {

/// The intersection of two boxes (empty when they do not overlap).
Box3 intersect(const Box3& a, const Box3& b);

/// One rank's array of a stage: the box it holds, where each global index lives in memory
/// (offset = sum_d (i_d - lo_d) * stride[d], in elements) and how many doubles an element is (1 real,
/// 2 complex, components innermost). Copyable into kernels.
struct ArrayAccess {
  double* data = nullptr;
  int lo[3] = {0, 0, 0};
  long long stride[3] = {0, 0, 0};
  int ncomp = 1;
};

/// Strides of a box stored with axis order[0] contiguous, then order[1], then order[2] slowest.
void packed_strides(const Box3& box, const int order[3], long long stride[3]);

/// A part of a message: a box whose elements are stored x fastest from element offset `off` of the buffer.
struct Segment {
  int lo[3];
  int n[3];
  long long off;
};

/// The plan of one remap, made once (collective data comes in as the boxes of every rank).
class BoxRemap {
 public:
  BoxRemap() = default;
  /// from[r] and to[r]: rank r's box before and after; me: this rank; ncomp: doubles per element; tag: the
  /// MPI tag of its messages.
  BoxRemap(const std::vector<Box3>& from, const std::vector<Box3>& to, int me, int ncomp, int tag);

  /// Doubles this rank sends and receives through the buffers (the overlap with itself excluded).
  long long send_doubles() const { return send_total_ * ncomp_; }
  long long recv_doubles() const { return recv_total_ * ncomp_; }

  /// Collective over the ranks that overlap: moves src (this rank's `from` box) into dst (its `to` box).
  /// bufs must hold send_doubles() and recv_doubles(). Kernels are left running (callers fence).
  void execute(const ArrayAccess& src, const ArrayAccess& dst, StagedBuffers& bufs, MPI_Comm comm);

 private:
  int ncomp_ = 1;
  int tag_ = 0;
  Box3 self_{};  // the overlap of this rank's from and to boxes
  std::vector<int> send_rank_, recv_rank_;
  std::vector<long long> send_off_, recv_off_;  // element offsets, one more than ranks (the total last)
  long long send_total_ = 0, recv_total_ = 0;
  Kokkos::View<Segment*, MemSpace> send_seg_, recv_seg_;
  std::vector<MPI_Request> requests_;
};

}  // namespace stratus::fft::detail
