// ParticleComm's sub-domains: their bounds and ghost bounds, the choice of dims (the smallest sub-domain
// surface, requested entries honoured), a cutoff wider than a sub-domain (InputError naming the
// direction), and an atom beyond a wall or one that jumped more than a sub-domain (Error on every rank
// with the same message). Built into test_particle_comm.
#include <catch2/catch.hpp>
#include <string>

#include "comm/particle_comm.hpp"
#include "core/error.hpp"
#include "particle_comm_test.hpp"

using namespace stratus;
using namespace stratus::test;

namespace {

// The rank whose sub-domain is at the given corner coordinates.
bool at(const ParticleComm& pc, int cx, int cy, int cz) {
  return pc.coords()[0] == cx && pc.coords()[1] == cy && pc.coords()[2] == cz;
}

}  // namespace

TEST_CASE("particle_comm: sub-domain bounds and choice of dims", "[md][particle_comm]") {
  int np = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  ParticleComm pc(MPI_COMM_WORLD, kLo, kHi, {true, true, true}, Int3{0, 0, 0}, kRc);
  long long prod = 1;
  for (int d = 0; d < 3; ++d) {
    prod *= pc.dims()[d];
    CHECK(pc.sub_lo()[d] == pc.bound(pc.coords()[d], d));
    CHECK(pc.sub_hi()[d] == pc.bound(pc.coords()[d] + 1, d));
    CHECK(pc.bound(0, d) == kLo[d]);
    CHECK(pc.bound(pc.dims()[d], d) == kHi[d]);
    CHECK(pc.ghost_lo()[d] < pc.sub_lo()[d] - kRc);
    CHECK(pc.ghost_hi()[d] > pc.sub_hi()[d] + kRc);
    CHECK(pc.ghost_hi()[d] < pc.sub_hi()[d] + kRc * (1 + 1e-5));
  }
  CHECK(prod == np);
  // The smallest sub-domain surface: 2 ranks split z (the longest side), 4 ranks split x and z.
  CHECK(ParticleComm::choose_dims(2, kLo, kHi, {true, true, true}, Int3{0, 0, 0}, kRc)[2] == 2);
  const Int3 four = ParticleComm::choose_dims(4, kLo, kHi, {true, true, true}, Int3{0, 0, 0}, kRc);
  CHECK((four[0] == 2 && four[1] == 1 && four[2] == 2));
  // Requested entries are honoured; 8 ranks in y would be 1 wide: y is not split further than 4.
  const Int3 eight = ParticleComm::choose_dims(8, kLo, kHi, {true, true, true}, Int3{0, 0, 0}, kRc);
  CHECK(eight[1] <= 4);
  CHECK(ParticleComm::choose_dims(4, kLo, kHi, {true, true, true}, Int3{1, 4, 0}, kRc)[1] == 4);
  // A non-periodic direction with one rank may be narrower than the cutoff.
  CHECK(ParticleComm::choose_dims(1, kLo, Real3{5.0, 8.0, 3.0}, {true, true, false}, Int3{0, 0, 0}, kRc)[2] == 1);
}

TEST_CASE("particle_comm: input errors", "[md][particle_comm]") {
  int np = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  // np ranks in x over a box 3 * np long: sub-domains 3 wide, less than 3.5.
  const Real3 hi{kLo[0] + 3.0 * np, kHi[1], kHi[2]};
  CHECK_THROWS_AS(ParticleComm(MPI_COMM_WORLD, kLo, hi, {true, true, true}, Int3{np, 1, 1}, 3.5), InputError);
  CHECK_THROWS_WITH(ParticleComm(MPI_COMM_WORLD, kLo, hi, {true, true, true}, Int3{np, 1, 1}, 3.5),
                    Catch::Contains("wide in x") && Catch::Contains("cutoff + skin 3.5"));
  // A cutoff beyond the 8-wide periodic y side, whatever the decomposition.
  CHECK_THROWS_WITH(ParticleComm(MPI_COMM_WORLD, kLo, kHi, {true, true, true}, Int3{0, 1, 0}, 9.0),
                    Catch::Contains("wide in") && Catch::Contains("less than the cutoff + skin 9"));
  CHECK_THROWS_WITH(ParticleComm::choose_dims(2, kLo, kHi, {true, true, true}, Int3{2, 1, 1}, 6.0),
                    Catch::Contains("a sub-domain would be 5 wide in x (box 10 over 2 ranks)") &&
                        Catch::Contains("use fewer ranks in x"));
  CHECK_THROWS_AS(ParticleComm::choose_dims(4, kLo, kHi, {true, true, true}, Int3{3, 0, 0}, kRc), InputError);
  CHECK_THROWS_AS(ParticleComm::choose_dims(1, kLo, kHi, {true, true, true}, Int3{0, 0, 0}, -1.0), InputError);
  CHECK_THROWS_AS(ParticleComm::choose_dims(1, kHi, kLo, {true, true, true}, Int3{0, 0, 0}, kRc), InputError);
}

TEST_CASE("particle_comm: runaway atoms are collective errors", "[md][particle_comm]") {
  SECTION("beyond a wall") {
    ParticleComm pc(MPI_COMM_WORLD, kLo, kHi, {true, true, false}, Int3{0, 0, 0}, kRc);
    Particles p = distribute(pc, make_atoms());
    pc.borders(p);
    // Only the rank at the top in z pushes its first atom 0.5 beyond the upper z face.
    const bool culprit = at(pc, 0, 0, pc.dims()[2] - 1);
    long long victim = -1;
    if (culprit) {
      auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.id);
      victim = id(0);
      move_owned(p, [&](long long i, int d, double x) { return i == victim && d == 2 ? kHi[2] + 0.5 : x; });
    }
    std::string what;
    bool threw = false;
    try {
      pc.exchange(p);
    } catch (const Error& e) {
      threw = true;
      what = e.what();
    }
    CHECK(threw);
    CHECK_THAT(what, Catch::Contains("left the box through the non-periodic upper z face at 14") &&
                         Catch::Contains("the time step is too large"));
    if (culprit) CHECK_THAT(what, Catch::Contains("atom " + std::to_string(victim) + " at ("));
  }
  SECTION("more than a sub-domain") {
    ParticleComm pc(MPI_COMM_WORLD, kLo, kHi, {true, true, true}, Int3{0, 0, 0}, kRc);
    Particles p = distribute(pc, make_atoms());
    if (at(pc, 0, 0, 0)) {
      auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.id);
      const long long victim = id(0);
      move_owned(p, [&](long long i, int d, double x) { return i == victim && d == 0 ? x + 2.5 * len(0) : x; });
    }
    std::string what;
    try {
      pc.exchange(p);
    } catch (const Error& e) {
      what = e.what();
    }
    CHECK_THAT(what, Catch::Contains("moved more than") && Catch::Contains("in x since the last exchange"));
  }
}
