// Unit tests of the molecular-dynamics set-up (physics/md/md_setup.*): fcc/bcc/sc lattices (counts, box,
// nearest-neighbour shells) and Maxwell-Boltzmann velocities (zero momentum, exact temperature,
// independence of the atom order, seeds). The LAMMPS data files: test_md_data_file.cpp. One rank, well
// under a second.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "md/md_setup.hpp"
#include "md_setup_test.hpp"

using Catch::Matchers::Contains;
using stratus::InputError;
using stratus::md::AtomData;
using stratus::test::same_bits;

namespace {

// Minimum-image distances from atom i to every other atom.
std::vector<double> distances_from(const AtomData& a, std::size_t i) {
  std::vector<double> d;
  for (std::size_t j = 0; j < a.natoms(); ++j) {
    if (j == i) continue;
    double r2 = 0.0;
    for (int c = 0; c < 3; ++c) {
      const double L = a.hi[c] - a.lo[c];
      double dx = a.x[j][c] - a.x[i][c];
      dx -= L * std::round(dx / L);
      r2 += dx * dx;
    }
    d.push_back(std::sqrt(r2));
  }
  return d;
}

// Every atom has `count` nearest neighbours at distance `nn` (relative 1e-12) and none closer.
void check_shell(const AtomData& a, double nn, int count) {
  for (std::size_t i = 0; i < a.natoms(); ++i) {
    const auto d = distances_from(a, i);
    const double dmin = *std::min_element(d.begin(), d.end());
    REQUIRE(dmin == Approx(nn).epsilon(1e-12));
    const auto k = std::count_if(d.begin(), d.end(), [&](double r) { return r < nn * (1.0 + 1e-9); });
    REQUIRE(k == count);
  }
}

}  // namespace

TEST_CASE("fcc lattice at reduced density 0.8442", "[md]") {
  const auto a = stratus::md::make_lattice("fcc", 0.8442, true, {4, 4, 4}, 1, 1.0);
  REQUIRE(a.natoms() == 256);
  const double lc = std::cbrt(4.0 / 0.8442);
  for (int d = 0; d < 3; ++d) {
    CHECK(a.lo[d] == 0.0);
    CHECK(std::abs(a.hi[d] - 6.7183848) < 1e-7);
    CHECK(std::abs(a.hi[d] - 4.0 * lc) < 1e-12);
  }
  CHECK(a.ntypes == 1);
  CHECK(a.mass[1] == 1.0);
  CHECK_FALSE(a.has_velocities);
  for (std::size_t i = 0; i < a.natoms(); ++i) {
    CHECK(a.id[i] == static_cast<long long>(i) + 1);
    CHECK(a.type[i] == 1);
    for (int c = 0; c < 3; ++c) {
      CHECK(a.x[i][c] >= 0.0);
      CHECK(a.x[i][c] < a.hi[c]);
    }
  }
  // Ordering: basis innermost, then x cells, then y, then z.
  CHECK(a.x[1][0] == Approx(0.5 * lc));
  CHECK(a.x[1][1] == Approx(0.5 * lc));
  CHECK(a.x[4][0] == Approx(lc));
  CHECK(a.x[16][1] == Approx(lc));
  CHECK(a.x[64][2] == Approx(lc));
  check_shell(a, lc / std::sqrt(2.0), 12);
}

TEST_CASE("bcc and sc lattices", "[md]") {
  const auto b = stratus::md::make_lattice("bcc", 0.9, true, {3, 4, 5}, 2, 2.5);
  REQUIRE(b.natoms() == 2u * 3 * 4 * 5);
  const double ab = std::cbrt(2.0 / 0.9);
  CHECK(b.hi[0] == Approx(3 * ab).epsilon(1e-14));
  CHECK(b.hi[2] == Approx(5 * ab).epsilon(1e-14));
  CHECK(b.ntypes == 2);
  CHECK(b.mass[2] == 2.5);
  check_shell(b, ab * std::sqrt(3.0) / 2.0, 8);

  const auto s = stratus::md::make_lattice("sc", 1.7, false, {4, 3, 3}, 1, 1.0);
  REQUIRE(s.natoms() == 36u);
  CHECK(s.hi[0] == Approx(4 * 1.7));
  check_shell(s, 1.7, 6);
  const auto s2 = stratus::md::make_lattice("sc", 0.5, true, {3, 3, 3}, 1, 1.0);
  check_shell(s2, std::cbrt(2.0), 6);

  CHECK_THROWS_WITH(stratus::md::make_lattice("hcp", 1.0, true, {2, 2, 2}, 1, 1.0), Contains("hcp"));
  CHECK_THROWS_AS(stratus::md::make_lattice("fcc", -1.0, true, {2, 2, 2}, 1, 1.0), InputError);
  CHECK_THROWS_AS(stratus::md::make_lattice("fcc", 1.0, true, {0, 2, 2}, 1, 1.0), InputError);
}

TEST_CASE("Maxwell-Boltzmann velocities", "[md]") {
  auto a = stratus::md::make_lattice("fcc", 0.8442, true, {4, 4, 4}, 1, 1.0);
  // Two types with different masses to exercise the mass weighting.
  a.ntypes = 2;
  a.mass = {0.0, 1.0, 3.0};
  for (std::size_t i = 0; i < a.natoms(); i += 3) a.type[i] = 2;
  const double T = 1.44;
  auto ref = a;
  stratus::md::create_velocities(ref, T, 12345, true);
  REQUIRE(ref.has_velocities);

  double p[3] = {0, 0, 0}, pabs = 0.0;
  for (std::size_t i = 0; i < ref.natoms(); ++i) {
    const double m = ref.mass[ref.type[i]];
    for (int c = 0; c < 3; ++c) {
      p[c] += m * ref.v[i][c];
      pabs += m * std::abs(ref.v[i][c]);
    }
  }
  for (int c = 0; c < 3; ++c) CHECK(std::abs(p[c]) < 1e-12 * pabs);
  const double Tm = stratus::md::temperature(ref, true);
  CHECK(std::abs(Tm - T) < 1e-12 * T);
  CHECK(stratus::md::kinetic_energy(ref) == Approx(0.5 * (3.0 * 256 - 3.0) * T).epsilon(1e-12));
  // Equipartition: m <v^2> is the same for both types, so <v^2> of the light type is 3x the heavy one's.
  // With ~170 and ~86 atoms of uniform components the ratio's standard error is about 7 %: 30 % is over
  // 4 of them, and a wrong mass scaling (9x, or sqrt(3) = 1.73x) is far outside.
  double v2[3] = {0, 0, 0};
  int cnt[3] = {0, 0, 0};
  for (std::size_t i = 0; i < ref.natoms(); ++i) {
    v2[ref.type[i]] += ref.v[i][0] * ref.v[i][0] + ref.v[i][1] * ref.v[i][1] + ref.v[i][2] * ref.v[i][2];
    ++cnt[ref.type[i]];
  }
  const double ratio = (v2[1] / cnt[1]) / (v2[2] / cnt[2]);
  INFO("<v^2> light / heavy = " << ratio << " (" << cnt[1] << " and " << cnt[2] << " atoms)");
  CHECK(ratio == Approx(3.0).epsilon(0.3));

  SECTION("independent of the atom order (bitwise)") {
    auto shuffled = a;
    std::vector<std::size_t> perm(a.natoms());
    for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
    std::mt19937 gen(7);
    std::shuffle(perm.begin(), perm.end(), gen);
    for (std::size_t i = 0; i < perm.size(); ++i) {
      shuffled.id[i] = a.id[perm[i]];
      shuffled.type[i] = a.type[perm[i]];
      shuffled.x[i] = a.x[perm[i]];
    }
    stratus::md::create_velocities(shuffled, T, 12345, true);
    for (std::size_t i = 0; i < perm.size(); ++i) {
      const std::size_t j = static_cast<std::size_t>(shuffled.id[i] - 1);  // ids are 1..N in ref order
      for (int c = 0; c < 3; ++c) REQUIRE(same_bits(shuffled.v[i][c], ref.v[j][c]));
    }
  }
  SECTION("uniform components (LAMMPS' default distribution): bounded, exact temperature") {
    auto uni = a;
    stratus::md::create_velocities(uni, T, 12345, true, 1.0, true);
    CHECK(std::abs(stratus::md::temperature(uni, true) - T) < 1e-12 * T);
    // A uniform component has |v| <= sqrt(3) sigma before the rescale to T (which changes it by a few %);
    // a normal one exceeds 2.2 sigma in about 3 % of the draws.
    int beyond = 0, beyond_normal = 0;
    for (std::size_t i = 0; i < a.natoms(); ++i) {
      const double sigma = std::sqrt(T / a.mass[a.type[i]]);
      for (int c = 0; c < 3; ++c) {
        if (std::abs(uni.v[i][c]) > 2.2 * sigma) ++beyond;
        if (std::abs(ref.v[i][c]) > 2.2 * sigma) ++beyond_normal;
      }
    }
    CHECK(beyond == 0);
    CHECK(beyond_normal > 5);
  }
  SECTION("different seeds differ") {
    auto other = a;
    stratus::md::create_velocities(other, T, 12346, true);
    int same = 0;
    for (std::size_t i = 0; i < a.natoms(); ++i)
      if (other.v[i][0] == ref.v[i][0]) ++same;
    CHECK(same == 0);
    CHECK(std::abs(stratus::md::temperature(other, true) - T) < 1e-12 * T);
  }
  SECTION("without momentum removal: 3N degrees of freedom") {
    auto other = a;
    stratus::md::create_velocities(other, T, 99, false);
    CHECK(std::abs(stratus::md::temperature(other, false) - T) < 1e-12 * T);
  }
  SECTION("zero temperature and bad input") {
    auto other = a;
    stratus::md::create_velocities(other, 0.0, 1, true);
    CHECK(stratus::md::kinetic_energy(other) == 0.0);
    CHECK_THROWS_AS(stratus::md::create_velocities(other, -1.0, 1, true), InputError);
  }
}
