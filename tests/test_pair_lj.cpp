// lj/cut and the generic pair compute (physics/md/pair_lj.*): forces, energy and virial against a
// brute-force sum over minimum images, with full and with half neighbor lists; forces equal -dE/dx by
// central finite differences; the shifted potential vanishes at the cutoff; mixing rules. One rank, a
// periodic box whose images the test makes itself.
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "md/pair_lj.hpp"

using namespace stratus;
using namespace stratus::md;

namespace {

struct System {
  double L = 0.0;
  std::vector<std::array<double, 3>> x;
  std::vector<int> type;
};

// fcc 5x5x5 at reduced density 0.8442, displaced randomly by up to 0.1, two types.
System make_system() {
  System s;
  const int n = 5;
  const double a = std::cbrt(4.0 / 0.8442);
  s.L = n * a;
  const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        for (const auto& b : basis) {
          s.x.push_back({(i + b[0]) * a + u(rng), (j + b[1]) * a + u(rng), (k + b[2]) * a + u(rng)});
          for (double& c : s.x.back()) c = std::fmod(c + s.L, s.L);
          s.type.push_back(1 + static_cast<int>(s.x.size() % 2));
        }
  return s;
}

LJSpec make_spec(bool shift) {
  LJSpec spec(2, 2.5);
  spec.set_type(1, 1.0, 1.0);
  spec.set_type(2, 0.5, 0.88);
  spec.set_pair(1, 2, 1.5, 0.8, 2.0);  // explicit, with its own cutoff
  spec.mix(Mixing::geometric);
  spec.shift = shift;
  return spec;
}

// Brute force over minimum images: forces, total energy, virial.
struct Ref {
  std::vector<std::array<double, 3>> f;
  double e = 0.0, w = 0.0;
};
Ref brute(const System& s, LJSpec spec) {
  Ref r;
  const std::size_t n = s.x.size();
  r.f.assign(n, {0.0, 0.0, 0.0});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      double d[3], rsq = 0.0;
      for (int c = 0; c < 3; ++c) {
        d[c] = s.x[i][c] - s.x[j][c];
        d[c] -= s.L * std::round(d[c] / s.L);
        rsq += d[c] * d[c];
      }
      const int ti = s.type[i], tj = s.type[j];
      const double rc = spec.rc(ti, tj);
      if (rsq >= rc * rc) continue;
      const double e = spec.eps(ti, tj), sg = spec.sig(ti, tj);
      const double sr6 = std::pow(sg * sg / rsq, 3);
      const double src6 = std::pow(sg / rc, 6);
      r.e += 4.0 * e * (sr6 * sr6 - sr6) - (spec.shift ? 4.0 * e * (src6 * src6 - src6) : 0.0);
      const double fp = 24.0 * e * (2.0 * sr6 * sr6 - sr6) / rsq;
      r.w += rsq * fp;
      for (int c = 0; c < 3; ++c) {
        r.f[i][c] += d[c] * fp;
        r.f[j][c] -= d[c] * fp;
      }
    }
  return r;
}

struct Result {
  std::vector<std::array<double, 3>> f;
  PairResult pr;
};

// Owned atoms plus every periodic image within the list cutoff of the box, then the pair compute.
Result compute(const System& s, const LJSpec& spec, bool half, PairPath path = PairPath::best, bool energy = true,
               ListLayout layout = ListLayout::automatic) {
  const double skin = 0.3, rcl = spec.max_cutoff() + skin;
  std::vector<std::array<double, 3>> all = s.x;
  std::vector<int> types = s.type;
  const int n = static_cast<int>(s.x.size());
  for (int i = 0; i < n; ++i)
    for (int sx = -1; sx <= 1; ++sx)
      for (int sy = -1; sy <= 1; ++sy)
        for (int sz = -1; sz <= 1; ++sz) {
          if (sx == 0 && sy == 0 && sz == 0) continue;
          const std::array<double, 3> p{s.x[i][0] + sx * s.L, s.x[i][1] + sy * s.L, s.x[i][2] + sz * s.L};
          bool near = true;
          for (double c : p) near = near && c >= -rcl && c < s.L + rcl;
          if (near) {
            all.push_back(p);
            types.push_back(s.type[i]);
          }
        }
  const int total = static_cast<int>(all.size());
  ParticleVec x("x", total), f("f", total);
  ParticleInt t("type", total);
  auto hx = Kokkos::create_mirror_view(x);
  auto ht = Kokkos::create_mirror_view(t);
  for (int i = 0; i < total; ++i) {
    for (int c = 0; c < 3; ++c) hx(i, c) = all[i][c];
    ht(i) = types[i];
  }
  Kokkos::deep_copy(x, hx);
  Kokkos::deep_copy(t, ht);
  NeighborList list(NeighborParams{spec.max_cutoff(), skin, half, false, false, layout});
  const double pad = 1e-9;
  list.build(x, n, total - n, Real3{-rcl - pad, -rcl - pad, -rcl - pad},
             Real3{s.L + rcl + pad, s.L + rcl + pad, s.L + rcl + pad});
  Result r;
  r.pr = compute_pair(LJCoeffs::from_spec(spec), x, t, list, f, nullptr, energy, path);
  auto hf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
  for (int i = 0; i < n; ++i) r.f.push_back({hf(i, 0), hf(i, 1), hf(i, 2)});
  return r;
}

// Two computes of the same pairs that may differ only in the order of a row's sums: forces within 1e-14 of
// the largest, energy and virial to 1e-14 (and forces not all tiny).
void check_agree(const Result& a, const Result& b) {
  double fmax = 0.0, worst = 0.0;
  for (std::size_t i = 0; i < b.f.size(); ++i)
    for (int c = 0; c < 3; ++c) {
      fmax = std::max(fmax, std::abs(b.f[i][c]));
      worst = std::max(worst, std::abs(a.f[i][c] - b.f[i][c]));
    }
  CHECK(a.f.size() == b.f.size());
  CHECK(fmax > 1.0);
  CHECK(worst <= 1e-14 * fmax);
  CHECK(a.pr.energy == Approx(b.pr.energy).epsilon(1e-14));
  CHECK(a.pr.virial == Approx(b.pr.virial).epsilon(1e-14));
}

}  // namespace

TEST_CASE("lj/cut forces, energy and virial equal the brute-force sum with full and half lists", "[md][pair]") {
  const System s = make_system();
  for (bool shift : {false, true}) {
    const LJSpec spec = make_spec(shift);
    const Ref ref = brute(s, spec);
    double fmax = 0.0;
    for (const auto& fi : ref.f)
      for (double c : fi) fmax = std::max(fmax, std::abs(c));
    for (bool half : {false, true})
      for (const ListLayout layout : {ListLayout::atoms, ListLayout::slots}) {
        INFO("shift " << shift << ", half list " << half << ", slot-major rows " << (layout == ListLayout::slots));
        const Result r = compute(s, spec, half, PairPath::best, true, layout);
        double worst = 0.0;
        for (std::size_t i = 0; i < s.x.size(); ++i)
          for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(r.f[i][c] - ref.f[i][c]));
        CHECK(worst <= 1e-12 * fmax);
        CHECK(r.pr.energy == Approx(ref.e).epsilon(1e-12));
        CHECK(r.pr.virial == Approx(ref.w).epsilon(1e-12));
        // Newton's third law: the total force vanishes.
        double sum[3] = {0, 0, 0};
        for (const auto& fi : r.f)
          for (int c = 0; c < 3; ++c) sum[c] += fi[c];
        for (double c : sum) CHECK(std::abs(c) <= 1e-11 * fmax);
      }
  }
}

// On a CPU with AVX-512 or AVX2 the default row is the explicit SIMD one (md/pair_simd.hpp); it must agree with the
// portable loop that GPUs run: per pair the same operations, only the order of a row's sums differs. With
// one type and with two (coefficient gathers), full and half lists, with and without the energy. Registered
// also with two threads, where the half list adds the partners' shares through the ScatterView.
TEST_CASE("the SIMD lj/cut row agrees with the portable loop", "[md][pair]") {
  const System s = make_system();
  LJSpec one(2, 2.5);  // two types alike: the uniform form
  one.shift = true;
  CHECK(LJCoeffs::from_spec(one).uniform);
  CHECK(!LJCoeffs::from_spec(make_spec(true)).uniform);
  for (const LJSpec& spec : {one, make_spec(true)})
    for (bool half : {false, true})
      for (bool energy : {false, true}) {
        INFO("uniform " << LJCoeffs::from_spec(spec).uniform << ", half list " << half << ", energy " << energy);
        const Result a = compute(s, spec, half, PairPath::best, energy);
        const Result b = compute(s, spec, half, PairPath::portable, energy);
        check_agree(a, b);
        if (!energy) CHECK(a.pr.energy == 0.0);
      }
}

// The two layouts of the neighbor list hold the same partners in the same order: the portable loop gives
// the same forces from either, to rounding (a GPU thread sums a row in order, the same bits from both; a
// CPU's vectorised row splits its sums over lanes differently for a strided row).
TEST_CASE("both neighbor-list layouts give the same forces", "[md][pair]") {
  const System s = make_system();
  for (bool half : {false, true}) {
    INFO("half list " << half);
    const Result a = compute(s, make_spec(true), half, PairPath::portable, true, ListLayout::atoms);
    const Result b = compute(s, make_spec(true), half, PairPath::portable, true, ListLayout::slots);
    check_agree(a, b);
  }
}

TEST_CASE("lj/cut forces are minus the energy gradient (central differences)", "[md][pair]") {
  System s = make_system();
  const LJSpec spec = make_spec(true);  // shifted: the energy is continuous at the cutoff
  const Result r = compute(s, spec, false);
  const double h = 1e-6;
  for (int i : {0, 17, 123, 499}) {
    for (int c = 0; c < 3; ++c) {
      System p = s, m = s;
      p.x[i][c] += h;
      m.x[i][c] -= h;
      const double dEdx = (brute(p, spec).e - brute(m, spec).e) / (2.0 * h);
      INFO("atom " << i << " component " << c << ": F " << r.f[i][c] << ", -dE/dx " << -dEdx);
      CHECK(r.f[i][c] == Approx(-dEdx).epsilon(1e-6).margin(1e-7));
    }
  }
}

TEST_CASE("the shifted potential vanishes at the cutoff; mixing rules", "[md][pair]") {
  LJSpec spec(2, 2.5);
  spec.set_type(1, 1.0, 1.0);
  spec.set_type(2, 4.0, 2.0);
  spec.shift = true;
  spec.mix(Mixing::geometric);
  CHECK(spec.eps(1, 2) == Approx(2.0));
  CHECK(spec.sig(1, 2) == Approx(std::sqrt(2.0)));
  spec.mix(Mixing::arithmetic);
  CHECK(spec.sig(2, 1) == Approx(1.5));
  const LJCoeffs c = LJCoeffs::from_spec(spec);
  double e_in = 0.0, e_min = 0.0;
  Kokkos::parallel_reduce(
      "test::lj_cutoff", 1, KOKKOS_LAMBDA(int, double& v) { v += c.energy(1, 1, 2.5 * 2.5 * (1.0 - 1e-12)); }, e_in);
  Kokkos::parallel_reduce(
      "test::lj_minimum", 1, KOKKOS_LAMBDA(int, double& v) { v += c.energy(1, 1, std::pow(2.0, 1.0 / 3.0)); }, e_min);
  CHECK(std::abs(e_in) < 1e-10);
  const double shift = 4.0 * (std::pow(2.5, -12) - std::pow(2.5, -6));
  CHECK(e_min == Approx(-1.0 - shift).epsilon(1e-12));  // the well depth, shifted
  CHECK_THROWS(LJSpec(0, 2.5));
  CHECK_THROWS(spec.set_pair(1, 3, 1.0, 1.0));
}
