// DistributedFFT: the pencil grid, the boxes of every stage on every rank, six remaps (three each way) and
// six line transforms, all made in the constructor. Two work arrays a and b of the largest stage hold the
// pencils; the stages alternate between them:
//   forward:  brick -> a (x, real) -r2c-> b (x) -> a (y) -c2c-> a -> b (z) -c2c-> out
//   backward: in -c2c-> b (z) -> a (y) -c2c-> a -> b (x) -c2r-> a (x, real) -> brick
// Pencil layouts (rank r at (r % p1, r / p1) of the p1 x p2 grid): x-pencils split y over p1 and z over p2,
// y-pencils x over p1 and z over p2, z-pencils x over p1 and y over p2, so x <-> y moves data among the
// ranks of one z slab and y <-> z among those of one x slab. Memory order: x-pencils (z, y, x), y-pencils
// (z, x, y), z-pencils (x, y, z), each with its transform direction contiguous.
#include "fft/distributed_fft.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "core/error.hpp"
#include "fft/line_fft.hpp"
#include "fft/remap.hpp"

namespace stratus::fft {

namespace {

using detail::ArrayAccess;
using detail::BoxRemap;
using detail::LineFFT;

// Part i of n points split into p nearly equal parts (empty parts when p > n).
void split(int n, int p, int i, int& lo, int& hi) {
  lo = static_cast<int>(static_cast<long long>(i) * n / p);
  hi = static_cast<int>(static_cast<long long>(i + 1) * n / p);
}

// The pencil grid p1 x p2 = P that leaves the fewest ranks without a pencil over the three stages (ties:
// the squarest, p1 >= p2).
void choose_grid(int P, const Int3& n, int& p1, int& p2) {
  const long long nxh = n[0] / 2 + 1, ny = n[1], nz = n[2];
  long long best = -1;
  int best_gap = 0;
  for (int a = 1; a <= P; ++a) {
    if (P % a != 0) continue;
    const long long b = P / a;
    const long long busy = std::min<long long>(ny, a) * std::min(nz, b) +
                           std::min(nxh, static_cast<long long>(a)) * std::min(nz, b) +
                           std::min(nxh, static_cast<long long>(a)) * std::min(ny, b);
    const int gap = std::abs(a - static_cast<int>(b));
    if (busy > best || (busy == best && (gap < best_gap || (gap == best_gap && a > p1)))) {
      best = busy;
      best_gap = gap;
      p1 = a;
      p2 = static_cast<int>(b);
    }
  }
}

ArrayAccess access(double* data, const Box3& box, const int order[3], int ncomp) {
  ArrayAccess a;
  a.data = data;
  for (int d = 0; d < 3; ++d) a.lo[d] = box.lo[d];
  detail::packed_strides(box, order, a.stride);
  a.ncomp = ncomp;
  return a;
}

void copy_doubles(const double* src, double* dst, long long n) {
  Kokkos::parallel_for(
      "fft::copy", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long long>>(0, n),
      KOKKOS_LAMBDA(long long i) { dst[i] = src[i]; });
}

// A duplicate of the caller's communicator, freed with its owner (also when a constructor throws).
struct OwnedComm {
  MPI_Comm comm = MPI_COMM_NULL;
  OwnedComm() = default;
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  ~OwnedComm() {
    int fin = 0;
    MPI_Finalized(&fin);
    if (comm != MPI_COMM_NULL && !fin) MPI_Comm_free(&comm);
  }
};

constexpr int kOrderX[3] = {0, 1, 2};  // x contiguous, then y, then z
constexpr int kOrderY[3] = {1, 0, 2};  // y contiguous, then x, then z
constexpr int kOrderZ[3] = {2, 1, 0};  // z contiguous, then y, then x

}  // namespace

struct DistributedFFT::Impl {
  OwnedComm dup;                  // our messages never meet the caller's
  MPI_Comm comm = MPI_COMM_NULL;  // dup.comm
  int size = 1, rank = 0, p1 = 1, p2 = 1;
  Int3 global{};
  Box3 real{};                  // as the caller gave it
  Box3 xr{}, xc{}, yp{}, zp{};  // this rank's x-pencil (real, then complex), y- and z-pencil
  BoxRemap to_x, to_y, to_z, from_z, from_y, from_x;
  StagedBuffers bufs;
  Buffer1D a, b;
  std::unique_ptr<LineFFT> r2c, c2r, fwd_y, bwd_y, fwd_z, bwd_z;

  Impl(MPI_Comm c, Int3 n, Box3 mine, HaloTransport transport) : global(n), real(mine), bufs("fft", transport) {
    STRATUS_REQUIRE(n[0] >= 1 && n[1] >= 1 && n[2] >= 1,
                    "fft: grid " << n[0] << " x " << n[1] << " x " << n[2] << " needs at least one point each way");
    STRATUS_MPI_CHECK(MPI_Comm_dup(c, &dup.comm));
    comm = dup.comm;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);

    // Every rank's brick; empty boxes become the canonical empty box.
    int my6[6] = {mine.lo[0], mine.lo[1], mine.lo[2], mine.hi[0], mine.hi[1], mine.hi[2]};
    std::vector<int> all6(6 * static_cast<std::size_t>(size));
    STRATUS_MPI_CHECK(MPI_Allgather(my6, 6, MPI_INT, all6.data(), 6, MPI_INT, comm));
    std::vector<Box3> bricks(size);
    for (int r = 0; r < size; ++r) {
      Box3 bx;
      for (int d = 0; d < 3; ++d) {
        bx.lo[d] = all6[6 * r + d];
        bx.hi[d] = all6[6 * r + 3 + d];
      }
      bricks[r] = bx.size() > 0 ? bx : Box3{};
    }
    check_tiling(bricks);

    choose_grid(size, n, p1, p2);
    const int nxh = n[0] / 2 + 1;
    std::vector<Box3> xrs(size), xcs(size), ys(size), zs(size);
    for (int r = 0; r < size; ++r) {
      const int i1 = r % p1, i2 = r / p1;
      Box3 x, y, z;
      split(n[1], p1, i1, x.lo[1], x.hi[1]);
      split(n[2], p2, i2, x.lo[2], x.hi[2]);
      x.lo[0] = 0;
      x.hi[0] = n[0];
      split(nxh, p1, i1, y.lo[0], y.hi[0]);
      y.lo[1] = 0;
      y.hi[1] = n[1];
      split(n[2], p2, i2, y.lo[2], y.hi[2]);
      split(nxh, p1, i1, z.lo[0], z.hi[0]);
      split(n[1], p2, i2, z.lo[1], z.hi[1]);
      z.lo[2] = 0;
      z.hi[2] = n[2];
      auto canon = [](const Box3& bx) { return bx.size() > 0 ? bx : Box3{}; };
      xrs[r] = canon(x);
      x.hi[0] = nxh;
      xcs[r] = canon(x);
      ys[r] = canon(y);
      zs[r] = canon(z);
    }
    xr = xrs[rank];
    xc = xcs[rank];
    yp = ys[rank];
    zp = zs[rank];

    to_x = BoxRemap(bricks, xrs, rank, 1, 1);
    to_y = BoxRemap(xcs, ys, rank, 2, 2);
    to_z = BoxRemap(ys, zs, rank, 2, 3);
    from_z = BoxRemap(zs, ys, rank, 2, 4);
    from_y = BoxRemap(ys, xcs, rank, 2, 5);
    from_x = BoxRemap(xrs, bricks, rank, 1, 6);
    long long ns = 0, nr = 0;
    for (const BoxRemap* m : {&to_x, &to_y, &to_z, &from_z, &from_y, &from_x}) {
      ns = std::max(ns, m->send_doubles());
      nr = std::max(nr, m->recv_doubles());
    }
    bufs.reserve(ns, nr);

    const long long work = std::max({xr.size(), 2 * xc.size(), 2 * yp.size(), 2 * zp.size(), 2LL});
    a = Buffer1D(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fft::a"), work);
    b = Buffer1D(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fft::b"), work);
    using K = LineFFT::Kind;
    const long long x_lines = static_cast<long long>(xr.extent(1)) * xr.extent(2);
    const long long y_lines = static_cast<long long>(yp.extent(0)) * yp.extent(2);
    const long long z_lines = static_cast<long long>(zp.extent(0)) * zp.extent(1);
    r2c = std::make_unique<LineFFT>(K::r2c, n[0], x_lines, a.data(), b.data());
    c2r = std::make_unique<LineFFT>(K::c2r, n[0], x_lines, b.data(), a.data());
    fwd_y = std::make_unique<LineFFT>(K::forward, n[1], y_lines, a.data(), a.data());
    bwd_y = std::make_unique<LineFFT>(K::backward, n[1], y_lines, a.data(), a.data());
    fwd_z = std::make_unique<LineFFT>(K::forward, n[2], z_lines, b.data(), a.data());
    bwd_z = std::make_unique<LineFFT>(K::backward, n[2], z_lines, a.data(), b.data());
  }

  // The bricks must lie in the grid, not overlap and cover it (agreed by all ranks before anyone throws).
  void check_tiling(const std::vector<Box3>& bricks) const {
    const Box3& mine = bricks[rank];
    bool ok = true;
    long long total = 0;
    for (int r = 0; r < size; ++r) {
      total += bricks[r].size();
      if (r != rank && detail::intersect(mine, bricks[r]).size() > 0) ok = false;
    }
    if (mine.size() > 0)
      for (int d = 0; d < 3; ++d) ok = ok && mine.lo[d] >= 0 && mine.hi[d] <= global[d];
    ok = ok && total == static_cast<long long>(global[0]) * global[1] * global[2];
    int mine_ok = ok ? 1 : 0, all_ok = 0;
    STRATUS_MPI_CHECK(MPI_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_MIN, comm));
    STRATUS_REQUIRE(all_ok == 1, "fft: the ranks' boxes do not tile the " << global[0] << " x " << global[1] << " x "
                                                                          << global[2] << " grid");
  }

  ArrayAccess brick_access(const RealBrick& v) const {
    STRATUS_REQUIRE(
        static_cast<int>(v.extent(0)) == real.extent(2) && static_cast<int>(v.extent(1)) == real.extent(1) &&
            static_cast<int>(v.extent(2)) == real.extent(0),
        "fft: the brick is " << v.extent(2) << " x " << v.extent(1) << " x " << v.extent(0) << " (x, y, z), its box "
                             << real.extent(0) << " x " << real.extent(1) << " x " << real.extent(2));
    ArrayAccess acc;
    acc.data = v.data();
    for (int d = 0; d < 3; ++d) acc.lo[d] = real.lo[d];
    acc.stride[0] = static_cast<long long>(v.stride(2));
    acc.stride[1] = static_cast<long long>(v.stride(1));
    acc.stride[2] = static_cast<long long>(v.stride(0));
    acc.ncomp = 1;
    return acc;
  }

  void check_spectrum(const SpectralPoints& v) const {
    STRATUS_REQUIRE(static_cast<long long>(v.extent(0)) == zp.size(),
                    "fft: " << v.extent(0) << " spectral points given, this rank holds " << zp.size());
  }
};

DistributedFFT::DistributedFFT(MPI_Comm comm, Int3 global, Box3 mine, HaloTransport transport)
    : impl_(std::make_unique<Impl>(comm, global, mine, transport)) {}

DistributedFFT::~DistributedFFT() = default;

const Int3& DistributedFFT::global() const { return impl_->global; }
const Box3& DistributedFFT::real_box() const { return impl_->real; }
long long DistributedFFT::spectral_size() const { return impl_->zp.size(); }

SpectralMap DistributedFFT::spectral_map() const {
  SpectralMap m;
  for (int d = 0; d < 3; ++d) {
    m.lo[d] = impl_->zp.lo[d];
    m.n[d] = impl_->zp.extent(d);
  }
  return m;
}

void DistributedFFT::forward(const RealBrick& in, const SpectralPoints& out) {
  Impl& s = *impl_;
  const ArrayAccess brick = s.brick_access(in);
  s.check_spectrum(out);
  double* a = s.a.data();
  double* b = s.b.data();
  s.to_x.execute(brick, access(a, s.xr, kOrderX, 1), s.bufs, s.comm);
  s.r2c->execute(a, b);
  s.to_y.execute(access(b, s.xc, kOrderX, 2), access(a, s.yp, kOrderY, 2), s.bufs, s.comm);
  s.fwd_y->execute(a, a);
  s.to_z.execute(access(a, s.yp, kOrderY, 2), access(b, s.zp, kOrderZ, 2), s.bufs, s.comm);
  double* o = reinterpret_cast<double*>(out.data());
  if (s.fwd_z->accepts(b, o)) {
    s.fwd_z->execute(b, o);
  } else {  // the caller's array has another alignment than the planned one
    s.fwd_z->execute(b, a);
    copy_doubles(a, o, 2 * s.zp.size());
  }
  ExecSpace().fence();
}

void DistributedFFT::backward(const SpectralPoints& in, const RealBrick& out) {
  Impl& s = *impl_;
  s.check_spectrum(in);
  const ArrayAccess brick = s.brick_access(out);
  double* a = s.a.data();
  double* b = s.b.data();
  // An out-of-place complex transform leaves its input as it was.
  double* i = reinterpret_cast<double*>(in.data());
  if (s.bwd_z->accepts(i, b)) {
    s.bwd_z->execute(i, b);
  } else {
    copy_doubles(i, a, 2 * s.zp.size());
    s.bwd_z->execute(a, b);
  }
  s.from_z.execute(access(b, s.zp, kOrderZ, 2), access(a, s.yp, kOrderY, 2), s.bufs, s.comm);
  s.bwd_y->execute(a, a);
  s.from_y.execute(access(a, s.yp, kOrderY, 2), access(b, s.xc, kOrderX, 2), s.bufs, s.comm);
  s.c2r->execute(b, a);
  s.from_x.execute(access(a, s.xr, kOrderX, 1), brick, s.bufs, s.comm);
  ExecSpace().fence();
}

const char* DistributedFFT::backend() { return LineFFT::backend(); }

std::string DistributedFFT::describe() const {
  const Impl& s = *impl_;
  std::ostringstream os;
  os << "pencils " << s.p1 << " x " << s.p2 << " over " << s.size << " ranks, " << s.global[0] << " x " << s.global[1]
     << " x " << s.global[2] << ", " << backend();
  return os.str();
}

}  // namespace stratus::fft
