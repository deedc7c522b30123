// Advection-diffusion against its exact solution: the error falls at the formal order of the scheme over
// three resolutions, tracer mass is conserved to round-off, and the final field is bitwise identical for
// every decomposition of the rank count and to the run on one rank. Runs at np = 1, 2, 4.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <vector>

#include "climate/advection_diffusion.hpp"
#include "grid_physics_test.hpp"
#include "mpi_call_counter.hpp"

using namespace stratus;
using climate::AdvectionDiffusion;

namespace {

using test::gather;
using AdvectionRun = test::Run<AdvectionDiffusion>;

// Runs to t_end with the stable step (the last one shortened) and returns the simulation.
AdvectionRun run(const std::string& deck_text, const std::vector<std::string>& overrides, double t_end,
                 MPI_Comm comm = MPI_COMM_WORLD) {
  static const OptionRegistry reg = test::grid_registry(climate::declare_advection_options);
  auto sim = test::start<AdvectionDiffusion>(reg, deck_text, overrides, comm);
  sim.to(t_end);
  return sim;
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
  for (int n : levels) err.push_back(run(kDeck, overrides_for(std::to_string(n)), t_end).diagnostics().get("err_l2"));
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
  const Diagnostics d = sim.diagnostics();
  const double dmass = d.get("d_mass"), errmax = d.get("err_max"), qmax = d.get("q_max");
  INFO("d_mass " << dmass << " err_max " << errmax << " q_max " << qmax);
  CHECK(std::abs(dmass) < 1e-13);
  CHECK(errmax < 0.02 * qmax);
  CHECK(sim.clock.step > 10);
}

TEST_CASE("the final field is bitwise identical for every decomposition and on one rank",
          "[advection][decomposition][mpi]") {
  int np = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const Int3 n{12, 8, 8};
  const std::vector<std::string> keys = {
      "grid.nx=12",   "grid.ny=8", "grid.nz=8", "advection.initial=gaussian", "advection.diffusivity=0.005",
      "run.t_end=0.1"};
  const std::vector<double> reference = gather(*run(kDeck, keys, 0.1, MPI_COMM_SELF));  // on one rank
  test::note_one_rank_compares_itself();
  int cases = 0;
  for (int px = 1; px <= np; ++px)
    for (int py = 1; py <= np; ++py)
      for (int pz = 1; pz <= np; ++pz) {
        if (px * py * pz != np || n[0] % px || n[1] % py || n[2] % pz) continue;
        const std::string dec = std::to_string(px) + " " + std::to_string(py) + " " + std::to_string(pz);
        INFO("decomposition " << dec);
        auto o = keys;
        o.push_back("parallel.decomp=" + dec);
        const auto field = gather(*run(kDeck, o, 0.1));
        REQUIRE(field.size() == reference.size());
        REQUIRE(std::memcmp(field.data(), reference.data(), field.size() * sizeof(double)) == 0);
        ++cases;
      }
  REQUIRE(cases >= (np == 1 ? 1 : 2));
}

TEST_CASE("a 3D run on one rank makes no MPI call in its halo exchanges", "[advection][mpi]") {
  const long long before = test::mpi_p2p_calls();  // MPI_COMM_SELF: every halo link is the rank's own
  auto sim = run(kDeck, {"grid.nx=12", "grid.ny=8", "grid.nz=8", "advection.initial=gaussian", "run.t_end=0.2"}, 0.2,
                 MPI_COMM_SELF);
  CHECK(sim.clock.step >= 3);
  CHECK(test::mpi_p2p_calls() == before);
}
