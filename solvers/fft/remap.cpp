// BoxRemap: the plan (overlaps with every rank, message offsets) and its execution (pack, local copy,
// point-to-point messages to the overlapping ranks only, unpack). Messages hold their boxes x fastest.
#include "fft/remap.hpp"

#include <algorithm>
#include <climits>
#include <string>

#include "core/error.hpp"
#include "core/timer.hpp"

namespace stratus::fft::detail {

Box3 intersect(const Box3& a, const Box3& b) {
  Box3 c;
  for (int d = 0; d < 3; ++d) {
    c.lo[d] = std::max(a.lo[d], b.lo[d]);
    c.hi[d] = std::min(a.hi[d], b.hi[d]);
  }
  if (c.size() == 0) c = Box3{};
  return c;
}

void packed_strides(const Box3& box, const int order[3], long long stride[3]) {
  long long s = 1;
  for (int i = 0; i < 3; ++i) {
    stride[order[i]] = s;
    s *= box.extent(order[i]);
  }
}

namespace {

using SegView = Kokkos::View<Segment*, MemSpace>;
using LongPolicy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long long>>;

// The segment that holds buffer element t: the last one starting at or before it.
KOKKOS_INLINE_FUNCTION int find_segment(const SegView& seg, int nseg, long long t) {
  int lo = 0, hi = nseg - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (seg(mid).off <= t)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

KOKKOS_INLINE_FUNCTION long long element_offset(const ArrayAccess& a, int x, int y, int z) {
  return a.ncomp * ((x - a.lo[0]) * a.stride[0] + (y - a.lo[1]) * a.stride[1] + (z - a.lo[2]) * a.stride[2]);
}

// Buffer element t of a message -> its global index (x fastest within its segment).
KOKKOS_INLINE_FUNCTION void segment_index(const Segment& s, long long t, int& x, int& y, int& z) {
  long long l = t - s.off;
  x = s.lo[0] + static_cast<int>(l % s.n[0]);
  l /= s.n[0];
  y = s.lo[1] + static_cast<int>(l % s.n[1]);
  z = s.lo[2] + static_cast<int>(l / s.n[1]);
}

void pack(const SegView& seg, int nseg, long long total, const ArrayAccess& a, const Buffer1D& buf) {
  Kokkos::parallel_for(
      "fft::pack", LongPolicy(0, total), KOKKOS_LAMBDA(long long t) {
        int x, y, z;
        segment_index(seg(find_segment(seg, nseg, t)), t, x, y, z);
        const long long o = element_offset(a, x, y, z);
        for (int c = 0; c < a.ncomp; ++c) buf(a.ncomp * t + c) = a.data[o + c];
      });
}

void unpack(const SegView& seg, int nseg, long long total, const Buffer1D& buf, const ArrayAccess& a) {
  Kokkos::parallel_for(
      "fft::unpack", LongPolicy(0, total), KOKKOS_LAMBDA(long long t) {
        int x, y, z;
        segment_index(seg(find_segment(seg, nseg, t)), t, x, y, z);
        const long long o = element_offset(a, x, y, z);
        for (int c = 0; c < a.ncomp; ++c) a.data[o + c] = buf(a.ncomp * t + c);
      });
}

// The overlap with itself, element by element, running fastest along the destination's contiguous axis.
void local_copy(const Box3& box, const ArrayAccess& src, const ArrayAccess& dst) {
  int order[3] = {0, 1, 2};
  std::sort(order, order + 3, [&](int p, int q) { return dst.stride[p] < dst.stride[q]; });
  const int a0 = order[0], a1 = order[1], a2 = order[2];
  const int n0 = box.extent(a0), n1 = box.extent(a1);
  const int lx = box.lo[0], ly = box.lo[1], lz = box.lo[2];
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
  // CPUs: nested loops with the destination's contiguous axis innermost (no index arithmetic per element).
  Kokkos::parallel_for(
      "fft::local_copy",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>({0, 0, 0}, {box.extent(a2), n1, n0}),
      KOKKOS_LAMBDA(int k2, int k1, int k0) {
        int i[3];
        i[a0] = k0;
        i[a1] = k1;
        i[a2] = k2;
        const long long os = element_offset(src, lx + i[0], ly + i[1], lz + i[2]);
        const long long od = element_offset(dst, lx + i[0], ly + i[1], lz + i[2]);
        for (int c = 0; c < dst.ncomp; ++c) dst.data[od + c] = src.data[os + c];
      });
  return;
#endif
  // GPUs: one flat index, consecutive threads on consecutive destination elements.
  Kokkos::parallel_for(
      "fft::local_copy", LongPolicy(0, box.size()), KOKKOS_LAMBDA(long long t) {
        int i[3];
        i[a0] = static_cast<int>(t % n0);
        const long long r = t / n0;
        i[a1] = static_cast<int>(r % n1);
        i[a2] = static_cast<int>(r / n1);
        const long long os = element_offset(src, lx + i[0], ly + i[1], lz + i[2]);
        const long long od = element_offset(dst, lx + i[0], ly + i[1], lz + i[2]);
        for (int c = 0; c < dst.ncomp; ++c) dst.data[od + c] = src.data[os + c];
      });
}

// The non-empty overlaps of `mine` with every other rank's box, as segments of one buffer.
void plan_side(const Box3& mine, const std::vector<Box3>& theirs, int me, int ncomp, std::vector<int>& ranks,
               std::vector<long long>& offs, long long& total, SegView& segs, const char* label) {
  std::vector<Segment> host;
  total = 0;
  for (int r = 0; r < static_cast<int>(theirs.size()); ++r) {
    if (r == me) continue;
    const Box3 b = intersect(mine, theirs[r]);
    if (b.size() == 0) continue;
    STRATUS_REQUIRE(b.size() * ncomp <= INT_MAX,
                    "fft remap: a message of " << b.size() * ncomp << " doubles exceeds MPI's int count");
    ranks.push_back(r);
    offs.push_back(total);
    host.push_back(Segment{{b.lo[0], b.lo[1], b.lo[2]}, {b.extent(0), b.extent(1), b.extent(2)}, total});
    total += b.size();
  }
  offs.push_back(total);
  segs = SegView(std::string(label), host.size());
  auto h = Kokkos::create_mirror_view(segs);
  for (std::size_t s = 0; s < host.size(); ++s) h(s) = host[s];
  Kokkos::deep_copy(segs, h);
}

}  // namespace

BoxRemap::BoxRemap(const std::vector<Box3>& from, const std::vector<Box3>& to, int me, int ncomp, int tag)
    : ncomp_(ncomp), tag_(tag) {
  STRATUS_REQUIRE(from.size() == to.size() && me >= 0 && me < static_cast<int>(from.size()),
                  "fft remap: box lists of " << from.size() << " and " << to.size() << " ranks, rank " << me);
  self_ = intersect(from[me], to[me]);
  plan_side(from[me], to, me, ncomp, send_rank_, send_off_, send_total_, send_seg_, "fft::send_segments");
  plan_side(to[me], from, me, ncomp, recv_rank_, recv_off_, recv_total_, recv_seg_, "fft::recv_segments");
  requests_.resize(send_rank_.size() + recv_rank_.size());
}

void BoxRemap::execute(const ArrayAccess& src, const ArrayAccess& dst, StagedBuffers& bufs, MPI_Comm comm) {
  const int nsend = static_cast<int>(send_rank_.size()), nrecv = static_cast<int>(recv_rank_.size());
  if (nsend > 0) pack(send_seg_, nsend, send_total_, src, bufs.send());
  if (self_.size() > 0) local_copy(self_, src, dst);
  // The messages count as communication in the run's phase table (the transforms as their caller's phase).
  ScopedPhase phase(Phase::communication);
  // stage_send fences: the previous unpack has finished with recv() before any message may land there.
  bufs.stage_send(0, send_doubles());
  int q = 0;
  for (int i = 0; i < nrecv; ++i)
    bufs.irecv(recv_off_[i] * ncomp_, static_cast<int>((recv_off_[i + 1] - recv_off_[i]) * ncomp_), recv_rank_[i], tag_,
               comm, &requests_[q++]);
  for (int i = 0; i < nsend; ++i)
    bufs.isend(send_off_[i] * ncomp_, static_cast<int>((send_off_[i + 1] - send_off_[i]) * ncomp_), send_rank_[i], tag_,
               comm, &requests_[q++]);
  if (q > 0) STRATUS_MPI_CHECK(MPI_Waitall(q, requests_.data(), MPI_STATUSES_IGNORE));
  bufs.unstage_recv(0, recv_doubles());
  if (nrecv > 0) unpack(recv_seg_, nrecv, recv_total_, bufs.recv(), dst);
}

}  // namespace stratus::fft::detail
