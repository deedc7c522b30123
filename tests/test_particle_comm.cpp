// ParticleComm against brute force: 3000 pseudo-random atoms (the same on every rank) in a 10 x 8 x 12
// box, each rank keeping those it owns. For every decomposition of the rank count (and the automatic one),
// periodic in all directions and with walls in z:
// - borders(): the ghosts on each rank are exactly the periodic images (27 shifts, only along periodic
//   directions) of all atoms that lie in [sub_lo - rc, sub_hi + rc) in every direction, minus the owned
//   atoms themselves — edges and corners included, without duplicates, at the shifted positions;
// - forward(): after small displacements the ghosts sit at their owners' new positions plus the same shift;
// - exchange(): after displacements up to 0.9 every atom is owned by the rank whose sub-domain holds it,
//   once, with its velocity, type, charge and unwrapped position (x + image * L) unchanged; borders() then
//   gives the brute-force set again;
// - reverse(): a value of 1 on every ghost sums to the number of ghost copies of each atom on all ranks.
// Charges on their own: distinct charges (not multiples of the id) follow every atom through exchange()
// and borders(), and ids above 2^53 travel exactly.
// Sub-domain bounds, the choice of dims and the errors: test_particle_comm_domains.cpp.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <tuple>
#include <vector>

#include "comm/particle_comm.hpp"
#include "particle_comm_test.hpp"

using namespace stratus;
using namespace stratus::test;

namespace {

struct Host {
  ParticleVecHost x, v;
  Kokkos::View<int*, Kokkos::HostSpace> type;
  Kokkos::View<long long*, Kokkos::HostSpace> id;
  Kokkos::View<int* [3], Kokkos::LayoutRight, Kokkos::HostSpace> image;
  Kokkos::View<double*, Kokkos::HostSpace> q;
};

Host to_host(const Particles& p) {
  Host h;
  h.x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.x);
  h.v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.v);
  h.type = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.type);
  h.id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.id);
  h.image = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.image);
  h.q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.q);
  return h;
}

// All owned atoms of all ranks, sorted by id.
std::vector<Atom> gather(const ParticleComm& pc, const Particles& p) {
  const Host h = to_host(p);
  std::vector<double> mine;
  for (int i = 0; i < p.n_local; ++i) {
    mine.push_back(static_cast<double>(h.id(i)));
    for (int d = 0; d < 3; ++d) mine.push_back(h.x(i, d));
    for (int d = 0; d < 3; ++d) mine.push_back(h.image(i, d));
  }
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(pc.size()), displs(pc.size(), 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, pc.comm());
  for (int r = 1; r < pc.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<double> all(displs.back() + counts.back());
  MPI_Allgatherv(mine.data(), n, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, pc.comm());
  std::vector<Atom> out(all.size() / 7);
  for (std::size_t k = 0; k < out.size(); ++k) {
    out[k].id = static_cast<long long>(all[7 * k]);
    for (int d = 0; d < 3; ++d) {
      out[k].x[d] = all[7 * k + 1 + d];
      out[k].image[d] = static_cast<int>(all[7 * k + 4 + d]);
    }
  }
  std::sort(out.begin(), out.end(), [](const Atom& a, const Atom& b) { return a.id < b.id; });
  return out;
}

struct Image {
  long long id;
  int s[3];
  double x[3];
  bool operator<(const Image& o) const {
    return std::tie(id, s[0], s[1], s[2]) < std::tie(o.id, o.s[0], o.s[1], o.s[2]);
  }
  bool same_key(const Image& o) const { return id == o.id && s[0] == o.s[0] && s[1] == o.s[1] && s[2] == o.s[2]; }
};

// Brute force: every periodic image of every atom inside [sub_lo - rc, sub_hi + rc) in all directions,
// except the atoms this rank owns (shift 0 inside the sub-domain). Sorted by (id, shift).
std::vector<Image> expected_ghosts(const ParticleComm& pc, const std::vector<Atom>& atoms) {
  std::vector<Image> out;
  const Real3 lo = pc.sub_lo(), hi = pc.sub_hi();
  for (const Atom& a : atoms)
    for (int sx = -1; sx <= 1; ++sx)
      for (int sy = -1; sy <= 1; ++sy)
        for (int sz = -1; sz <= 1; ++sz) {
          Image g{a.id, {sx, sy, sz}, {}};
          bool in = true, owned = true;
          for (int d = 0; d < 3; ++d) {
            if (g.s[d] != 0 && !pc.periodic(d)) in = false;
            g.x[d] = a.x[d] + g.s[d] * len(d);
            in = in && g.x[d] >= lo[d] - kRc && g.x[d] < hi[d] + kRc;
            owned = owned && g.s[d] == 0 && g.x[d] >= lo[d] && g.x[d] < hi[d];
          }
          if (in && !owned) out.push_back(g);
        }
  std::sort(out.begin(), out.end());
  return out;
}

const Atom& find(const std::vector<Atom>& sorted, long long id) {
  return *std::lower_bound(sorted.begin(), sorted.end(), id, [](const Atom& a, long long i) { return a.id < i; });
}

// Checks the ghosts of p against brute force over `atoms` (sorted by id, the current positions); returns
// the (id, shift) of every ghost row in row order.
std::vector<Image> check_ghosts(const ParticleComm& pc, const Particles& p, const std::vector<Atom>& atoms) {
  const Host h = to_host(p);
  const std::vector<Image> want = expected_ghosts(pc, atoms);
  std::vector<Image> got;
  long long bad_pos = 0, bad_attr = 0, outside = 0;
  const Real3 glo = pc.ghost_lo(), ghi = pc.ghost_hi();
  for (int i = 0; i < p.n_total(); ++i)
    for (int d = 0; d < 3; ++d)
      if (!(h.x(i, d) >= glo[d] && h.x(i, d) < ghi[d])) ++outside;
  for (int i = p.n_local; i < p.n_total(); ++i) {
    const Atom& a = find(atoms, h.id(i));
    Image g{h.id(i), {}, {}};
    for (int d = 0; d < 3; ++d) {
      g.s[d] = static_cast<int>(std::lround((h.x(i, d) - a.x[d]) / len(d)));
      g.x[d] = h.x(i, d);
      if (std::fabs(h.x(i, d) - (a.x[d] + g.s[d] * len(d))) > 1e-12) ++bad_pos;
    }
    if (h.type(i) != type_of(g.id) || h.q(i) != q_of(g.id)) ++bad_attr;
    got.push_back(g);
  }
  std::vector<Image> sorted = got;
  std::sort(sorted.begin(), sorted.end());
  long long dups = 0;
  for (std::size_t k = 1; k < sorted.size(); ++k)
    if (sorted[k].same_key(sorted[k - 1])) ++dups;
  bool same = sorted.size() == want.size();
  for (std::size_t k = 0; same && k < sorted.size(); ++k) same = sorted[k].same_key(want[k]);
  INFO("rank " << pc.rank() << ": " << p.n_ghost << " ghosts, " << want.size() << " expected");
  CHECK(dups == 0);
  CHECK(same);
  CHECK(bad_pos == 0);
  CHECK(bad_attr == 0);
  CHECK(outside == 0);
  return got;
}

// borders, forward, exchange, borders, reverse on one decomposition.
void run_battery(std::array<bool, 3> periodic, Int3 requested) {
  ParticleComm pc(MPI_COMM_WORLD, kLo, kHi, periodic, requested, kRc);
  INFO("dims " << pc.dims()[0] << " x " << pc.dims()[1] << " x " << pc.dims()[2] << ", periodic " << periodic[0]
               << periodic[1] << periodic[2]);
  for (int d = 0; d < 3; ++d)
    if (requested[d] > 0) REQUIRE(pc.dims()[d] == requested[d]);
  int expected_swaps = 0;
  for (int d = 0; d < 3; ++d) expected_swaps += (periodic[d] || pc.dims()[d] > 1) ? 2 : 0;
  CHECK(pc.n_swaps() == expected_swaps);

  std::vector<Atom> atoms = make_atoms();
  Particles p = distribute(pc, atoms);
  long long total = p.n_local;
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG_LONG, MPI_SUM, pc.comm());
  REQUIRE(total == kAtoms);

  // 1. borders() against brute force.
  pc.borders(p);
  const std::vector<Image> shifts = check_ghosts(pc, p, atoms);
  long long sent = pc.ghosts_sent(), ghosts = p.n_ghost;
  MPI_Allreduce(MPI_IN_PLACE, &sent, 1, MPI_LONG_LONG, MPI_SUM, pc.comm());
  MPI_Allreduce(MPI_IN_PLACE, &ghosts, 1, MPI_LONG_LONG, MPI_SUM, pc.comm());
  CHECK(sent == ghosts);

  // 2. forward(): owners move by less than 0.1, ghosts follow with the same shifts.
  auto small = [](long long id, int d, double x) { return x + 0.09 * (2.0 * hash01(id, 10 + d) - 1.0); };
  move_owned(p, small);
  pc.forward(p);
  {
    const Host h = to_host(p);
    long long bad = 0;
    for (int i = p.n_local; i < p.n_total(); ++i) {
      const Image& g = shifts[i - p.n_local];
      CHECK(h.id(i) == g.id);
      const Atom& a = find(atoms, g.id);
      for (int d = 0; d < 3; ++d)
        if (std::fabs(h.x(i, d) - (small(g.id, d, a.x[d]) + g.s[d] * len(d))) > 1e-12) ++bad;
    }
    CHECK(bad == 0);
  }

  // 3. exchange() after displacements up to 0.9 (kept inside the box across walls).
  auto large = [&](long long id, int d, double x) {
    double t = x + 0.9 * (2.0 * hash01(id, 20 + d) - 1.0);
    if (!periodic[d]) t = std::min(std::max(t, kLo[d] + 1e-3), kHi[d] - 1e-3);
    return t;
  };
  move_owned(p, large);
  const std::vector<Atom> before = gather(pc, p);  // unwrapped targets (image flags are still 0)
  std::vector<long long> owned_before;
  {
    auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.id);
    owned_before.assign(id.data(), id.data() + p.n_local);
    std::sort(owned_before.begin(), owned_before.end());
  }
  pc.exchange(p);
  CHECK(p.n_ghost == 0);
  const std::vector<Atom> after = gather(pc, p);
  REQUIRE(after.size() == before.size());
  REQUIRE(static_cast<int>(after.size()) == kAtoms);
  {
    long long bad_id = 0, bad_unwrapped = 0;
    for (int k = 0; k < kAtoms; ++k) {
      if (after[k].id != k + 1) ++bad_id;
      for (int d = 0; d < 3; ++d)
        if (std::fabs(after[k].x[d] + after[k].image[d] * len(d) - before[k].x[d]) > 1e-12) ++bad_unwrapped;
    }
    CHECK(bad_id == 0);
    CHECK(bad_unwrapped == 0);
    const Host h = to_host(p);
    long long not_mine = 0, bad_attr = 0;
    for (int i = 0; i < p.n_local; ++i) {
      if (!pc.owns(h.x(i, 0), h.x(i, 1), h.x(i, 2))) ++not_mine;
      const long long id = h.id(i);
      if (h.type(i) != type_of(id) || h.q(i) != q_of(id)) ++bad_attr;
      for (int d = 0; d < 3; ++d)
        if (h.v(i, d) != v_of(id, d)) ++bad_attr;
    }
    CHECK(not_mine == 0);
    CHECK(bad_attr == 0);
    // The displacements did move atoms between ranks and across periodic faces.
    long long arrived = 0, wrapped = 0;
    for (int i = 0; i < p.n_local; ++i)
      if (!std::binary_search(owned_before.begin(), owned_before.end(), h.id(i))) ++arrived;
    for (const Atom& a : after) wrapped += a.image[0] != 0 || a.image[1] != 0 || a.image[2] != 0;
    MPI_Allreduce(MPI_IN_PLACE, &arrived, 1, MPI_LONG_LONG, MPI_SUM, pc.comm());
    CHECK((pc.size() == 1 || arrived > 0));
    CHECK(wrapped > 0);
  }
  pc.borders(p);
  check_ghosts(pc, p, after);

  // 4. reverse(): ghosts carry (1, id, 0), owned rows (0, 0, 7): owned a becomes (copies, copies * id, 7).
  {
    ParticleVec a("test::a", p.capacity());
    auto ah = Kokkos::create_mirror_view(a);
    auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.id);
    for (int i = 0; i < p.n_total(); ++i) {
      const bool ghost = i >= p.n_local;
      ah(i, 0) = ghost ? 1.0 : 0.0;
      ah(i, 1) = ghost ? static_cast<double>(id(i)) : 0.0;
      ah(i, 2) = ghost ? 0.0 : 7.0;
    }
    Kokkos::deep_copy(a, ah);
    pc.reverse(p, a);
    std::vector<double> copies(kAtoms + 1, 0.0);
    for (const Image& g : expected_ghosts(pc, after)) copies[g.id] += 1.0;
    MPI_Allreduce(MPI_IN_PLACE, copies.data(), kAtoms + 1, MPI_DOUBLE, MPI_SUM, pc.comm());
    auto res = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
    long long bad_owned = 0, bad_ghost = 0, with_copies = 0;
    for (int i = 0; i < p.n_total(); ++i) {
      const double c = copies[id(i)];
      if (i < p.n_local) {
        if (res(i, 0) != c || res(i, 1) != c * id(i) || res(i, 2) != 7.0) ++bad_owned;
        if (c > 0) ++with_copies;
      } else if (res(i, 0) != 1.0 || res(i, 1) != static_cast<double>(id(i)) || res(i, 2) != 0.0) {
        ++bad_ghost;
      }
    }
    CHECK(bad_owned == 0);
    CHECK(bad_ghost == 0);
    CHECK((p.n_local == 0 || with_copies > 0));
  }
}

// Every factorisation of the rank count whose sub-domains are wide enough, and the automatic choice.
std::vector<Int3> decompositions() {
  int np = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  std::vector<Int3> out{Int3{0, 0, 0}};
  for (int px = 1; px <= np; ++px)
    for (int py = 1; py <= np; ++py)
      for (int pz = 1; pz <= np; ++pz) {
        if (px * py * pz != np) continue;
        const Int3 req{px, py, pz};
        bool ok = true;
        for (int d = 0; d < 3; ++d) ok = ok && len(d) / req[d] >= kRc;
        if (ok) out.push_back(req);
      }
  return out;
}

}  // namespace

TEST_CASE("particle_comm: periodic box, every decomposition", "[md][particle_comm]") {
  for (const Int3& req : decompositions()) run_battery({true, true, true}, req);
}

TEST_CASE("particle_comm: walls in z", "[md][particle_comm]") {
  for (const Int3& req : decompositions()) run_battery({true, true, false}, req);
}

// A charge per id that is no simple function of the other fields: both signs, not a multiple of the id.
double charge_of(long long id) { return (id % 7 - 3) * 0.375 + 1e-7 * static_cast<double>(id * id % 1009); }

TEST_CASE("particle_comm: every owned and ghost atom carries its own charge", "[md][particle_comm]") {
  for (const Int3& req : decompositions()) {
    ParticleComm pc(MPI_COMM_WORLD, kLo, kHi, {true, true, true}, req, kRc);
    INFO("dims " << pc.dims()[0] << " x " << pc.dims()[1] << " x " << pc.dims()[2]);
    Particles p = distribute(pc, make_atoms());
    {
      auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.id);
      auto q = Kokkos::create_mirror_view(p.q);
      for (int i = 0; i < p.n_local; ++i) q(i) = charge_of(id(i));
      Kokkos::deep_copy(p.q, q);
    }
    // Atoms move up to 0.9 (across ranks and periodic faces), migrate, and are copied as ghosts.
    move_owned(p, [](long long id, int d, double x) { return x + 0.9 * (2.0 * hash01(id, 30 + d) - 1.0); });
    pc.exchange(p);
    pc.borders(p);
    const Host h = to_host(p);
    long long bad_owned = 0, bad_ghost = 0, owned = p.n_local, ghosts = p.n_ghost;
    for (int i = 0; i < p.n_total(); ++i)
      if (h.q(i) != charge_of(h.id(i))) ++(i < p.n_local ? bad_owned : bad_ghost);
    CHECK(bad_owned == 0);
    CHECK(bad_ghost == 0);
    MPI_Allreduce(MPI_IN_PLACE, &owned, 1, MPI_LONG_LONG, MPI_SUM, pc.comm());
    MPI_Allreduce(MPI_IN_PLACE, &ghosts, 1, MPI_LONG_LONG, MPI_SUM, pc.comm());
    CHECK(owned == kAtoms);
    CHECK(ghosts > 0);
  }
}

TEST_CASE("particle_comm: ids above 2^53 travel exactly", "[md][particle_comm]") {
  constexpr long long kBig = (1LL << 62) + 1;  // id + kBig is not representable as a double
  ParticleComm pc(MPI_COMM_WORLD, kLo, kHi, {true, true, true}, Int3{0, 0, 0}, kRc);
  Particles p = distribute(pc, make_atoms());
  {
    auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.id);
    for (int i = 0; i < p.n_local; ++i) id(i) += kBig;
    Kokkos::deep_copy(p.id, id);
  }
  move_owned(p, [](long long id, int d, double x) { return x + 0.9 * (2.0 * hash01(id - kBig, 40 + d) - 1.0); });
  pc.exchange(p);
  pc.borders(p);
  const Host h = to_host(p);
  long long bad = 0, sum = 0;
  for (int i = 0; i < p.n_total(); ++i) {
    const long long k = h.id(i) - kBig;
    if (k < 1 || k > kAtoms || h.type(i) != type_of(k) || h.q(i) != q_of(k)) ++bad;
    if (i < p.n_local) sum += k;
  }
  CHECK(bad == 0);
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_LONG_LONG, MPI_SUM, pc.comm());
  CHECK(sum == static_cast<long long>(kAtoms) * (kAtoms + 1) / 2);
}
