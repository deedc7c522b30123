// Compressible Euler, the split step's kernels: the line kernels of the CPUs (one pass per stage, or one
// per sweep where its direction is not cut or is cut into blocks of 6 cells or more) and the flux kernels of the GPUs give the same bits in every
// set-up; the bytes an update must move follow the sweeps a run takes; the flux field exists where the
// flux kernels run; the pressure perturbation's series is exact to the last bits.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "climate/euler.hpp"
#include "climate/euler_flux.hpp"
#include "euler_test.hpp"
#include "mpi_world.hpp"

using namespace stratus;

namespace {
using test::gather;
using test::make;
}  // namespace

TEST_CASE(
    "the flux and stage fields are there where the kernels the run takes need them, and counted in the memory estimate",
    "[euler][mpi]") {
  const std::vector<std::string> keys = {"euler.case=thermal", "grid.nx=16", "grid.ny=1", "grid.nz=8",
                                         "grid.length=2000 1 1000"};
  auto line = make(keys);  // CPUs: the line kernels, no flux field
  auto unsplit = make({keys[0], keys[1], keys[2], keys[3], keys[4], "euler.splitting=unsplit"});
  // Unsplit: the flux field and the RK registers (two state-size fields), no stage fields. Split with the
  // flux kernels (GPUs): the flux field and the two stage fields, as much; with the line kernels less.
  CHECK(!unsplit->needs_stage_fields());
  if (gpu_paths())
    CHECK(unsplit->memory_bytes() == line->memory_bytes());
  else
    CHECK(unsplit->memory_bytes() > line->memory_bytes());
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
  if (!gpu_paths()) {
    // Without the field the flux kernels refuse to run, rather than write through an empty view.
    CHECK_THROWS_AS(line->face_fluxes(line->state(), 0, 1.0), Error);
    const LocalGrid& g = line->grid();
    const double field = 8.0 * climate::kEulerVars * g.extent(0) * g.extent(1) * g.extent(2);
    // On one rank x and z each take their three stages in one pass: no stage fields. Across ranks z is cut
    // into blocks of fewer than 6 levels, or x is cut: one sweep takes its stages one at a time.
    const bool one_pass = test::world_size() == 1;
    CHECK(line->needs_stage_fields() == !one_pass);
    const double before = line->memory_bytes();
    line->set_line_kernels(false);  // allocates the flux field, and the stage fields the flux kernels need
    CHECK(line->needs_stage_fields());
    CHECK(line->memory_bytes() == before + field * (one_pass ? 3 : 1));
    line->set_line_kernels(true);  // kept, and still counted
    CHECK(line->memory_bytes() == before + field * (one_pass ? 3 : 1));
    CHECK_NOTHROW(line->face_fluxes(line->state(), 0, 1.0));
  }
#endif
}

TEST_CASE("the bytes an update must move follow the sweeps the run takes", "[euler][mpi]") {
  // Split stepping: 3 doubles per variable, stage and direction (4 variables in x-z, 5 in 3D), but 2 per
  // variable for all three stages where the sweep keeps them in cache: the direction not cut across
  // ranks (x and y are periodic, z between walls), or y or z cut into blocks of at least 6 cells.
  const std::vector<std::string> x_z = {"euler.case=thermal", "grid.nx=16", "grid.ny=1", "grid.nz=8",
                                        "grid.length=2000 1 1000"};
  const std::vector<std::string> three_d = {"euler.case=thermal", "grid.nx=8", "grid.ny=8", "grid.nz=8",
                                            "grid.length=1000 1000 1000"};
  auto with = [](std::vector<std::string> keys, const std::string& more) {
    keys.push_back(more);
    return keys;
  };
  const bool fused = !gpu_paths();  // the line kernels run on CPUs, and not under STRATUS_GPU_PATHS
  const int ranks = test::world_size();
  const std::string all = "parallel.decomp=1 1 " + std::to_string(ranks);  // along z only
  // x and z in one pass each on one rank; along z cut across ranks, only x.
  CHECK(make(with(x_z, all))->bytes_per_update() == (!fused       ? 8.0 * 4 * 18
                                                     : ranks == 1 ? 8.0 * 4 * (2 + 2)
                                                                  : 8.0 * 4 * (9 + 2)));
  CHECK(make(with(three_d, all))->bytes_per_update() == (!fused       ? 8.0 * 5 * 27
                                                         : ranks == 1 ? 8.0 * 5 * (2 + 2 + 2)
                                                                      : 8.0 * 5 * (9 + 2 + 2)));
  if (ranks == 2) {
    // x cut: z still in one pass; y cut: x and z.
    CHECK(make(with(x_z, "parallel.decomp=2 1 1"))->bytes_per_update() == (fused ? 8.0 * 4 * (9 + 2) : 8.0 * 4 * 18));
    CHECK(make(with(three_d, "parallel.decomp=1 2 1"))->bytes_per_update() ==
          (fused ? 8.0 * 5 * (9 + 2 + 2) : 8.0 * 5 * 27));
  }
  if (ranks == 4) {  // y and z cut: x alone
    CHECK(make(with(three_d, "parallel.decomp=1 2 2"))->bytes_per_update() ==
          (fused ? 8.0 * 5 * (18 + 2) : 8.0 * 5 * 27));
  }
  if (ranks > 1) {
    // Blocks of 6 levels or more: the cut sweeps in one pass too.
    CHECK(make(with(with(x_z, all), "grid.nz=" + std::to_string(6 * ranks)))->bytes_per_update() ==
          (fused ? 8.0 * 4 * (2 + 2) : 8.0 * 4 * 18));
    const std::string yz = ranks == 2 ? "parallel.decomp=1 2 1" : "parallel.decomp=1 2 2";
    CHECK(make(with(with(with(three_d, yz), "grid.ny=12"), "grid.nz=12"))->bytes_per_update() ==
          (fused ? 8.0 * 5 * (2 + 2 + 2) : 8.0 * 5 * 27));
  }
  // An inflow (the injection) takes no sweep in one pass.
  CHECK(make({"euler.case=injection", "grid.nx=40", "grid.ny=1", "grid.nz=20", "grid.length=20000 1 10000", all})
            ->bytes_per_update() == 8.0 * 4 * 18);
  // Unsplit SSP-RK3 (flux kernels): its own count.
  CHECK(make(with(x_z, "euler.splitting=unsplit"))->bytes_per_update() == 8.0 * 3 * (20 * 2 + 5 + 20));
}

TEST_CASE("the line kernels and the flux kernels of the split stages give the same bits", "[euler][mpi]") {
  // The CPU default (one pass per stage, fluxes in a local buffer, x-z runs without the v momentum) and
  // the GPU default (face fluxes through memory, then the update) evaluate the same faces from the same
  // operands; any difference in the physics of either shows here. With a uniform y wind put in, the x-z
  // run must take its v momentum along (and v must stay 0 where it starts 0).
  // A hot block (rho theta up by 100 kg K / m^3, a third to a fifth of the background) puts faces beyond
  // the series of the pressure: the line kernels evaluate those runs again in the exact form.
  struct Setup {
    std::vector<std::string> keys;
    bool y_wind;
    bool hot_block = false;
  };
  std::vector<Setup> setups = {
      {{"euler.case=collision", "grid.nx=40", "grid.ny=1", "grid.nz=20", "grid.length=20000 1 10000"}, false},
      {{"euler.case=collision", "grid.nx=40", "grid.ny=1", "grid.nz=20", "grid.length=20000 1 10000"}, true},
      {{"euler.case=collision", "grid.nx=40", "grid.ny=1", "grid.nz=20", "grid.length=20000 1 10000"}, false, true},
      {{"euler.case=thermal", "grid.nx=12", "grid.ny=8", "grid.nz=12", "grid.length=12000 8000 10000"}, false, true},
      {{"euler.case=straka", "grid.nx=40", "grid.ny=1", "grid.nz=20", "grid.length=51200 1 6400", "euler.viscosity=75",
        "euler.diffusivity=75", "euler.max_speed=0", "euler.cfl=1.0"},
       true},
      {{"euler.case=thermal", "grid.nx=12", "grid.ny=8", "grid.nz=12", "grid.length=12000 8000 10000",
        "euler.viscosity=20", "euler.diffusivity=20"},
       false},
      // Rows of several runs of 128 cells, the last one shorter; the last one of a single cell (the run
      // before it reads a ghost too); in 3D, the y ghosts of two runs along x.
      {{"euler.case=collision", "grid.nx=600", "grid.ny=1", "grid.nz=10", "grid.length=60000 1 10000"}, false, true},
      {{"euler.case=collision", "grid.nx=257", "grid.ny=1", "grid.nz=8", "grid.length=25700 1 8000"}, false, true},
      {{"euler.case=thermal", "grid.nx=130", "grid.ny=6", "grid.nz=6", "grid.length=13000 6000 10000"}, false, true},
      // x sweeps a stage at a time (euler_stage_x, not the one-pass sweep): an inflow, and x cut across ranks.
      {{"euler.case=injection", "grid.nx=40", "grid.ny=1", "grid.nz=20", "grid.length=20000 1 10000"}, false},
  };
  if (test::world_size() == 2) {
    setups.push_back({{"euler.case=collision", "grid.nx=40", "grid.ny=1", "grid.nz=20", "grid.length=20000 1 10000",
                       "parallel.decomp=2 1 1"},
                      false,
                      true});
  }
  if (test::world_size() > 1) {
    // y and z cut into blocks of 6 cells or more: the sweeps across the cuts take their stages in one pass
    // from the neighbours' levels (the hot block sits at each rank's lowest owned cells, next to a cut).
    const std::string n = std::to_string(6 * test::world_size());
    setups.push_back({{"euler.case=collision", "grid.nx=40", "grid.ny=1", "grid.nz=" + n, "grid.length=20000 1 10000",
                       "parallel.decomp=1 1 " + std::to_string(test::world_size())},
                      true,
                      true});
    const bool four = test::world_size() == 4;
    setups.push_back({{"euler.case=thermal", "grid.nx=12", four ? "grid.ny=12" : "grid.ny=14", "grid.nz=12",
                       "grid.length=12000 8000 10000", four ? "parallel.decomp=1 2 2" : "parallel.decomp=1 2 1",
                       "euler.viscosity=20", "euler.diffusivity=20"},
                      false,
                      true});
  }
  for (const auto& s : setups) {
    INFO(s.keys[0] << (s.y_wind ? " with a y wind" : "") << (s.hot_block ? " with a hot block" : "") << ", "
                   << s.keys[1]);
    std::vector<double> out[2];
    for (int line = 0; line < 2; ++line) {
      auto sim = make(s.keys);
      sim->set_line_kernels(line == 1);
      if (s.y_wind) {
        auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sim->state());
        for (std::size_t k = 0; k < h.extent(1); ++k)
          for (std::size_t i = 0; i < h.extent(3); ++i)
            h(climate::kVmom, k, 0, i) = 3.0 + 1e-3 * static_cast<double>(i);
        Kokkos::deep_copy(sim->state(), h);
      }
      if (s.hot_block) {
        auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sim->state());
        const std::size_t ng = 2, n = 4;  // n^3 owned cells (fewer at the edges of a small rank)
        const std::size_t j0 = h.extent(2) > 1 ? ng : 0, j1 = h.extent(2) > 1 ? h.extent(2) - ng : 1;
        for (std::size_t k = ng; k < std::min(ng + n, h.extent(1) - ng); ++k)
          for (std::size_t j = j0; j < std::min(j0 + n, j1); ++j)
            for (std::size_t i = ng; i < std::min(ng + n, h.extent(3) - ng); ++i) h(climate::kRhot, k, j, i) += 100.0;
        Kokkos::deep_copy(sim->state(), h);
      }
      for (int n = 0; n < 12; ++n) sim.step(sim->stable_dt());
      out[line] = gather(*sim);
    }
    for (double x : out[1]) REQUIRE(std::isfinite(x));
    REQUIRE(std::memcmp(out[0].data(), out[1].data(), out[0].size() * sizeof(double)) == 0);
    const std::size_t cells = out[1].size() / climate::kEulerVars;
    double vmax = 0.0;
    for (std::size_t c = 0; c < cells; ++c) vmax = std::max(vmax, std::fabs(out[1][climate::kVmom * cells + c]));
    if (s.y_wind)
      CHECK(vmax > 2.0);  // carried along, not dropped
    else if (s.keys[2] == "grid.ny=1")
      CHECK(vmax == 0.0);
  }
}

TEST_CASE("the pressure perturbation: its series to the last bits, the general form beyond, 0 at rest", "[euler]") {
  namespace ef = climate::euler_flux;
  const long double gamma = climate::euler_const::kGamma;
  const double eps = std::numeric_limits<double>::epsilon();
  // (1 + e)^gamma - 1 against expm1(gamma log1p(e)) in 64-bit long double: within 3 ulp of the value over
  // the series' range (its truncation is 2.2e-18 at the bound), including the bounds themselves.
  double worst = 0.0;
  for (int n = -4000; n <= 4000; ++n) {
    const double e = ef::kSeriesBound * n / 4000.0;
    const long double ref = std::expm1(gamma * std::log1p(static_cast<long double>(e)));
    const double err = std::fabs(static_cast<double>(ef::gamma_series(e) - ref));
    worst = std::max(worst, n == 0 ? err : err / std::fabs(static_cast<double>(ref)));
  }
  INFO("worst relative error " << worst);
  CHECK(worst <= 3.0 * eps);
  // The pressure perturbation of a background: 0 at rest exactly; within the series' range it agrees with
  // the pressure difference to that difference's own rounding (pressure() is within 2.3e-15 of C0 x^gamma
  // up to rho theta = 1e4, and the difference has two of them); beyond it is
  // that difference, bit for bit; NaN stays NaN.
  for (double rt0 : {40.0, 350.0, 1.0e4}) {
    const double p0 = ef::pressure(rt0);
    CHECK(ef::pressure_perturbation(0.0, rt0, p0) == 0.0);
    for (double f : {-0.3, -0.126, -0.12, -1e-3, 1e-9, 0.05, 0.125, 0.13, 0.9}) {
      const double d = f * rt0, diff = ef::pressure(rt0 + d) - p0;
      const double pp = ef::pressure_perturbation(d, rt0, p0);
      INFO("rt0 " << rt0 << ", d / rt0 " << f);
      if (std::fabs(f) <= ef::kSeriesBound)
        CHECK(std::fabs(pp - diff) <= 48.0 * eps * p0);
      else
        CHECK(pp == diff);
    }
    CHECK(std::isnan(ef::pressure_perturbation(std::nan(""), rt0, p0)));
  }
}
