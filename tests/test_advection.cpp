// Advection-diffusion against its exact solution: the error falls at the formal order of the scheme over
// three resolutions, tracer mass is conserved to round-off, and the final field is bitwise identical for
// every decomposition of the rank count. Runs at np = 1, 2, 4.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "climate/advection_diffusion.hpp"
#include "domain/grid_options.hpp"
#include "driver/run_loop.hpp"

using namespace stratus;
using climate::AdvectionDiffusion;

namespace {

OptionRegistry registry() {
  OptionRegistry reg;
  declare_run_options(reg);
  declare_grid_options(reg);
  climate::declare_advection_options(reg);
  return reg;
}

// Runs to t_end with the stable step (the last one shortened) and returns the simulation.
std::unique_ptr<AdvectionDiffusion> run(const std::string& deck_text, const std::vector<std::string>& overrides,
                                        double t_end) {
  static const OptionRegistry reg = registry();
  const Deck deck = Deck::parse(reg, deck_text, "<test>", overrides);
  auto sim = std::make_unique<AdvectionDiffusion>(deck, MPI_COMM_WORLD);
  sim->initialize();
  while (sim->time() < t_end * (1.0 - 1e-12)) sim->advance(std::min(sim->stable_dt(), t_end - sim->time()));
  return sim;
}

// The owned cells of every rank assembled into one global array (x fastest), identical on all ranks.
std::vector<double> gather(const AdvectionDiffusion& sim) {
  const LocalGrid& g = sim.grid();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sim.state());
  const long long nx = g.global_n[0], ny = g.global_n[1], nz = g.global_n[2];
  std::vector<double> local(static_cast<std::size_t>(nx * ny * nz), 0.0), global(local.size());
  for (int k = 0; k < g.n[2]; ++k)
    for (int j = 0; j < g.n[1]; ++j)
      for (int i = 0; i < g.n[0]; ++i)
        local[((g.offset[2] + k) * ny + g.offset[1] + j) * nx + g.offset[0] + i] = h(0, k + g.ng[2], j + g.ng[1], i + g.ng[0]);
  // Exactly one rank contributes each entry, the others add +0.0: the sum is exact.
  MPI_Allreduce(local.data(), global.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

const char* kDeck = R"(
[grid]
length = 1 1 1
[advection]
velocity = 1 0.5 0.25
)";

// L2 errors at three resolutions: overrides_for(n) gives the deck overrides of level n.
template <class F>
std::vector<double> l2_errors(std::initializer_list<int> levels, F overrides_for, double t_end) {
  std::vector<double> err;
  for (int n : levels) err.push_back(run(kDeck, overrides_for(std::to_string(n)), t_end)->error_norms()[1]);
  return err;
}


}  // namespace

TEST_CASE("centred 4th-order finite volume with LSRK4 converges at 4th order", "[advection][convergence][mpi]") {
  // A decaying, translating product of sine modes; diffusion and advection both act.
  const auto err = l2_errors(
      {8, 16, 32},
      [](const std::string& s) -> std::vector<std::string> {
        return {"grid.nx=" + s, "grid.ny=" + s, "grid.nz=" + s, "advection.initial=sine", "advection.modes=1 1 1",
                "advection.diffusivity=0.01", "advection.reconstruction=centered4", "advection.integrator=lsrk4"};
      },
      0.25);
  const double p1 = std::log2(err[0] / err[1]), p2 = std::log2(err[1] / err[2]);
  INFO("L2 errors " << err[0] << " " << err[1] << " " << err[2] << ", orders " << p1 << " " << p2);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) WARN("centered4 + lsrk4: L2 errors " << err[0] << " " << err[1] << " " << err[2] << ", observed orders " << p1 << " " << p2);
  CHECK(p1 > 3.6);
  CHECK(p2 > 3.8);
  CHECK(p2 < 4.5);  // an order far above 4 would mean the error is not measuring the scheme
}

TEST_CASE("upwind 3rd-order finite volume with SSP-RK3 converges at 3rd order", "[advection][convergence][mpi]") {
  const auto err = l2_errors(  // 2D (x-y) keeps the finest level cheap
      {16, 32, 64},
      [](const std::string& s) -> std::vector<std::string> {
        return {"grid.nx=" + s, "grid.ny=" + s, "grid.nz=1", "advection.initial=sine", "advection.modes=1 2 0",
                "advection.diffusivity=0.001", "advection.reconstruction=upwind3", "advection.integrator=ssprk3"};
      },
      0.25);
  const double p1 = std::log2(err[0] / err[1]), p2 = std::log2(err[1] / err[2]);
  INFO("L2 errors " << err[0] << " " << err[1] << " " << err[2] << ", orders " << p1 << " " << p2);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) WARN("upwind3 + ssprk3: L2 errors " << err[0] << " " << err[1] << " " << err[2] << ", observed orders " << p1 << " " << p2);
  CHECK(p1 > 2.6);
  CHECK(p2 > 2.8);
  CHECK(p2 < 3.6);
}

TEST_CASE("tracer mass is conserved to round-off and the Gaussian stays close to the exact solution",
          "[advection][conservation][mpi]") {
  auto sim = run(kDeck,
                 {"grid.nx=24", "grid.ny=24", "grid.nz=24", "advection.initial=gaussian", "advection.width=0.1",
                  "advection.diffusivity=0.002"},
                 0.3);
  const Diagnostics d = sim->diagnostics(0.0);
  double dmass = 1.0, errmax = 1.0, qmax = 0.0;
  for (std::size_t i = 0; i < d.names.size(); ++i) {
    if (d.names[i] == "d_mass") dmass = d.values[i];
    if (d.names[i] == "err_max") errmax = d.values[i];
    if (d.names[i] == "q_max") qmax = d.values[i];
  }
  INFO("d_mass " << dmass << " err_max " << errmax << " q_max " << qmax);
  CHECK(std::abs(dmass) < 1e-13);
  CHECK(errmax < 0.02 * qmax);
  CHECK(sim->step() > 10);
}

TEST_CASE("the final field is bitwise identical for every decomposition", "[advection][decomposition][mpi]") {
  int np = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const Int3 n{12, 8, 8};
  std::vector<double> reference;
  int cases = 0;
  for (int px = 1; px <= np; ++px)
    for (int py = 1; py <= np; ++py)
      for (int pz = 1; pz <= np; ++pz) {
        if (px * py * pz != np || n[0] % px || n[1] % py || n[2] % pz) continue;
        const std::string dec = std::to_string(px) + " " + std::to_string(py) + " " + std::to_string(pz);
        INFO("decomposition " << dec);
        auto sim = run(kDeck,
                       {"grid.nx=12", "grid.ny=8", "grid.nz=8", "parallel.decomp=" + dec, "advection.initial=gaussian",
                        "advection.diffusivity=0.005", "run.t_end=0.1"},
                       0.1);
        const auto field = gather(*sim);
        if (reference.empty())
          reference = field;
        else
          REQUIRE(std::memcmp(field.data(), reference.data(), field.size() * sizeof(double)) == 0);
        ++cases;
      }
  REQUIRE(cases >= 1);
}
