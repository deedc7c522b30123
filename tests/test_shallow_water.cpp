// Rotating shallow water: the linear inertia-gravity wave converges at the scheme's formal order (3: the
// hyperviscosity is O(dx^3) at a fixed Courant number and SSP-RK3 is 3rd order), mass is conserved to
// round-off, the geostrophic jet stays steady, the dam break stays finite with its bore moving into the
// shallow side, and the final fields are bitwise identical for every decomposition of the rank count and
// to the run on one rank. Runs at np = 1, 2, 4.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <vector>

#include "climate/shallow_water.hpp"
#include "core/error.hpp"
#include "grid_physics_test.hpp"

using namespace stratus;
using climate::ShallowWater;

namespace {

using test::gather;
using SwRun = test::Run<ShallowWater>;

Deck make_deck(const std::string& text, const std::vector<std::string>& overrides) {
  static const OptionRegistry reg = test::grid_registry(climate::declare_shallow_water_options);
  return Deck::parse(reg, text, "<test>", overrides);
}

// Runs to t_end with the stable step (the last one shortened) and returns the simulation.
SwRun run(const std::string& deck_text, const std::vector<std::string>& overrides, double t_end,
          MPI_Comm comm = MPI_COMM_WORLD) {
  static const OptionRegistry reg = test::grid_registry(climate::declare_shallow_water_options);
  auto sim = test::start<ShallowWater>(reg, deck_text, overrides, comm);
  sim.to(t_end);
  return sim;
}

double value(const Diagnostics& d, const std::string& name) { return d.get(name); }

bool root() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank == 0;
}

// A 1000 km square ocean 1000 m deep (gravity-wave speed 99 m/s).
const char* kDeck = R"(
[grid]
nz = 1
length = 1e6 1e6 1
[shallow_water]
depth = 1000
)";

// The inertia-gravity wave (modes 1 1, f0 = 3e-4: f^2 / w^2 = 0.10, so the cross-k velocity matters) after
// one period, 6760 s. A = 1e-3 m keeps the nonlinear terms (relative size A / H = 1e-6) far below the
// discretisation error.
std::vector<std::string> wave(int n) {
  const std::string s = std::to_string(n);
  return {"grid.nx=" + s,          "grid.ny=" + s,           "shallow_water.case=wave", "shallow_water.amplitude=1e-3",
          "shallow_water.f0=3e-4", "shallow_water.modes=1 1"};
}

}  // namespace

TEST_CASE("the linear inertia-gravity wave converges at 3rd order and conserves mass",
          "[shallow_water][convergence][mpi]") {
  const ShallowWater probe(make_deck(kDeck, wave(16)), MPI_COMM_WORLD);
  const double period = 2.0 * 3.14159265358979323846 / climate::ShallowWaterWave(probe.params(), probe.grid()).omega();
  std::vector<double> err;
  for (int n : {16, 32, 64}) {
    auto sim = run(kDeck, wave(n), period);
    const Diagnostics d = sim.diagnostics();
    INFO("n = " << n << " d_mass " << value(d, "d_mass"));
    CHECK(std::abs(value(d, "d_mass")) <= 1e-12);
    err.push_back(value(d, "err_l2"));
  }
  const double p1 = std::log2(err[0] / err[1]), p2 = std::log2(err[1] / err[2]);
  INFO("L2 errors of h [m] " << err[0] << " " << err[1] << " " << err[2] << ", orders " << p1 << " " << p2);
  if (root())
    WARN("wave, centred + hyperviscosity + ssprk3: L2 errors of h " << err[0] << " " << err[1] << " " << err[2]
                                                                    << " m (A = 1e-3 m), orders " << p1 << " " << p2);
  CHECK(err[0] < 0.1 * 1e-3);  // the coarsest grid (16 cells a wavelength) is already within 10% of A
  CHECK(p1 > 2.7);
  CHECK(p2 > 2.8);
  CHECK(p2 < 3.5);  // far above 3 would mean the error is not measuring the scheme
}

TEST_CASE("the geostrophic jet stays steady and conserves mass", "[shallow_water][steady][mpi]") {
  // u = 20 sin(2 pi y / L) m/s balanced by a 31.6 m surface anomaly (f0 = 1e-4, H = 1000 m) for 6 hours
  // (gravity waves cross the domain twice). The change of h is measured relative to the initial anomaly:
  // rel = rms(h - h0) / rms(h0 - H). Measured (np = 1, 2, 4 alike):
  //   hv_beta = 0, 16 x 16 cells (83 steps): rel = 3.8e-4 (2.5e-5 on 32 x 32: the discrete geostrophic
  //     balance is 4th order), energy conserved to 1e-10;
  //   hv_beta = 0.25 (default), 32 x 32 (165 steps): rel = 3.9e-3, d_te = -1.5e-4: the hyperviscous decay
  //     of the jet's mode, rate hv_beta (k dx)^4 / (16 dt), 3rd order in dx at a fixed Courant number.
  // Few steps: every step is a few synchronisations, slow with 4 ranks on 2 cores.
  const double u0 = 20.0, f0 = 1e-4, g = 9.80616, ly = 1e6, t_end = 21600.0;
  const double c = f0 * u0 * ly / (2.0 * 3.14159265358979323846 * g);
  for (const bool hyper : {false, true}) {
    const std::string n = hyper ? "32" : "16";
    auto sim = run(kDeck,
                   {"grid.nx=" + n, "grid.ny=" + n, "shallow_water.case=jet", "shallow_water.jet_speed=20",
                    "shallow_water.f0=1e-4", std::string("shallow_water.hv_beta=") + (hyper ? "0.25" : "0")},
                   t_end);
    const Diagnostics d = sim.diagnostics();
    const double rel = value(d, "err_l2") / (c / std::sqrt(2.0));
    INFO("hyperviscosity " << hyper << ": relative L2 change of h after 6 h " << rel << ", d_mass "
                           << value(d, "d_mass") << ", d_te " << value(d, "d_te"));
    if (root())
      WARN("jet, " << n << " x " << n << (hyper ? ", hv_beta = 0.25" : ", hv_beta = 0")
                   << ": relative L2 change of h after 6 h " << rel << ", d_te " << value(d, "d_te"));
    CHECK(std::abs(value(d, "d_mass")) <= 1e-12);
    if (!hyper) {
      CHECK(rel < 8e-4);
      CHECK(std::abs(value(d, "d_te")) < 1e-9);
    } else {
      CHECK(rel < 6e-3);
      CHECK(std::abs(value(d, "d_te")) < 3e-4);
    }
  }
}

/// Stoker's dam-break solution for depths hl | hr at rest: the middle state (h, u) and the bore speed,
/// from the rarefaction (u = 2 (sqrt(g hl) - sqrt(g h))) and the shock (u = (h - hr) sqrt(g (h + hr) / (2 h hr)))
/// relations, by bisection.
struct Stoker {
  double h, u, bore;
};
Stoker stoker(double g, double hl, double hr) {
  double lo = hr, hi = hl;
  for (int k = 0; k < 200; ++k) {
    const double h = 0.5 * (lo + hi);
    const double gap =
        2.0 * (std::sqrt(g * hl) - std::sqrt(g * h)) - (h - hr) * std::sqrt(g * (h + hr) / (2.0 * h * hr));
    (gap > 0.0 ? lo : hi) = h;
  }
  const double h = 0.5 * (lo + hi), u = 2.0 * (std::sqrt(g * hl) - std::sqrt(g * h));
  return {h, u, h * u / (h - hr)};
}

TEST_CASE("the dam break stays finite, conserves mass and matches Stoker's solution",
          "[shallow_water][dam_break][mpi]") {
  // A 200 km channel (walls in y, 1 km cells) periodic in x: 2 m | 1 m with the dam at x = 100 km (and the
  // reverse step at x = 0). Stoker's solution (g = 9.80616): a bore at 4.18 m/s into the shallow side with
  // h = 1.454 m, hu = 1.898 m^2/s behind it, a rarefaction whose head runs at 4.43 m/s and tail at 2.47 m/s
  // into the deep side; after 6000 s the bore is 25.1 km right of the dam and the middle state spans
  // -14.8 .. +25.1 km. Both fluxes.
  for (const std::string flux : {"centered", "rusanov"}) {
    INFO("flux " << flux);
    auto sim =
        run(kDeck,
            {"grid.nx=200", "grid.ny=8", "grid.length=2e5 8e3 1", "grid.bc_y=wall", "shallow_water.case=dam_break",
             "shallow_water.h_left=2", "shallow_water.h_right=1", "shallow_water.f0=0", "shallow_water.flux=" + flux},
            6000.0);
    const Diagnostics d = sim.diagnostics();
    for (double v : d.values) REQUIRE(std::isfinite(v));
    INFO("d_mass " << value(d, "d_mass") << " h_min " << value(d, "h_min") << " h_max " << value(d, "h_max"));
    CHECK(std::abs(value(d, "d_mass")) <= 1e-12);
    CHECK(value(d, "h_min") > 0.9);
    CHECK(value(d, "h_max") < 2.1);  // overshoots stay small
    const auto h = gather(*sim, 0), hu = gather(*sim, 1), hv = gather(*sim, 2);
    // Row 3 (the flow is uniform in y). Cell 100 is the first right of the dam.
    const int row = 3 * 200;
    const double bore = h[row + 110], rarefaction = h[row + 90];
    INFO("h 10 km right of the dam " << bore << ", 10 km left " << rarefaction << ", hu at the dam " << hu[row + 100]
                                     << ", far field " << h[row + 150]);
    if (root())
      WARN("dam break (" << flux << "): h 10 km right of the dam " << bore << " m, 10 km left " << rarefaction
                         << " m, hu at the dam " << hu[row + 100] << " m^2/s, h range " << value(d, "h_min") << " .. "
                         << value(d, "h_max") << " m");
    const Stoker s = stoker(sim->params().gravity, 2.0, 1.0);
    INFO("Stoker: h " << s.h << " m, hu " << s.h * s.u << " m^2/s, bore " << s.bore << " m/s");
    // 10 km either side of the dam and at it, the middle state (to 1 %; the numbers match to about 1e-3).
    CHECK(bore == Approx(s.h).epsilon(0.01));
    CHECK(rarefaction == Approx(s.h).epsilon(0.01));
    CHECK(hu[row + 100] == Approx(s.h * s.u).epsilon(0.01));
    // The bore where Stoker has it: the middle state over the 8 km behind it (the centred flux oscillates
    // there by about 5 %), the shallow side 4 km ahead. A wrong g moves it by kilometres (sqrt(2) in g is
    // 7 km here).
    const int front = 100 + static_cast<int>(std::lround(s.bore * 6000.0 / 1000.0));
    double behind = 0.0;
    for (int i = front - 10; i < front - 2; ++i) behind += h[row + i] / 8.0;
    INFO("front at cell " << front << ": mean h over the 8 km behind " << behind << ", 4 km ahead "
                          << h[row + front + 4]);
    CHECK(behind == Approx(s.h).epsilon(0.03));
    CHECK(h[row + front + 4] == Approx(1.0).margin(0.02));
    CHECK(h[row + 150] == Approx(1.0).margin(1e-3));  // undisturbed between the two steps
    double vmax = 0.0;
    for (double x : hv) vmax = std::max(vmax, std::abs(x));
    CHECK(vmax == 0.0);  // the walls keep the flow exactly one-dimensional
  }
}

TEST_CASE("the final fields are bitwise identical for every decomposition and on one rank",
          "[shallow_water][decomposition][mpi]") {
  int np = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  // A periodic nonlinear wave on an f-plane, and a rotating dam break in a beta-plane channel (walls in y).
  const std::vector<std::vector<std::string>> cases = {
      {"grid.nx=16", "grid.ny=16", "shallow_water.case=wave", "shallow_water.amplitude=50", "shallow_water.f0=3e-4",
       "shallow_water.modes=1 2"},
      {"grid.nx=16", "grid.ny=16", "grid.bc_y=wall", "shallow_water.case=dam_break", "shallow_water.h_left=1200",
       "shallow_water.h_right=1000", "shallow_water.f0=1e-4", "shallow_water.beta=2e-11", "shallow_water.y_ref=5e5",
       "shallow_water.dam_fraction=0.3", "shallow_water.integrator=lsrk4"}};
  test::note_one_rank_compares_itself();
  for (const auto& c : cases) {
    INFO("case " << c[2] << " " << c[3]);
    const std::vector<double> reference = gather(*run(kDeck, c, 3000.0, MPI_COMM_SELF));  // on one rank
    int done = 0;
    for (int px = 1; px <= np; ++px) {
      if (np % px) continue;
      const int py = np / px;
      const std::string dec = std::to_string(px) + " " + std::to_string(py) + " 1";
      INFO("decomposition " << dec);
      auto o = c;
      o.push_back("parallel.decomp=" + dec);
      auto sim = run(kDeck, o, 3000.0);
      REQUIRE(sim.clock.step >= 8);
      const auto field = gather(*sim);
      REQUIRE(field.size() == reference.size());
      REQUIRE(std::memcmp(field.data(), reference.data(), field.size() * sizeof(double)) == 0);
      ++done;
    }
    REQUIRE(done >= (np == 1 ? 1 : 2));
  }
}

TEST_CASE("inconsistent decks are input errors", "[shallow_water][input]") {
  CHECK_THROWS_AS(ShallowWater(make_deck(kDeck, {"grid.nz=2"}), MPI_COMM_WORLD), InputError);
  CHECK_THROWS_AS(ShallowWater(make_deck(kDeck, {"shallow_water.beta=1e-11"}), MPI_COMM_WORLD), InputError);
  CHECK_THROWS_AS(ShallowWater(make_deck(kDeck, {"shallow_water.case=jet", "grid.bc_y=wall"}), MPI_COMM_WORLD),
                  InputError);
}
