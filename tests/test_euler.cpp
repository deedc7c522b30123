// Compressible Euler (physics/climate/euler.*): mass conserved to round-off in every closed case and not
// in the open one, fields bitwise identical for every decomposition of the rank count (x, z, xz splits in
// 2D; with y in 3D) and to the run on one rank, and for split and unsplit stepping, a y-uniform 3D run
// equal slice by slice to the 2D run, a diverging run located; linear waves at their exact frequencies
// (test_euler_waves.cpp); the split step's kernels and the pressure's series (test_euler_kernels.cpp).
// Hidden [long] cases (run at np = 1, 2 by CTest): miniWeather's thermal criterion at 100 x 50 cells and
// 400 s, and the Skamarock-Klemp wave's symmetry about xc + U t.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "climate/euler.hpp"
#include "climate/euler_flux.hpp"
#include "euler_test.hpp"
#include "mpi_call_counter.hpp"
#include "mpi_world.hpp"

using namespace stratus;
using climate::Euler;

namespace {

using test::EulerRun;
using test::gather;
using test::make;

// Runs `steps` steps of dt (or of the stable step when dt = 0).
EulerRun run_steps(const std::vector<std::string>& overrides, int steps, double dt = 0.0,
                   MPI_Comm comm = MPI_COMM_WORLD) {
  auto sim = make(overrides, comm);
  for (int s = 0; s < steps; ++s) sim.step(dt > 0.0 ? dt : sim->stable_dt());
  return sim;
}

EulerRun run_to(const std::vector<std::string>& overrides, double t_end) {
  auto sim = make(overrides);
  sim.to(t_end);
  return sim;
}

std::vector<Int3> all_dims(int np, const Int3& n) {
  std::vector<Int3> out;
  for (int px = 1; px <= np; ++px)
    for (int py = 1; py <= np; ++py)
      for (int pz = 1; pz <= np; ++pz)
        if (px * py * pz == np && n[0] % px == 0 && n[1] % py == 0 && n[2] % pz == 0 && n[0] / px >= 2 &&
            n[2] / pz >= 2 && (n[1] == 1 || n[1] / py >= 2))
          out.push_back(Int3{px, py, pz});
  return out;
}

std::string decomp_key(const Int3& d) {
  return "parallel.decomp=" + std::to_string(d[0]) + " " + std::to_string(d[1]) + " " + std::to_string(d[2]);
}

double diag(const EulerRun& sim, const std::string& name) { return sim.diagnostics().get(name); }

int nranks() {
  int np = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  return np;
}

}  // namespace

TEST_CASE("mass is conserved to round-off in every closed case, and grows in the open one", "[euler][mpi]") {
  for (const char* c : {"thermal", "collision", "gravity_waves", "density_current", "straka", "skamarock_klemp",
                        "bryan_fritsch", "linear_gravity"}) {
    for (const char* split : {"alternating", "unsplit"}) {
      INFO("case " << c << ", " << split);
      const std::string cfl = std::string(split) == "unsplit" ? "euler.cfl=0.8" : "euler.cfl=1.5";
      auto sim = run_steps(
          {"grid.nx=32", "grid.ny=1", "grid.nz=16", "grid.length=20000 1 10000", std::string("euler.case=") + c,
           std::string("euler.splitting=") + split, cfl, "euler.viscosity=75", "euler.diffusivity=75"},
          25);
      const double dm = diag(sim, "d_mass");
      CHECK(std::abs(dm) <= 1e-12);
      CHECK(std::isfinite(diag(sim, "d_te")));
    }
  }
  auto inj =
      run_steps({"grid.nx=32", "grid.ny=1", "grid.nz=16", "grid.length=20000 1 10000", "euler.case=injection"}, 25);
  CHECK(diag(inj, "d_mass") > 1e-8);  // a jet enters through the left boundary
}

TEST_CASE("fields are bitwise identical for every decomposition and on one rank", "[euler][mpi]") {
  struct Setup {
    Int3 n;
    std::vector<std::string> keys;
    int steps;
  };
  std::vector<Setup> setups = {
      {Int3{40, 1, 20}, {"euler.case=collision", "grid.length=20000 1 10000"}, 20},
      {Int3{40, 1, 20},
       {"euler.case=straka", "grid.length=51200 1 6400", "euler.viscosity=75", "euler.diffusivity=75",
        "euler.max_speed=0", "euler.cfl=1.0"},
       20},
      {Int3{40, 1, 20},
       {"euler.case=injection", "grid.length=20000 1 10000", "euler.splitting=unsplit", "euler.cfl=0.8"},
       15},
      {Int3{12, 8, 12}, {"euler.case=thermal", "grid.length=12000 8000 10000"}, 8},
      // Rows of several runs of the line kernels (128 cells each, the last one shorter); in 3D, y periodic
      // within the rank with two runs along x.
      {Int3{600, 1, 10}, {"euler.case=thermal", "grid.length=60000 1 10000"}, 10},
      {Int3{130, 8, 6}, {"euler.case=thermal", "grid.length=13000 8000 10000"}, 6},
      // y and z cut into blocks of at least 6 cells (sweeps across the cuts in one pass from the
      // neighbours' levels) and, in the other decompositions, blocks too thin for that.
      {Int3{24, 1, 24}, {"euler.case=collision", "grid.length=12000 1 12000"}, 12},
      {Int3{8, 12, 12}, {"euler.case=thermal", "grid.length=8000 12000 10000"}, 6},
  };
  const int np = nranks();
  test::note_one_rank_compares_itself();
  for (const auto& s : setups) {
    std::vector<std::string> keys = s.keys;
    keys.push_back("grid.nx=" + std::to_string(s.n[0]));
    keys.push_back("grid.ny=" + std::to_string(s.n[1]));
    keys.push_back("grid.nz=" + std::to_string(s.n[2]));
    const auto serial = gather(*run_steps(keys, s.steps, 0.0, MPI_COMM_SELF));  // on one rank
    for (double x : serial) REQUIRE(std::isfinite(x));
    const auto dims_list = all_dims(np, s.n);
    REQUIRE(dims_list.size() >= (np == 1 ? 1u : 2u));
    for (const Int3& dims : dims_list) {
      auto o = keys;
      o.push_back(decomp_key(dims));
      INFO(s.keys[0] << " decomposition " << dims[0] << "x" << dims[1] << "x" << dims[2]);
      const auto f = gather(*run_steps(o, s.steps));
      REQUIRE(f.size() == serial.size());
      REQUIRE(std::memcmp(serial.data(), f.data(), f.size() * sizeof(double)) == 0);
    }
  }
}

TEST_CASE("the output pressure perturbation is exact for a perturbation of 1e-10", "[euler][mpi]") {
  // p' is linear in a tiny rho theta perturbation d: p'(2 d) = 2 p'(d) (1 + O(d / rho theta)). Taken as the
  // difference of two pressures of about 1e5 Pa, p' of about 1e-5 Pa carries an error of about 2e-11 Pa, a
  // relative 1e-6; from the series it is exact to a few ulp.
  auto sim = make({"euler.case=thermal", "grid.nx=16", "grid.ny=1", "grid.nz=8", "grid.length=2000 1 1000"});
  const LocalGrid& g = sim->grid();
  const auto p_prime = [&](double d) {
    const auto state = sim->checkpoint_fields();
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), state->data);
    Kokkos::deep_copy(h, 0.0);
    Kokkos::deep_copy(Kokkos::subview(h, static_cast<int>(climate::kRhot), Kokkos::ALL, Kokkos::ALL, Kokkos::ALL), d);
    Kokkos::deep_copy(state->data, h);
    const auto out = sim->grid_fields();
    auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out->data);
    std::vector<double> p;
    for (int k = g.ng[2]; k < g.ng[2] + g.n[2]; ++k)
      for (int i = g.ng[0]; i < g.ng[0] + g.n[0]; ++i) p.push_back(ho(5, k, g.ng[1], i));
    return p;
  };
  const std::vector<double> zero = p_prime(0.0), one = p_prime(3e-8), two = p_prime(6e-8);
  double worst = 0.0, at_rest = 0.0;
  for (std::size_t c = 0; c < one.size(); ++c) {
    worst = std::max(worst, std::abs(two[c] - 2.0 * one[c]) / std::abs(one[c]));
    at_rest = std::max(at_rest, std::abs(zero[c]));
  }
  INFO("largest |p'(2 d) - 2 p'(d)| / |p'(d)| " << worst << ", p'(d) about " << one[0] << " Pa");
  CHECK(at_rest == 0.0);
  CHECK(one[0] > 1e-6);
  CHECK(worst < 1e-9);
}

TEST_CASE("the output fields and the diagnostics of every owned cell come from that cell's state", "[euler][mpi]") {
  // A state whose momenta differ in every cell and variable (from the cell's global index), density at its
  // background and rho theta a small perturbation d of it: rho is then the level's background, the same
  // across a level; u, v, w are the momenta over it to the last bit; theta' = d / rho (to its rounding) and
  // p' = gamma p d / (rho theta) to first order in d. Catches a variable, a row or a level taken from the wrong place.
  using namespace climate::euler_const;
  const std::vector<std::vector<std::string>> setups = {
      {"euler.case=thermal", "grid.nx=24", "grid.ny=1", "grid.nz=12", "grid.length=20000 1 10000"},
      {"euler.case=thermal", "grid.nx=10", "grid.ny=6", "grid.nz=8", "grid.length=20000 15000 10000"},
      {"euler.case=thermal", "grid.nx=150", "grid.ny=1", "grid.nz=8", "grid.length=30000 1 1600"}};
  for (const auto& keys : setups) {
    INFO(keys[1] << " " << keys[2] << " " << keys[3]);
    auto sim = make(keys);
    const LocalGrid& g = sim->grid();
    const auto state = sim->checkpoint_fields();
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), state->data);
    Kokkos::deep_copy(h, 0.0);
    const auto cell = [&](int i, int j, int k) {  // 1, 2, ... by global index
      return 1.0 + (i - g.ng[0] + g.offset[0]) +
             g.global_n[0] * ((j - g.ng[1] + g.offset[1]) + g.global_n[1] * (k - g.ng[2] + g.offset[2]));
    };
    for (int k = g.ng[2]; k < g.ng[2] + g.n[2]; ++k)
      for (int j = g.ng[1]; j < g.ng[1] + g.n[1]; ++j)
        for (int i = g.ng[0]; i < g.ng[0] + g.n[0]; ++i) {
          h(climate::kUmom, k, j, i) = cell(i, j, k);
          h(climate::kVmom, k, j, i) = -2.0 * cell(i, j, k);
          h(climate::kWmom, k, j, i) = 0.5 + 3.0 * cell(i, j, k);
          h(climate::kRhot, k, j, i) = 1e-7 * cell(i, j, k);
        }
    Kokkos::deep_copy(state->data, h);
    const auto out = sim->grid_fields();
    auto o = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out->data);
    int wrong = 0, cells = 0;
    double theta_err = 0.0, p_err = 0.0;
    for (int k = g.ng[2]; k < g.ng[2] + g.n[2]; ++k)
      for (int j = g.ng[1]; j < g.ng[1] + g.n[1]; ++j)
        for (int i = g.ng[0]; i < g.ng[0] + g.n[0]; ++i) {
          const double rho = o(0, k, j, i), d = h(climate::kRhot, k, j, i);
          wrong += rho != o(0, k, g.ng[1], g.ng[0]) || !(rho > 0.0);
          wrong += o(1, k, j, i) != h(climate::kUmom, k, j, i) / rho;
          wrong += o(2, k, j, i) != h(climate::kVmom, k, j, i) / rho;
          wrong += o(3, k, j, i) != h(climate::kWmom, k, j, i) / rho;
          // (theta' is the difference of two values of about 300 K: its rounding is absolute, about 1e-13 K)
          theta_err = std::max(theta_err, std::abs(o(4, k, j, i) - d / rho));
          const double rt0 = 300.0 * rho;  // the thermal case's background theta
          const double p1 = kGamma * kC0 * std::pow(rt0, kGamma) / rt0 * d;
          p_err = std::max(p_err, std::abs(o(5, k, j, i) / p1 - 1.0));
          ++cells;
        }
    INFO(cells << " cells; theta' off by " << theta_err << " K, p' by " << p_err << " (relative)");
    CHECK(cells == g.n[0] * g.n[1] * g.n[2]);
    CHECK(wrong == 0);
    CHECK(theta_err < 1e-12);
    CHECK(p_err < 1e-6);
    // The diagnostics of the same state (rows of 24 cells; of 10 and 150: lanes of 8 and a remainder, and
    // past a chunk of 128 cells): the mass, and theta' and |w| at their extremes, which are the same
    // arithmetic as the output fields'.
    double ext[3] = {std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), 0.0}, mass = 0.0;
    for (int k = g.ng[2]; k < g.ng[2] + g.n[2]; ++k)
      for (int j = g.ng[1]; j < g.ng[1] + g.n[1]; ++j)
        for (int i = g.ng[0]; i < g.ng[0] + g.n[0]; ++i) {
          mass += o(0, k, j, i) * g.cell_volume();
          ext[0] = std::min(ext[0], o(4, k, j, i));
          ext[1] = std::max(ext[1], o(4, k, j, i));
          ext[2] = std::max(ext[2], std::abs(o(3, k, j, i)));
        }
    MPI_Allreduce(MPI_IN_PLACE, &mass, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &ext[0], 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &ext[1], 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK(std::abs(diag(sim, "mass") - mass) <= 1e-13 * mass);
    CHECK(diag(sim, "theta_min") == ext[0]);
    CHECK(diag(sim, "theta_max") == ext[1]);
    CHECK(diag(sim, "w_max") == ext[2]);
  }
}

TEST_CASE("te is the total energy 0.5 rho |u|^2 + rho cv T + rho g z, T from theta by the Exner function",
          "[euler][mpi]") {
  // The kernel takes rho cv T as cv p / R; here T = theta (p / p0)^(R / cp) with p = C0 (rho theta)^gamma,
  // both by std::pow, from the output fields of a bubble that has started to move (in 3D: v too). The
  // thermal case's background theta is 300 K at every height.
  using namespace climate::euler_const;
  const std::vector<std::vector<std::string>> setups = {
      {"euler.case=thermal", "grid.nx=24", "grid.ny=1", "grid.nz=12", "grid.length=20000 1 10000"},
      {"euler.case=thermal", "grid.nx=8", "grid.ny=6", "grid.nz=8", "grid.length=20000 15000 10000"}};
  for (const auto& keys : setups) {
    INFO(keys[1] << " " << keys[2] << " " << keys[3]);
    auto sim = run_steps(keys, 5);
    const LocalGrid& g = sim->grid();
    const auto out = sim->grid_fields();
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out->data);
    double te = 0.0, kinetic = 0.0;
    for (int k = g.ng[2]; k < g.ng[2] + g.n[2]; ++k)
      for (int j = g.ng[1]; j < g.ng[1] + g.n[1]; ++j)
        for (int i = g.ng[0]; i < g.ng[0] + g.n[0]; ++i) {
          const double rho = h(0, k, j, i), u = h(1, k, j, i), v = h(2, k, j, i), w = h(3, k, j, i);
          const double theta = 300.0 + h(4, k, j, i);
          const double p = kC0 * std::pow(rho * theta, kGamma);
          const double temp = theta * std::pow(p / kP0, kRd / kCp);
          const double z = g.center(2, k) - g.lo[2];
          const double ke = 0.5 * rho * (u * u + v * v + w * w);
          kinetic += ke * g.cell_volume();
          te += (ke + rho * kCv * temp + rho * kGrav * z) * g.cell_volume();
        }
    MPI_Allreduce(MPI_IN_PLACE, &te, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &kinetic, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    INFO("te " << diag(sim, "te") << " J, from the fields " << te << " J, of which kinetic " << kinetic << " J");
    CHECK(kinetic > 0.0);
    CHECK(std::abs(diag(sim, "te") - te) <= 1e-12 * te);
  }
}

TEST_CASE("an x-z run takes up a v momentum that a restart brings after v was 0", "[euler][mpi]") {
  // Whether v is 0 everywhere is found once, at the first split step after the state was set; a restart
  // sets the state through checkpoint_fields(), so a v that arrives that way must be stepped, not frozen.
  auto sim = make({"euler.case=collision", "grid.nx=40", "grid.ny=1", "grid.nz=20", "grid.length=20000 1 10000"});
  for (int n = 0; n < 3; ++n) sim.step(sim->stable_dt());  // v = 0: the v momentum is skipped
  const auto fields = sim->checkpoint_fields();
  REQUIRE(fields);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields->data);
  for (std::size_t k = 0; k < h.extent(1); ++k)
    for (std::size_t i = 0; i < h.extent(3); ++i) h(climate::kVmom, k, 0, i) = 3.0 + 1e-3 * static_cast<double>(i);
  Kokkos::deep_copy(fields->data, h);
  const std::vector<double> before = gather(*sim);
  for (int n = 0; n < 3; ++n) sim.step(sim->stable_dt());
  const std::vector<double> after = gather(*sim);
  const std::size_t cells = after.size() / climate::kEulerVars;
  double moved = 0.0;
  for (std::size_t c = climate::kVmom * cells; c < (climate::kVmom + 1) * cells; ++c)
    moved = std::max(moved, std::fabs(after[c] - before[c]));
  CHECK(moved > 1e-6);  // stepped (advected, diffused), not left as it was put in
}

TEST_CASE("a y-uniform 3D run equals the 2D run in every y slice, bit for bit", "[euler][mpi]") {
  for (const char* split : {"alternating", "unsplit"}) {
    INFO(split);
    const std::vector<std::string> base = {"euler.case=skamarock_klemp", std::string("euler.splitting=") + split,
                                           "grid.nx=40", "grid.nz=10", "euler.cfl=0.8"};
    auto k2 = base, k3 = base;
    k2.insert(k2.end(), {"grid.ny=1", "grid.length=300000 1 10000"});
    k3.insert(k3.end(), {"grid.ny=4", "grid.length=300000 30000 10000"});
    const double dt = 2.0;  // the same step in both (the automatic one depends on the smallest spacing)
    const auto f2 = gather(*run_steps(k2, 12, dt));
    const auto f3 = gather(*run_steps(k3, 12, dt));
    const std::size_t nx = 40, nz = 10, ny = 4;
    REQUIRE(f3.size() == f2.size() * ny);
    long long bad = 0;
    for (std::size_t v = 0; v < climate::kEulerVars; ++v)
      for (std::size_t k = 0; k < nz; ++k)
        for (std::size_t j = 0; j < ny; ++j)
          for (std::size_t i = 0; i < nx; ++i) {
            const double a = f2[(v * nz + k) * nx + i], b = f3[((v * nz + k) * ny + j) * nx + i];
            if (v == climate::kVmom ? b != 0.0 : std::memcmp(&a, &b, sizeof(double)) != 0) ++bad;
          }
    CHECK(bad == 0);
  }
}

TEST_CASE("thermal bubble at 100 x 50 cells and 400 s conserves mass to 1e-13 and loses a little energy",
          "[.long][euler]") {
  // miniWeather's check_output.sh runs this case and wants |d_mass| < 1e-13 and -4.5e-5 < d_te < 0. Its
  // mass is ours, and its bound applies as it is. Its energy is another quantity (kinetic without the 1/2,
  // plus internal, no potential), so its bound does not carry over. Ours is the physical total energy
  // (0.5 rho |u|^2 + rho cv T + rho g z): measured d_te = -1.05e-6 (docs/validation.md). The scheme only
  // dissipates (hyperviscosity, upwinding), so d_te < 0; the bound of 1e-5 is 10x the measurement: an
  // energy source, or a loss ten times larger, fails it.
  auto sim = run_to({"euler.case=thermal", "grid.nx=100", "grid.ny=1", "grid.nz=50", "grid.length=20000 1 10000"}, 400);
  const double dm = diag(sim, "d_mass"), dte = diag(sim, "d_te");
  INFO("d_mass " << dm << ", d_te " << dte);
  CHECK(std::abs(dm) <= 1e-13);
  CHECK(dte < 0.0);
  CHECK(std::abs(dte) < 1e-5);
  // The bubble has risen: the warmest air is well above its start (2 km) and still about 3 K warm.
  CHECK(diag(sim, "theta_max") > 1.0);
}

TEST_CASE("Skamarock-Klemp inertia-gravity wave stays symmetric about xc + U t", "[.long][euler]") {
  // 300 km x 10 km, dx = 2 km, dz = 500 m, 3000 s: the perturbation starts at 100 km and drifts 60 km.
  auto sim = run_to(
      {"euler.case=skamarock_klemp", "grid.nx=150", "grid.ny=1", "grid.nz=20", "grid.length=300000 1 10000"}, 3000);
  const LocalGrid& g = sim->grid();
  std::vector<double> out;
  {
    auto fields = sim->grid_fields();
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields->data);
    const long long nx = g.global_n[0], nz = g.global_n[2];
    std::vector<double> local(static_cast<std::size_t>(nx * nz), 0.0);
    out.resize(local.size());
    for (int k = 0; k < g.n[2]; ++k)
      for (int i = 0; i < g.n[0]; ++i)
        local[(g.offset[2] + k) * nx + g.offset[0] + i] = h(4, k + g.ng[2], g.ng[1], i + g.ng[0]);  // theta'
    MPI_Allreduce(local.data(), out.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  // The centre moves to 100 km + 20 m/s * 3000 s = 160 km, the face between cells 79 and 80.
  const int nx = 150, nz = 20, c = 80;
  double amax = 0.0, asym = 0.0;
  for (int k = 0; k < nz; ++k)
    for (int s = 0; s < 50; ++s) {
      const double a = out[k * nx + c + s], b = out[k * nx + c - 1 - s];
      amax = std::max({amax, std::abs(a), std::abs(b)});
      asym = std::max(asym, std::abs(a - b));
    }
  INFO("max |theta'| " << amax << " K, largest asymmetry " << asym << " K");
  CHECK(amax > 1e-3);         // the wave is there (initial amplitude 0.01 K)
  CHECK(asym < 0.02 * amax);  // measured: 0.55 % (1.4e-5 K of 2.5e-3 K)
}

TEST_CASE("a 3D bubble stays symmetric under swapping x and y (the y fluxes are the x fluxes turned)", "[euler][mpi]") {
  // Unsplit stepping treats x and y alike; only the order of adding their tendencies differs.
  auto sim = run_steps({"euler.case=thermal", "euler.splitting=unsplit", "euler.cfl=0.8", "grid.nx=12", "grid.ny=12",
                        "grid.nz=12", "grid.length=12000 12000 10000"},
                       10);
  const auto f = gather(*sim);
  const std::size_t n = 12;
  auto at = [&](int v, std::size_t k, std::size_t j, std::size_t i) { return f[((v * n + k) * n + j) * n + i]; };
  double worst = 0.0, umax = 0.0;
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t i = 0; i < n; ++i) {
        for (int v : {climate::kDens, climate::kWmom, climate::kRhot})
          worst = std::max(worst, std::abs(at(v, k, j, i) - at(v, k, i, j)));
        worst = std::max(worst, std::abs(at(climate::kUmom, k, j, i) - at(climate::kVmom, k, i, j)));
        umax = std::max(umax, std::abs(at(climate::kUmom, k, j, i)));
      }
  INFO("largest asymmetry " << worst << ", largest rho u " << umax);
  CHECK(umax > 1e-3);  // the bubble has started to rise and spread
  CHECK(worst <= 1e-12 * std::max(1.0, umax));
}

TEST_CASE("Bryan-Fritsch dry bubble: pressure unperturbed at the start, mirror-symmetric as it rises", "[euler][mpi]") {
  const std::vector<std::string> keys = {"euler.case=bryan_fritsch", "grid.nx=40", "grid.ny=1", "grid.nz=20",
                                         "grid.length=20000 1 10000"};
  {
    auto sim = make(keys);
    const auto fields = sim->grid_fields();
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fields->data);
    const LocalGrid& g = sim->grid();
    double pmax = 0.0;
    for (int k = g.ng[2]; k < g.ng[2] + g.n[2]; ++k)
      for (int i = g.ng[0]; i < g.ng[0] + g.n[0]; ++i) pmax = std::max(pmax, std::abs(h(5, k, g.ng[1], i)));
    MPI_Allreduce(MPI_IN_PLACE, &pmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const double tmax = diag(sim, "theta_max");
    INFO("max |p'| " << pmax << " Pa, theta'_max " << tmax << " K");
    CHECK(pmax < 1e-6);  // the density took up the warming (a bare theta' of 2 K would give ~700 Pa)
    CHECK(tmax > 1.7);   // cell averages of the +2 K bubble (dx = 500 m: 1.805 K)
    CHECK(tmax <= 2.0);
    CHECK(diag(sim, "theta_min") >= 0.0);
  }
  auto sim = run_steps(keys, 30);
  const auto f = gather(*sim);
  const std::size_t nx = 40, nz = 20;
  auto at = [&](int v, std::size_t k, std::size_t i) { return f[(static_cast<std::size_t>(v) * nz + k) * nx + i]; };
  double wmax = 0.0, worst = 0.0;
  for (std::size_t k = 0; k < nz; ++k)
    for (std::size_t i = 0; i < nx; ++i) {
      const std::size_t m = nx - 1 - i;  // the mirror image about x = 10 km
      wmax = std::max(wmax, std::abs(at(climate::kWmom, k, i)));
      for (int v : {climate::kDens, climate::kWmom, climate::kRhot})
        worst = std::max(worst, std::abs(at(v, k, i) - at(v, k, m)));
      worst = std::max(worst, std::abs(at(climate::kUmom, k, i) + at(climate::kUmom, k, m)));
    }
  INFO("max |rho w| " << wmax << ", largest asymmetry " << worst);
  CHECK(wmax > 1e-2);            // the warm air has started to rise
  CHECK(worst <= 1e-10 * wmax);  // symmetric about the bubble's axis to round-off
  CHECK(std::abs(diag(sim, "d_mass")) <= 1e-12);
}

TEST_CASE("a 3D run on one rank makes no MPI call in its halo exchanges", "[euler][mpi]") {
  // Periodic in x and y, walls in z, on MPI_COMM_SELF: every halo link is the rank's own (device copies).
  const long long before = test::mpi_p2p_calls();
  for (const char* split : {"alternating", "unsplit"}) {
    auto sim = run_steps({"euler.case=thermal", "grid.nx=12", "grid.ny=8", "grid.nz=10", "grid.length=12000 8000 10000",
                          std::string("euler.splitting=") + split, "euler.cfl=0.8"},
                         3, 0.0, MPI_COMM_SELF);
    CHECK(std::isfinite(sim.diagnostics().get("mass")));
  }
  CHECK(test::mpi_p2p_calls() == before);
}
