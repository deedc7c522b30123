// sort_by_bin (domain/particle_sort): each rank's owned atoms of the ParticleComm battery (3000 atoms at
// hashed positions, rows in id order, so that the rows do not follow space) sorted by bins of width 1:
// - the rows are in bin order (z slowest, x fastest), and within a bin in their previous (id) order;
// - every array travels with its atom: position, velocity, type, id, image flags, charge, displacement
//   origin, all as derived from the id;
// - a second sort moves nothing, and borders() after a sort gives the same ghosts (ids and positions) as
//   borders() without one;
// - atoms outside the bounds, a position that is NaN, bins narrower than a 1024th of the sub-domain, and
//   no or one atom do not break it.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "comm/particle_comm.hpp"
#include "domain/particle_sort.hpp"
#include "particle_comm_test.hpp"

using namespace stratus;
using namespace stratus::test;

namespace {

int image_of(long long id, int d) { return static_cast<int>((id + d) % 5) - 2; }
double x0_of(long long id, int d) { return 0.5 * static_cast<double>(id) - d; }

// Image flags and displacement origins from the ids (distribute() sets the rest).
void set_owned_only(Particles& p) {
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.id);
  auto image = Kokkos::create_mirror_view(p.image);
  auto x0 = Kokkos::create_mirror_view(p.x0);
  for (int i = 0; i < p.n_local; ++i)
    for (int d = 0; d < 3; ++d) {
      image(i, d) = image_of(id(i), d);
      x0(i, d) = x0_of(id(i), d);
    }
  Kokkos::deep_copy(p.image, image);
  Kokkos::deep_copy(p.x0, x0);
}

struct Row {
  long long id;
  std::array<double, 3> x, v, x0;
  std::array<int, 3> image;
  int type;
  double q;
};

std::vector<Row> rows_of(const Particles& p, int first, int count) {
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.x);
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.v);
  auto x0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.x0);
  auto image = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.image);
  auto type = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.type);
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.id);
  auto q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.q);
  std::vector<Row> out(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) {
    const int i = first + k;
    Row& r = out[static_cast<std::size_t>(k)];
    r.id = id(i);
    r.type = type(i);
    r.q = q(i);
    for (int d = 0; d < 3; ++d) {
      const auto u = static_cast<std::size_t>(d);
      r.x[u] = x(i, d);
      r.v[u] = v(i, d);
      r.x0[u] = x0(i, d);
      r.image[u] = image(i, d);
    }
  }
  return out;
}

// The bin of a position as the sorter defines it: floor(len / bin) bins (1 .. 1024) a direction.
std::array<int, 3> bin_of(const std::array<double, 3>& x, const Real3& lo, const Real3& hi, double bin) {
  std::array<int, 3> b{};
  for (int d = 0; d < 3; ++d) {
    const double len = hi[d] - lo[d];
    const int nb = static_cast<int>(std::clamp(std::floor(len / bin), 1.0, 1024.0));
    const double t = (x[static_cast<std::size_t>(d)] - lo[d]) * (nb / len);
    b[static_cast<std::size_t>(2 - d)] = !(t > 0.0) ? 0 : t < nb ? static_cast<int>(t) : nb - 1;  // z, y, x
  }
  return b;
}

// Ghosts as (id, position) in a canonical order.
std::vector<std::tuple<long long, double, double, double>> ghosts_of(const Particles& p) {
  std::vector<std::tuple<long long, double, double, double>> g;
  for (const Row& r : rows_of(p, p.n_local, p.n_ghost)) g.emplace_back(r.id, r.x[0], r.x[1], r.x[2]);
  std::sort(g.begin(), g.end());
  return g;
}

}  // namespace

TEST_CASE("sort_by_bin: owned rows in bin order, every array with its atom", "[particle_sort]") {
  ParticleComm pc(MPI_COMM_WORLD, kLo, kHi, {true, true, true}, Int3{0, 0, 0}, kRc);
  const std::vector<Atom> atoms = make_atoms();
  Particles p = distribute(pc, atoms), unsorted = distribute(pc, atoms);
  set_owned_only(p);
  set_owned_only(unsorted);
  const int n = p.n_local;
  REQUIRE(n > 100);
  const double bin = 1.0;
  const int moved = sort_by_bin(p, pc.sub_lo(), pc.sub_hi(), bin);
  CHECK(moved > n / 2);  // hashed positions in id order: most rows move
  REQUIRE(p.n_local == n);
  REQUIRE(p.n_ghost == 0);

  const std::vector<Row> rows = rows_of(p, 0, n);
  std::vector<long long> ids;
  long long out_of_order = 0, unstable = 0, mismatched = 0;
  for (int i = 0; i < n; ++i) {
    const Row& r = rows[static_cast<std::size_t>(i)];
    ids.push_back(r.id);
    bool ok = r.type == type_of(r.id) && r.q == q_of(r.id);
    for (int d = 0; d < 3; ++d) {
      const auto u = static_cast<std::size_t>(d);
      ok = ok && r.v[u] == v_of(r.id, d) && r.image[u] == image_of(r.id, d) && r.x0[u] == x0_of(r.id, d) &&
           r.x[u] == atoms[static_cast<std::size_t>(r.id - 1)].x[u];
    }
    if (!ok) ++mismatched;
    if (i > 0) {
      const auto a = bin_of(rows[static_cast<std::size_t>(i - 1)].x, pc.sub_lo(), pc.sub_hi(), bin);
      const auto b = bin_of(r.x, pc.sub_lo(), pc.sub_hi(), bin);
      if (b < a) ++out_of_order;
      if (a == b && rows[static_cast<std::size_t>(i - 1)].id > r.id) ++unstable;
    }
  }
  CHECK(mismatched == 0);
  CHECK(out_of_order == 0);
  CHECK(unstable == 0);
  std::vector<long long> want;
  for (const Row& r : rows_of(unsorted, 0, n)) want.push_back(r.id);
  std::sort(ids.begin(), ids.end());
  CHECK(ids == want);  // the same atoms, each once (distribute() gives them in id order)

  // Sorted rows stay where they are.
  CHECK(sort_by_bin(p, pc.sub_lo(), pc.sub_hi(), bin) == 0);

  // The ghosts do not depend on the order of the owned rows.
  pc.borders(p);
  pc.borders(unsorted);
  CHECK(p.n_ghost == unsorted.n_ghost);
  CHECK(ghosts_of(p) == ghosts_of(unsorted));
}

TEST_CASE("sort_by_bin: atoms outside, NaN, narrow bins, no atoms", "[particle_sort]") {
  ParticleComm pc(MPI_COMM_WORLD, kLo, kHi, {true, true, true}, Int3{0, 0, 0}, kRc);
  const std::vector<Atom> atoms = make_atoms();
  SECTION("outside the bounds and NaN: the edge bins") {
    Particles p = distribute(pc, atoms);
    REQUIRE(p.n_local >= 3);
    const Real3 lo = pc.sub_lo(), hi = pc.sub_hi();
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.x);
    for (int d = 0; d < 3; ++d) {
      x(0, d) = hi[d] + 5.0;  // past every upper edge: the last bin
      x(1, d) = lo[d] - 5.0;  // below every lower edge: the first bin
    }
    x(2, 0) = std::numeric_limits<double>::quiet_NaN();
    Kokkos::deep_copy(p.x, x);
    const int n = p.n_local;
    sort_by_bin(p, lo, hi, 1.0);
    const std::vector<Row> rows = rows_of(p, 0, n);
    long long out_of_order = 0;
    for (int i = 1; i < n; ++i)
      if (bin_of(rows[static_cast<std::size_t>(i)].x, lo, hi, 1.0) <
          bin_of(rows[static_cast<std::size_t>(i - 1)].x, lo, hi, 1.0))
        ++out_of_order;
    CHECK(out_of_order == 0);
    // the atom below every edge comes first (it was in row 1, row 0 went to the last bin)
    const std::vector<Row> first_two = rows_of(distribute(pc, atoms), 0, 2);
    CHECK(rows.front().id == first_two[1].id);
    const auto last = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.id == first_two[0].id; });
    REQUIRE(last != rows.end());
    CHECK(bin_of(last->x, lo, hi, 1.0) == bin_of({hi[0] - 1e-9, hi[1] - 1e-9, hi[2] - 1e-9}, lo, hi, 1.0));
    std::vector<long long> ids;
    for (const Row& r : rows) ids.push_back(r.id);
    std::sort(ids.begin(), ids.end());
    CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end());
    CHECK(static_cast<int>(ids.size()) == n);
  }
  SECTION("bins narrower than a 1024th of the sub-domain: 1024 bins") {
    Particles p = distribute(pc, atoms);
    const int n = p.n_local;
    sort_by_bin(p, pc.sub_lo(), pc.sub_hi(), 1e-9);
    const std::vector<Row> rows = rows_of(p, 0, n);
    long long out_of_order = 0;
    for (int i = 1; i < n; ++i)
      if (bin_of(rows[static_cast<std::size_t>(i)].x, pc.sub_lo(), pc.sub_hi(), 1e-9) <
          bin_of(rows[static_cast<std::size_t>(i - 1)].x, pc.sub_lo(), pc.sub_hi(), 1e-9))
        ++out_of_order;
    CHECK(out_of_order == 0);
  }
  SECTION("no atom and one atom") {
    Particles p = distribute(pc, atoms);
    const std::vector<Row> before = rows_of(p, 0, 1);
    p.n_local = 1;
    CHECK(sort_by_bin(p, pc.sub_lo(), pc.sub_hi(), 1.0) == 0);
    CHECK(rows_of(p, 0, 1)[0].id == before[0].id);
    p.n_local = 0;
    CHECK(sort_by_bin(p, pc.sub_lo(), pc.sub_hi(), 1.0) == 0);
  }
}
