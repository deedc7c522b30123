// DistributedFFT against a direct DFT. The real grid is a pseudo-random field of the global index, the same
// on every rank, and each rank computes the exact sums for the wave numbers it holds, so the reference does
// not depend on the rank count or on the FFT's decomposition. Grids that divide over no rank count
// (6x5x7, 8x4x3, 9x10x11) and degenerate ones (1x7x1, 1x1x6, 5x1x1, 2x1x3, 1x1x1), each under four brick
// layouts: an even split over a px x py x pz rank grid, an uneven one (quadratic cuts, some bricks empty),
// one with a rank owning an empty box, and everything on rank 0. Checked:
// - forward to 1e-12 of the largest coefficient, the spectral points covering the half spectrum once,
//   the input untouched;
// - backward(forward(f)) = N f to 1e-13, the spectrum untouched;
// - backward of one mode (kx inside the half spectrum, and Hermitian pairs at kx = 0 and kx = nx/2) is the
//   analytic cosine;
// - spectral arrays that start one element into an allocation (not the planned alignment) work alike;
// - Parseval (the half spectrum weighted 2 where its conjugate is not stored);
// - the same spectrum on two halves of the ranks at once (sub-communicators of different sizes);
// - bricks that do not tile the grid, or a brick of the wrong extent, are errors on every rank;
// - backend() and describe().
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "fft/distributed_fft.hpp"
#include "mpi_world.hpp"

using namespace stratus;
using fft::Box3;
using fft::Complex;
using fft::DistributedFFT;

namespace {

constexpr double kPi = 3.14159265358979323846;

struct Layout {
  std::string name;
  std::vector<Box3> boxes;  // one per rank
};

Box3 make_box(int x0, int x1, int y0, int y1, int z0, int z1) {
  Box3 b;
  b.lo = Int3{x0, y0, z0};
  b.hi = Int3{x1, y1, z1};
  return b;
}

Int3 rank_grid(int P) {
  int dims[3] = {0, 0, 0};
  MPI_Dims_create(P, 3, dims);
  return Int3{dims[0], dims[1], dims[2]};
}

// Bricks of a px x py x pz rank grid, cut c(i) of axis d at cut(n, p, i).
template <class Cut>
std::vector<Box3> grid_bricks(const Int3& n, const Int3& p, Cut cut) {
  std::vector<Box3> out;
  for (int r = 0; r < p[0] * p[1] * p[2]; ++r) {
    const int i[3] = {r % p[0], (r / p[0]) % p[1], r / (p[0] * p[1])};
    Box3 b;
    for (int d = 0; d < 3; ++d) {
      b.lo[d] = cut(n[d], p[d], i[d]);
      b.hi[d] = cut(n[d], p[d], i[d] + 1);
    }
    out.push_back(b);
  }
  return out;
}

std::vector<Layout> layouts(int P, const Int3& n) {
  std::vector<Layout> out;
  const Int3 p = rank_grid(P);
  out.push_back({"even", grid_bricks(n, p, [](int m, int q, int i) { return static_cast<int>(1LL * i * m / q); })});
  // The rank grid turned around and quadratic cuts: small (or empty) bricks first, large ones last.
  out.push_back({"uneven", grid_bricks(n, Int3{p[2], p[1], p[0]}, [](int m, int q, int i) {
                   return static_cast<int>(1LL * i * i * m / (q * q));
                 })});
  Layout empty{"one empty box", {}};
  if (P == 1) {
    empty.boxes.push_back(make_box(0, n[0], 0, n[1], 0, n[2]));
  } else {  // slabs along z for ranks 0 .. P-2; the last rank's box has no extent in x
    for (int r = 0; r < P - 1; ++r)
      empty.boxes.push_back(make_box(0, n[0], 0, n[1], static_cast<int>(1LL * r * n[2] / (P - 1)),
                                     static_cast<int>(1LL * (r + 1) * n[2] / (P - 1))));
    empty.boxes.push_back(make_box(n[0] / 2, n[0] / 2, 0, n[1], 0, n[2]));
  }
  out.push_back(empty);
  Layout gathered{"all on rank 0", {make_box(0, n[0], 0, n[1], 0, n[2])}};
  for (int r = 1; r < P; ++r) gathered.boxes.push_back(Box3{});
  out.push_back(gathered);
  return out;
}

// The field: a value in [-1, 1) per global point (splitmix64 of its index), plus a mean.
double field(int x, int y, int z) {
  std::uint64_t k = (static_cast<std::uint64_t>(z) * 1000003ULL + y) * 1000033ULL + x;
  std::uint64_t h = k * 0x9E3779B97F4A7C15ULL + 0x94D049BB133111EBULL;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
  h ^= h >> 31;
  return 0.25 + 2.0 * static_cast<double>(h >> 11) / 9007199254740992.0 - 1.0;
}

fft::RealBrick make_brick(const Box3& b) {
  return fft::RealBrick("test::brick", b.extent(2), b.extent(1), b.extent(0));
}

fft::RealBrick filled_brick(const Box3& b) {
  fft::RealBrick v = make_brick(b);
  auto h = Kokkos::create_mirror_view(v);
  for (int k = 0; k < b.extent(2); ++k)
    for (int j = 0; j < b.extent(1); ++j)
      for (int i = 0; i < b.extent(0); ++i) h(k, j, i) = field(b.lo[0] + i, b.lo[1] + j, b.lo[2] + k);
  Kokkos::deep_copy(v, h);
  return v;
}

// exp(-2 pi i j / n) for j = 0 .. n-1 (the angle reduced exactly first).
std::vector<std::complex<double>> twiddles(int n) {
  std::vector<std::complex<double>> w(n);
  for (int j = 0; j < n; ++j) w[j] = std::polar(1.0, -2.0 * kPi * j / n);
  return w;
}

// The direct DFT at the wave numbers this rank holds.
std::vector<std::complex<double>> direct_dft(const Int3& n, const fft::SpectralMap& map, long long count) {
  const auto wx = twiddles(n[0]), wy = twiddles(n[1]), wz = twiddles(n[2]);
  std::vector<double> f(static_cast<std::size_t>(n[0]) * n[1] * n[2]);
  for (int z = 0; z < n[2]; ++z)
    for (int y = 0; y < n[1]; ++y)
      for (int x = 0; x < n[0]; ++x) f[(static_cast<std::size_t>(z) * n[1] + y) * n[0] + x] = field(x, y, z);
  std::vector<std::complex<double>> out(count);
  for (long long m = 0; m < count; ++m) {
    int kx, ky, kz;
    map.index(m, kx, ky, kz);
    std::complex<double> s = 0.0;
    for (int z = 0; z < n[2]; ++z)
      for (int y = 0; y < n[1]; ++y) {
        const std::complex<double> wyz = wy[(1LL * ky * y) % n[1]] * wz[(1LL * kz * z) % n[2]];
        for (int x = 0; x < n[0]; ++x)
          s += f[(static_cast<std::size_t>(z) * n[1] + y) * n[0] + x] * (wx[(1LL * kx * x) % n[0]] * wyz);
      }
    out[m] = s;
  }
  return out;
}

double global_max(double v, MPI_Comm comm = MPI_COMM_WORLD) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, comm);
  return v;
}

double global_sum(double v, MPI_Comm comm = MPI_COMM_WORLD) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, comm);
  return v;
}

// Largest |forward - direct DFT| and largest |direct DFT| over the ranks of comm.
std::pair<double, double> forward_error(DistributedFFT& f, const fft::SpectralPoints& out, MPI_Comm comm) {
  const auto ref = direct_dft(f.global(), f.spectral_map(), f.spectral_size());
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  double err = 0.0, scale = 0.0;
  for (long long m = 0; m < f.spectral_size(); ++m) {
    err = std::max(err, std::abs(std::complex<double>(h(m).real(), h(m).imag()) - ref[m]));
    scale = std::max(scale, std::abs(ref[m]));
  }
  return {global_max(err, comm), global_max(scale, comm)};
}

const std::vector<Int3> kGrids = {Int3{6, 5, 7}, Int3{8, 4, 3}, Int3{9, 10, 11}, Int3{1, 7, 1},
                                  Int3{1, 1, 6}, Int3{5, 1, 1}, Int3{2, 1, 3},   Int3{1, 1, 1}};

std::string grid_name(const Int3& n) {
  return std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]);
}

}  // namespace

TEST_CASE("forward matches the direct DFT and backward inverts it, for every brick layout", "[fft]") {
  const int P = test::world_size(), me = test::world_rank();
  for (const Int3& n : kGrids) {
    for (const Layout& lay : layouts(P, n)) {
      INFO("grid " << grid_name(n) << ", layout " << lay.name << ", " << P << " ranks");
      const Box3 mine = lay.boxes[me];
      DistributedFFT fft(MPI_COMM_WORLD, n, mine);
      REQUIRE(fft.global()[0] == n[0]);
      REQUIRE(fft.real_box().lo[2] == mine.lo[2]);
      const fft::SpectralMap map = fft.spectral_map();
      REQUIRE(fft.spectral_size() == 1LL * map.n[0] * map.n[1] * map.n[2]);

      // Every wave number of the half spectrum is held by exactly one rank.
      const int nxh = n[0] / 2 + 1;
      std::vector<int> held(static_cast<std::size_t>(nxh) * n[1] * n[2], 0);
      bool in_range = true;
      for (long long m = 0; m < fft.spectral_size(); ++m) {
        int kx, ky, kz;
        map.index(m, kx, ky, kz);
        if (kx < 0 || kx >= nxh || ky < 0 || ky >= n[1] || kz < 0 || kz >= n[2]) {
          in_range = false;
          continue;
        }
        ++held[(static_cast<std::size_t>(kx) * n[1] + ky) * n[2] + kz];
      }
      REQUIRE(in_range);
      MPI_Allreduce(MPI_IN_PLACE, held.data(), static_cast<int>(held.size()), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      REQUIRE(std::count(held.begin(), held.end(), 1) == static_cast<long>(held.size()));

      const fft::RealBrick in = filled_brick(mine);
      fft::SpectralPoints spec("test::spec", fft.spectral_size());
      fft.forward(in, spec);
      const auto err = forward_error(fft, spec, MPI_COMM_WORLD);
      CAPTURE(err.first, err.second);
      REQUIRE(err.second > 0.0);
      REQUIRE(err.first <= 1e-12 * err.second);

      // forward left its input alone (bit for bit).
      auto in_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in);
      long long changed = 0;
      for (int k = 0; k < mine.extent(2); ++k)
        for (int j = 0; j < mine.extent(1); ++j)
          for (int i = 0; i < mine.extent(0); ++i)
            changed += in_h(k, j, i) != field(mine.lo[0] + i, mine.lo[1] + j, mine.lo[2] + k);
      REQUIRE(changed == 0);

      // Round trip: backward(forward(f)) = N f; backward leaves the spectrum alone.
      auto spec_before = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), spec);
      fft::RealBrick back = make_brick(mine);
      fft.backward(spec, back);
      auto spec_after = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), spec);
      for (long long m = 0; m < fft.spectral_size(); ++m)
        changed += spec_after(m).real() != spec_before(m).real() || spec_after(m).imag() != spec_before(m).imag();
      REQUIRE(changed == 0);
      auto back_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
      const double N = 1.0 * n[0] * n[1] * n[2];
      double rt = 0.0, fmax = 0.0;
      for (int k = 0; k < mine.extent(2); ++k)
        for (int j = 0; j < mine.extent(1); ++j)
          for (int i = 0; i < mine.extent(0); ++i) {
            const double f = field(mine.lo[0] + i, mine.lo[1] + j, mine.lo[2] + k);
            rt = std::max(rt, std::abs(back_h(k, j, i) - N * f));
            fmax = std::max(fmax, std::abs(f));
          }
      rt = global_max(rt);
      fmax = global_max(fmax);
      CAPTURE(rt, fmax);
      REQUIRE(rt <= 1e-13 * N * fmax);
    }
  }
}

TEST_CASE("backward of a single mode is the analytic cosine", "[fft]") {
  const int P = test::world_size(), me = test::world_rank();
  const Complex A(0.75, -0.4);
  for (const Int3& n : {Int3{6, 5, 7}, Int3{9, 10, 11}, Int3{8, 4, 3}}) {
    const Layout lay = layouts(P, n)[1];
    const Box3 mine = lay.boxes[me];
    DistributedFFT fft(MPI_COMM_WORLD, n, mine);
    const fft::SpectralMap map = fft.spectral_map();
    struct Mode {
      const char* what;
      int k[3];
      bool pair;  // store the conjugate at (kx, -ky, -kz) too
    };
    std::vector<Mode> modes = {{"kx inside the half spectrum", {1, 2 % n[1], n[2] - 1}, false},
                               {"Hermitian pair at kx = 0", {0, 1, 2}, true}};
    if (n[0] % 2 == 0) modes.push_back({"Hermitian pair at kx = nx/2", {n[0] / 2, n[1] - 1, 1}, true});
    for (const Mode& mode : modes) {
      INFO("grid " << grid_name(n) << ", " << mode.what);
      const int k0[3] = {mode.k[0], mode.k[1], mode.k[2]};
      const int k1[3] = {mode.k[0], (n[1] - mode.k[1]) % n[1], (n[2] - mode.k[2]) % n[2]};
      fft::SpectralPoints spec("test::mode", fft.spectral_size());
      auto h = Kokkos::create_mirror_view(spec);
      for (long long m = 0; m < fft.spectral_size(); ++m) {
        int kx, ky, kz;
        map.index(m, kx, ky, kz);
        h(m) = Complex(0.0, 0.0);
        if (kx == k0[0] && ky == k0[1] && kz == k0[2]) h(m) = A;
        if (mode.pair && kx == k1[0] && ky == k1[1] && kz == k1[2]) h(m) = Kokkos::conj(A);
      }
      Kokkos::deep_copy(spec, h);
      fft::RealBrick out = make_brick(mine);
      fft.backward(spec, out);
      auto o = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      double err = 0.0;
      for (int k = 0; k < mine.extent(2); ++k)
        for (int j = 0; j < mine.extent(1); ++j)
          for (int i = 0; i < mine.extent(0); ++i) {
            const int x = mine.lo[0] + i, y = mine.lo[1] + j, z = mine.lo[2] + k;
            const double th =
                2.0 * kPi *
                (static_cast<double>(k0[0] * x % n[0]) / n[0] + static_cast<double>(k0[1] * y % n[1]) / n[1] +
                 static_cast<double>(k0[2] * z % n[2]) / n[2]);
            const double expect = 2.0 * (A.real() * std::cos(th) - A.imag() * std::sin(th));
            err = std::max(err, std::abs(o(k, j, i) - expect));
          }
      err = global_max(err);
      CAPTURE(err);
      REQUIRE(err <= 1e-12);
    }
  }
}

TEST_CASE("spectral arrays that start at any complex element give the same results", "[fft]") {
  // Views into larger allocations, one element in: not the start the transforms were planned with (where
  // FFTW's SIMD alignment exceeds 16 bytes, the z transform then goes through its work array).
  const int P = test::world_size(), me = test::world_rank();
  const Int3 n{9, 10, 11};
  const Box3 mine = layouts(P, n)[0].boxes[me];
  DistributedFFT fft(MPI_COMM_WORLD, n, mine);
  const long long ns = fft.spectral_size();
  fft::SpectralPoints big("test::big", ns + 1);
  const fft::SpectralPoints spec = Kokkos::subview(big, std::make_pair(1LL, ns + 1));
  fft.forward(filled_brick(mine), spec);
  const auto err = forward_error(fft, spec, MPI_COMM_WORLD);
  CAPTURE(err.first, err.second);
  REQUIRE(err.first <= 1e-12 * err.second);
  fft::RealBrick back = make_brick(mine);
  fft.backward(spec, back);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
  double rt = 0.0;
  for (int k = 0; k < mine.extent(2); ++k)
    for (int j = 0; j < mine.extent(1); ++j)
      for (int i = 0; i < mine.extent(0); ++i)
        rt = std::max(rt, std::abs(h(k, j, i) - 990.0 * field(mine.lo[0] + i, mine.lo[1] + j, mine.lo[2] + k)));
  rt = global_max(rt);
  CAPTURE(rt);
  REQUIRE(rt <= 1e-13 * 990.0);
}

TEST_CASE("Parseval: N sum f^2 equals the sum of |F|^2 over the full spectrum", "[fft]") {
  const int P = test::world_size(), me = test::world_rank();
  for (const Int3& n : {Int3{6, 5, 7}, Int3{8, 4, 3}, Int3{9, 10, 11}, Int3{1, 7, 1}}) {
    INFO("grid " << grid_name(n));
    const Box3 mine = layouts(P, n)[0].boxes[me];
    DistributedFFT fft(MPI_COMM_WORLD, n, mine);
    fft::SpectralPoints spec("test::spec", fft.spectral_size());
    fft.forward(filled_brick(mine), spec);
    double real_sum = 0.0;
    for (int k = mine.lo[2]; k < mine.lo[2] + mine.extent(2); ++k)
      for (int j = mine.lo[1]; j < mine.lo[1] + mine.extent(1); ++j)
        for (int i = mine.lo[0]; i < mine.lo[0] + mine.extent(0); ++i) real_sum += field(i, j, k) * field(i, j, k);
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), spec);
    const fft::SpectralMap map = fft.spectral_map();
    double spec_sum = 0.0;
    for (long long m = 0; m < fft.spectral_size(); ++m) {
      int kx, ky, kz;
      map.index(m, kx, ky, kz);
      const bool self_conjugate_column = kx == 0 || (n[0] % 2 == 0 && kx == n[0] / 2);
      spec_sum += (self_conjugate_column ? 1.0 : 2.0) * Kokkos::abs(h(m)) * Kokkos::abs(h(m));
    }
    const double N = 1.0 * n[0] * n[1] * n[2];
    real_sum = global_sum(real_sum) * N;
    spec_sum = global_sum(spec_sum);
    CAPTURE(real_sum, spec_sum);
    REQUIRE(real_sum > 0.0);
    REQUIRE(std::abs(real_sum - spec_sum) <= 1e-12 * real_sum);
  }
}

TEST_CASE("the spectrum does not depend on the rank count", "[fft]") {
  // Two sub-communicators of different sizes (at 3 ranks: 2 and 1) transform the same grid at once, each
  // against the same direct DFT.
  const int P = test::world_size(), me = test::world_rank();
  const int half = (P + 1) / 2;
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, me < half ? 0 : 1, me, &sub);
  int sp = 1, sr = 0;
  MPI_Comm_size(sub, &sp);
  MPI_Comm_rank(sub, &sr);
  for (const Int3& n : {Int3{9, 10, 11}, Int3{7, 5, 6}}) {
    INFO("grid " << grid_name(n) << ", " << sp << " of " << P << " ranks");
    const Box3 mine = layouts(sp, n)[1].boxes[sr];
    DistributedFFT fft(sub, n, mine);
    fft::SpectralPoints spec("test::spec", fft.spectral_size());
    fft.forward(filled_brick(mine), spec);
    const auto err = forward_error(fft, spec, sub);
    const double worst = global_max(err.first / err.second);  // both halves agree on the verdict
    CAPTURE(worst);
    REQUIRE(worst <= 1e-12);
    REQUIRE(fft.describe().find("over " + std::to_string(sp) + " ranks") != std::string::npos);
  }
  MPI_Comm_free(&sub);
}

TEST_CASE("bricks that do not tile the grid, and bricks of the wrong extent, are errors on every rank", "[fft]") {
  const int P = test::world_size(), me = test::world_rank();
  const Int3 n{6, 5, 7};
  // P > 1: every rank claims the whole grid (overlap); P = 1: a box one plane short (a hole).
  const Box3 bad = P > 1 ? make_box(0, 6, 0, 5, 0, 7) : make_box(0, 6, 0, 5, 0, 6);
  REQUIRE_THROWS_AS(DistributedFFT(MPI_COMM_WORLD, n, bad), Error);
  // Out of the grid.
  const Box3 outside = me == 0 ? make_box(0, 6, 0, 5, 1, 8) : Box3{};
  REQUIRE_THROWS_AS(DistributedFFT(MPI_COMM_WORLD, n, outside), Error);

  const Box3 mine = layouts(P, n)[0].boxes[me];
  DistributedFFT fft(MPI_COMM_WORLD, n, mine);
  fft::SpectralPoints spec("test::spec", fft.spectral_size());
  fft::RealBrick wrong("test::wrong", mine.extent(2) + 1, mine.extent(1), mine.extent(0));
  REQUIRE_THROWS_AS(fft.forward(wrong, spec), Error);
  fft::SpectralPoints short_spec("test::short", fft.spectral_size() + 1);
  REQUIRE_THROWS_AS(fft.backward(short_spec, make_brick(mine)), Error);
}

TEST_CASE("backend and description", "[fft]") {
  const int P = test::world_size(), me = test::world_rank();
#ifdef STRATUS_HAVE_CUFFT
  const std::string expect = "cufft";
#else
  const std::string expect = "fftw3";
#endif
  REQUIRE(std::string(DistributedFFT::backend()) == expect);
  const Int3 n{9, 10, 11};
  DistributedFFT fft(MPI_COMM_WORLD, n, layouts(P, n)[0].boxes[me], HaloTransport::gpu_aware);
  const std::string d = fft.describe();
  CAPTURE(d);
  REQUIRE(d.rfind("pencils ", 0) == 0);
  REQUIRE(d.find(" over " + std::to_string(P) + " ranks, 9 x 10 x 11, " + expect) != std::string::npos);
}
