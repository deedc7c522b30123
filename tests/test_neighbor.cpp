// Neighbor lists against brute force: random atoms in periodic boxes with ghost images made here, on one
// rank. The FULL and HALF lists must hold exactly the brute-force pair sets (r^2 < (cutoff + skin)^2),
// each atom's neighbours sorted, without duplicates or self pairs. Cases: a dense LJ liquid, a dilute gas
// (mostly empty bins), an fcc lattice (pairs exactly at cutoff + skin are left out), a slab narrower than
// the bin stencil; then the rebuild criterion and the error checks.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/gpu_paths.hpp"
#include "neighbor/neighbor_list.hpp"

using namespace stratus;

namespace {

double uniform(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

struct System {
  std::vector<double> x;  // owned atoms, then ghosts, (x, y, z) per atom
  int n_local = 0, n_ghost = 0;
  Real3 lo, hi;
  int n() const { return n_local + n_ghost; }
};

// Owned atoms in [0, L) plus, in periodic directions, every image within rc of the box. The bounding box
// is [-rc, L + rc) in periodic directions and [0, L) in the others.
System with_ghosts(const std::vector<double>& owned, Real3 L, const bool periodic[3], double rc) {
  System s;
  s.n_local = static_cast<int>(owned.size() / 3);
  s.x = owned;
  for (int d = 0; d < 3; ++d) {
    s.lo[d] = periodic[d] ? -rc : 0.0;
    s.hi[d] = periodic[d] ? L[d] + rc : L[d];
  }
  for (int sz = -1; sz <= 1; ++sz)
    for (int sy = -1; sy <= 1; ++sy)
      for (int sx = -1; sx <= 1; ++sx) {
        const int sh[3] = {sx, sy, sz};
        bool ok = !(sx == 0 && sy == 0 && sz == 0);
        for (int d = 0; d < 3; ++d) ok = ok && (periodic[d] || sh[d] == 0);
        if (!ok) continue;
        for (int i = 0; i < s.n_local; ++i) {
          double p[3];
          bool in = true;
          for (int d = 0; d < 3; ++d) {
            p[d] = owned[3 * i + d] + sh[d] * L[d];
            in = in && p[d] >= s.lo[d] && p[d] < s.hi[d];
          }
          if (!in) continue;
          s.x.insert(s.x.end(), p, p + 3);
          ++s.n_ghost;
        }
      }
  return s;
}

std::vector<double> random_atoms(int n, Real3 L, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<double> x(3 * n);
  for (int i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) x[3 * i + d] = uniform(g) * L[d];
  return x;
}

ParticleVec to_device(const std::vector<double>& x) {
  ParticleVec v("x", x.size() / 3);
  auto h = Kokkos::create_mirror_view(v);
  for (size_t i = 0; i < x.size() / 3; ++i)
    for (int d = 0; d < 3; ++d) h(i, d) = x[3 * i + d];
  Kokkos::deep_copy(v, h);
  return v;
}

using Lists = std::vector<std::vector<int>>;

// Brute force: every j != i with r^2 < rc^2 (same arithmetic as the kernel), j increasing; with
// newton_ghost (half lists) a ghost only when it lies above i (z, then y, then x).
Lists brute_force(const System& s, double rc, bool half, bool newton_ghost = false) {
  Lists out(s.n_local);
  const double rc2 = rc * rc;
  auto below = [&](int j, int i) {
    for (int d = 2; d >= 0; --d)
      if (s.x[3 * j + d] != s.x[3 * i + d]) return s.x[3 * j + d] < s.x[3 * i + d];
    return false;
  };
  for (int i = 0; i < s.n_local; ++i)
    for (int j = 0; j < s.n(); ++j) {
      if (j == i || (half && j < s.n_local && j < i)) continue;
      if (newton_ghost && j >= s.n_local && below(j, i)) continue;
      const double dx = s.x[3 * i] - s.x[3 * j], dy = s.x[3 * i + 1] - s.x[3 * j + 1],
                   dz = s.x[3 * i + 2] - s.x[3 * j + 2];
      if (dx * dx + dy * dy + dz * dz < rc2) out[i].push_back(j);
    }
  return out;
}

// The lists as the kernels read them (NeighborRows' strides), checked against the list's own counts.
Lists from_device(const NeighborList& nl) {
  const NeighborRows r = nl.rows();
  auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r.entries);
  auto counts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r.counts);
  auto starts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r.starts);
  REQUIRE(static_cast<int>(counts.extent(0)) == nl.n_local());
  const bool slots = nl.layout() == ListLayout::slots;
  REQUIRE((slots ? r.atom_stride : r.slot_stride) == 1);
  REQUIRE((slots ? r.slot_stride >= nl.n_local() : r.atom_stride >= nl.max_neighbors()));
  // Atom-major rows in host-accessible memory are compacted (CSR); others keep their width.
  const bool compact = !slots && Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  REQUIRE(static_cast<int>(starts.extent(0)) == (compact ? nl.n_local() : 0));
  Lists out(nl.n_local());
  long long total = 0;
  for (int i = 0; i < nl.n_local(); ++i) {
    for (int k = 0; k < counts(i); ++k) {
      const long long at = (compact ? starts(i) : i * r.atom_stride) + k * r.slot_stride;
      REQUIRE(at < static_cast<long long>(entries.extent(0)));
      out[i].push_back(entries(at));
    }
    total += counts(i);
  }
  REQUIRE(total == nl.total_pairs());
  CHECK(out == nl.host_lists());
  return out;  // in the list's own (stencil) order
}

// The lists in the brute-force form: each atom's partners sorted by index and, for a half list, every
// pair of owned atoms moved to its lower atom (the list finds each such pair once, from either side).
Lists canonical(const Lists& l, int n_local, bool half) {
  Lists out(l.size());
  for (size_t i = 0; i < l.size(); ++i)
    for (int j : l[i]) {
      if (half && j >= 0 && j < n_local && j < static_cast<int>(i))
        out[static_cast<size_t>(j)].push_back(static_cast<int>(i));
      else
        out[i].push_back(j);
    }
  for (auto& row : out) std::sort(row.begin(), row.end());
  return out;
}

struct Counts {
  long long full = 0, half = 0, half_newton = 0, owned_owned_full = 0, owned_ghost = 0;
  int max_full = 0;
};

// Builds both lists, checks them against brute force and against each other; returns pair counts.
Counts check_system(const System& s, double cutoff, double skin) {
  const ParticleVec x = to_device(s.x);
  const double rc = cutoff + skin;
  Counts c;
  for (int kind = 0; kind < 3; ++kind) {  // full, half, half with newton_ghost
    const bool half = kind > 0, newton_ghost = kind == 2;
    INFO((half ? (newton_ghost ? "half list, newton_ghost" : "half list") : "full list"));
    NeighborList nl({cutoff, skin, half, newton_ghost});
    nl.build(x, s.n_local, s.n_ghost, s.lo, s.hi);
    CHECK(nl.layout() == (gpu_paths() ? ListLayout::slots : ListLayout::atoms));  // the automatic choice
    const Lists raw = from_device(nl);
    const Lists got = canonical(raw, s.n_local, half);
    const Lists want = brute_force(s, rc, half, newton_ghost);
    long long total = 0;
    int mx = 0;
    bool sorted = true, no_self = true, equal = true;
    for (int i = 0; i < s.n_local; ++i) {
      for (size_t k = 0; k < got[i].size(); ++k) {
        if (k > 0 && got[i][k] <= got[i][k - 1]) sorted = false;  // sorted, strictly increasing: no duplicates
        if (got[i][k] == i) no_self = false;
        if (got[i][k] < 0 || got[i][k] >= s.n()) no_self = false;
      }
      if (got[i] != want[i]) equal = false;
      total += static_cast<long long>(got[i].size());
      mx = std::max(mx, static_cast<int>(raw[i].size()));
      if (!half)
        for (int j : got[i]) (j < s.n_local ? c.owned_owned_full : c.owned_ghost) += 1;
    }
    CHECK(sorted);
    CHECK(no_self);
    CHECK(equal);
    CHECK(nl.total_pairs() == total);
    CHECK(nl.max_neighbors() == mx);
    if (newton_ghost)
      c.half_newton = total;
    else
      (half ? c.half : c.full) = total;
    if (!half) c.max_full = mx;
    // A second build of the same atoms gives the identical list (no dependence on thread scheduling: the
    // test also runs with two threads).
    nl.build(x, s.n_local, s.n_ghost, s.lo, s.hi);
    CHECK(from_device(nl) == raw);
    // The portable candidate loop (GPUs, CPUs without AVX-512 or AVX2) lists the same partners in the same order.
    NeighborList portable({cutoff, skin, half, newton_ghost, true});
    portable.build(x, s.n_local, s.n_ghost, s.lo, s.hi);
    CHECK(from_device(portable) == raw);
    CHECK(portable.max_neighbors() == nl.max_neighbors());
    // Both layouts (slot by slot: the GPUs' coalesced one) hold the same rows; a fresh list starts narrower
    // than a dense system needs, so the widening repeat runs in each.
    for (const ListLayout layout : {ListLayout::atoms, ListLayout::slots}) {
      NeighborList other({cutoff, skin, half, newton_ghost, false, layout});
      other.build(x, s.n_local, s.n_ghost, s.lo, s.hi);
      CHECK(other.layout() == layout);
      CHECK(from_device(other) == raw);
      CHECK(other.max_neighbors() == nl.max_neighbors());
    }
  }
  // Half list: each owned-owned pair once, every owned-ghost pair.
  CHECK(c.owned_owned_full % 2 == 0);
  CHECK(c.half == c.owned_owned_full / 2 + c.owned_ghost);
  CHECK(c.half_newton <= c.half);
  if (c.owned_ghost > 0) CHECK(c.half_newton < c.half);  // some ghosts lie below their partner
  CHECK(c.half_newton >= c.owned_owned_full / 2);
  return c;
}

const bool kPeriodic[3] = {true, true, true};
const bool kOpen[3] = {false, false, false};

}  // namespace

TEST_CASE("neighbor: dense LJ liquid matches brute force", "[neighbor]") {
  const int n = 4000;
  const double side = std::cbrt(n / 0.8442), cutoff = 2.5, skin = 0.3, rc = cutoff + skin;
  const Real3 L = {{side, side, side}};
  const System s = with_ghosts(random_atoms(n, L, 20240601), L, kPeriodic, rc);
  const Counts c = check_system(s, cutoff, skin);
  // Mean full-list size ~ rho * 4/3 pi rc^3 = 77.6: the ghosts complete every sphere.
  const double mean = double(c.full) / n;
  CHECK(mean > 0.95 * 77.6);
  CHECK(mean < 1.05 * 77.6);
  CHECK(s.n_ghost > 4000);
}

TEST_CASE("neighbor: dilute gas with empty bins", "[neighbor]") {
  const double cutoff = 2.5, skin = 0.3, rc = cutoff + skin;
  const Real3 L = {{40.0, 40.0, 40.0}};
  const System s = with_ghosts(random_atoms(300, L, 7), L, kPeriodic, rc);
  NeighborList nl({cutoff, skin, false});
  nl.build(to_device(s.x), s.n_local, s.n_ghost, s.lo, s.hi);
  CHECK(nl.bins()[0] == 16);  // (40 + 2 * 2.8) / 2.8 -> 16 bins per direction, 4096 for ~330 atoms
  const Counts c = check_system(s, cutoff, skin);
  CHECK(c.full > 0);
  CHECK(c.full < 300 * 2);
}

TEST_CASE("neighbor: fcc lattice, pairs at exactly cutoff + skin are excluded", "[neighbor]") {
  // a = 2, 4x4x4 cells: nearest neighbours at r^2 = 2 (12), second shell at r^2 = 4 (6), all exact.
  const double a = 2.0;
  const int cells = 4;
  std::vector<double> owned;
  const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  for (int k = 0; k < cells; ++k)
    for (int j = 0; j < cells; ++j)
      for (int i = 0; i < cells; ++i)
        for (const auto& b : basis) {
          owned.push_back((i + b[0]) * a);
          owned.push_back((j + b[1]) * a);
          owned.push_back((k + b[2]) * a);
        }
  const int n = static_cast<int>(owned.size() / 3);
  REQUIRE(n == 256);
  const Real3 L = {{cells * a, cells * a, cells * a}};
  SECTION("cutoff + skin = 2 exactly: second shell (r = 2) left out") {
    const double cutoff = 1.5, skin = 0.5;  // sum exactly 2.0
    const System s = with_ghosts(owned, L, kPeriodic, cutoff + skin);
    const Counts c = check_system(s, cutoff, skin);
    CHECK(c.full == 12LL * n);
    CHECK(c.max_full == 12);
    CHECK(c.owned_owned_full + c.owned_ghost == c.full);
    CHECK(c.half == (12LL * n - c.owned_ghost) / 2 + c.owned_ghost);  // ghost pairs from both sides
  }
  SECTION("cutoff + skin just above 2: second shell included") {
    const double cutoff = 1.5, skin = 0.5 + 1e-9;
    const System s = with_ghosts(owned, L, kPeriodic, cutoff + skin);
    const Counts c = check_system(s, cutoff, skin);
    CHECK(c.full == 18LL * n);
    CHECK(c.half == (18LL * n - c.owned_ghost) / 2 + c.owned_ghost);
  }
}

TEST_CASE("neighbor: slab narrower than the stencil", "[neighbor]") {
  // Periodic in x only; y spans 4 bins and z one bin, fewer than the stencil's 5 (it is clipped, never
  // wrapped).
  const double cutoff = 2.5, skin = 0.3, rc = cutoff + skin;
  const Real3 L = {{20.0, 6.0, 2.0}};
  const bool periodic[3] = {true, false, false};
  const System s = with_ghosts(random_atoms(400, L, 99), L, periodic, rc);
  NeighborList nl({cutoff, skin, true});
  nl.build(to_device(s.x), s.n_local, s.n_ghost, s.lo, s.hi);
  CHECK(nl.bins()[1] == 4);
  CHECK(nl.bins()[2] == 1);
  const Counts c = check_system(s, cutoff, skin);
  CHECK(c.full > 0);
  SECTION("no ghosts at all, and no owned atoms") {
    const System bare = with_ghosts(random_atoms(50, L, 5), L, kOpen, rc);
    REQUIRE(bare.n_ghost == 0);
    check_system(bare, cutoff, skin);
    NeighborList empty({cutoff, skin, false});
    empty.build(to_device(s.x), 0, s.n(), s.lo, s.hi);  // every atom a ghost: an empty list
    CHECK(empty.total_pairs() == 0);
    CHECK(empty.rows().counts.extent(0) == 0);
    // 64-bit strides: a GPU rank's rows pass 2^31 entries at about 20 M atoms of LJ (100 slots each).
    static_assert(std::is_same<decltype(NeighborRows::atom_stride), long long>::value &&
                      std::is_same<decltype(NeighborRows::slot_stride), long long>::value,
                  "neighbor list strides must be 64-bit");
    CHECK_FALSE(empty.needs_rebuild(to_device(s.x)));
  }
}

// A half list searches the bins it takes no owned partner from (backward rows, and i's own row before i's
// bin) for their ghosts alone, which follow each bin's owned atoms. Ghosts here are not a shell around
// the box but every third atom of a dense liquid, so nearly every bin holds owned atoms and ghosts, and
// every stencil row has ghosts to find: the lists must still be the brute-force ones.
TEST_CASE("neighbor: ghosts mixed with owned atoms in every bin", "[neighbor]") {
  const int n = 3000;
  const double side = std::cbrt(n / 0.8442), cutoff = 2.5, skin = 0.3;
  const Real3 L = {{side, side, side}};
  System s;
  s.x = random_atoms(n, L, 4242);
  s.n_local = 2 * n / 3;
  s.n_ghost = n - s.n_local;
  s.lo = {{0.0, 0.0, 0.0}};
  s.hi = L;
  const Counts c = check_system(s, cutoff, skin);
  // Every owned atom has about rho 4/3 pi rc^3 (77.6) atoms within rc less those beyond the box's faces,
  // a third of them ghosts: far more owned-ghost pairs than a shell of ghosts would give.
  CHECK(c.owned_ghost > 15LL * s.n_local);
  CHECK(c.half == c.owned_owned_full / 2 + c.owned_ghost);
}

// A list keeps its work arrays between builds (grown, never shrunk): one list object built for a dense,
// then a dilute, then a dense system must give each the brute-force list, with n_local counts.
TEST_CASE("neighbor: one list reused for systems of changing size", "[neighbor]") {
  const double cutoff = 2.5, skin = 0.3, rc = cutoff + skin;
  const Real3 big = {{16.0, 16.0, 16.0}}, small = {{12.0, 9.0, 14.0}};
  for (const bool half : {false, true})
    for (const ListLayout layout : {ListLayout::atoms, ListLayout::slots}) {
      NeighborList nl({cutoff, skin, half, false, false, layout});
      int k = 0;
      for (const auto& [L, n] : {std::pair<Real3, int>{big, 3000}, {small, 200}, {big, 2500}}) {
        INFO("half " << half << ", build " << k << " of " << n << " atoms");
        const System s = with_ghosts(random_atoms(n, L, 99 + static_cast<std::uint64_t>(k++)), L, kPeriodic, rc);
        nl.build(to_device(s.x), s.n_local, s.n_ghost, s.lo, s.hi);
        CHECK(static_cast<int>(nl.rows().counts.extent(0)) == n);
        CHECK(static_cast<int>(nl.build_positions().extent(0)) == n);
        CHECK(canonical(from_device(nl), s.n_local, half) == brute_force(s, rc, half));
      }
    }
}

TEST_CASE("neighbor: rebuild criterion is skin / 2", "[neighbor]") {
  const double cutoff = 2.5, skin = 0.3;
  const Real3 L = {{12.0, 12.0, 12.0}};
  const System s = with_ghosts(random_atoms(1000, L, 3), L, kPeriodic, cutoff + skin);
  NeighborList nl({cutoff, skin, true});
  const ParticleVec x = to_device(s.x);
  CHECK(nl.needs_rebuild(x));  // never built
  nl.build(x, s.n_local, s.n_ghost, s.lo, s.hi);
  CHECK_FALSE(nl.needs_rebuild(x));

  std::mt19937_64 g(11);
  std::vector<double> moved = s.x;
  for (int i = 0; i < s.n_local; ++i) {  // every owned atom moves 0.99 skin/2 in a random direction
    double u[3], r2 = 0;
    do {
      r2 = 0;
      for (double& v : u) {
        v = 2 * uniform(g) - 1;
        r2 += v * v;
      }
    } while (r2 > 1 || r2 < 1e-6);
    for (int d = 0; d < 3; ++d) moved[3 * i + d] += 0.99 * 0.5 * skin * u[d] / std::sqrt(r2);
  }
  CHECK_FALSE(nl.needs_rebuild(to_device(moved)));
  std::vector<double> one = s.x;
  one[3 * 417 + 1] += 1.01 * 0.5 * skin;  // one atom just over skin/2
  CHECK(nl.needs_rebuild(to_device(one)));
  // Ghost displacements do not count.
  std::vector<double> ghost = s.x;
  ghost[3 * (s.n_local + 3)] += 10 * skin;
  CHECK_FALSE(nl.needs_rebuild(to_device(ghost)));
  // After a rebuild the new positions are the reference.
  nl.build(to_device(one), s.n_local, s.n_ghost, s.lo, s.hi);
  CHECK_FALSE(nl.needs_rebuild(to_device(one)));
  CHECK(nl.needs_rebuild(x));
  CHECK(nl.builds() == 2);
}

TEST_CASE("neighbor: invalid parameters and atoms outside the box throw", "[neighbor]") {
  CHECK_THROWS_AS(NeighborList({0.0, 0.3, false}), Error);
  CHECK_THROWS_AS(NeighborList({2.5, -0.1, false}), Error);
  CHECK_THROWS_AS(NeighborList({NAN, 0.3, false}), Error);
  NeighborList nl({2.5, 0.3, false});
  const Real3 lo = {{0.0, 0.0, 0.0}}, hi = {{10.0, 10.0, 10.0}};
  std::vector<double> x = random_atoms(20, hi, 1);
  CHECK_NOTHROW(nl.build(to_device(x), 20, 0, lo, hi));
  CHECK_THROWS_AS(nl.build(to_device(x), 15, 10, lo, hi), Error);                       // more atoms than x holds
  CHECK_THROWS_AS(nl.build(to_device(x), 20, 0, lo, Real3{{10.0, 0.0, 10.0}}), Error);  // empty box
  x[3 * 5 + 2] = 10.0;                                                                  // on hi: outside [lo, hi)
  CHECK_THROWS_WITH(nl.build(to_device(x), 20, 0, lo, hi), Catch::Contains("outside the bounding box"));
  x[3 * 5 + 2] = -1e-12;
  CHECK_THROWS_AS(nl.build(to_device(x), 20, 0, lo, hi), Error);
}
