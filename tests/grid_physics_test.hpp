// Shared helpers of the grid-physics tests: the deck registry of one physics, a simulation stepped with
// its own clock as the run loop steps it, and a field gathered from every rank.
#pragma once
#include <mpi.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "climate/grid_physics.hpp"
#include "domain/grid_options.hpp"
#include "driver/run_params.hpp"

namespace stratus::test {

/// [run], [grid], [parallel] and the keys `declare` adds.
inline OptionRegistry grid_registry(void (*declare)(OptionRegistry&)) {
  OptionRegistry reg;
  declare_run_options(reg);
  declare_grid_options(reg);
  declare(reg);
  return reg;
}

/// A simulation with its clock: step() and to() advance both, as the run loop does.
template <class Sim>
struct Run {
  std::unique_ptr<Sim> sim;
  Clock clock;

  Sim* operator->() const { return sim.get(); }
  Sim& operator*() const { return *sim; }
  void step(double dt) {
    sim->advance(clock, dt);
    clock.tick(dt);
  }
  /// Steps of the stable size to t_end, the last one shortened.
  void to(double t_end) {
    while (clock.time < t_end * (1.0 - 1e-12)) step(std::min(sim->stable_dt(), t_end - clock.time));
  }
  Diagnostics diagnostics(double dt = 0.0) const { return sim->diagnostics(clock, dt); }
};

/// The initialised simulation of a deck (text plus overrides) on `comm` (MPI_COMM_SELF: the run on one rank,
/// on every rank, the reference of the decomposition tests).
template <class Sim>
Run<Sim> start(const OptionRegistry& reg, const std::string& text, const std::vector<std::string>& overrides,
               MPI_Comm comm = MPI_COMM_WORLD) {
  Run<Sim> r{std::make_unique<Sim>(Deck::parse(reg, text, "<test>", overrides), comm), Clock{}};
  r->initialize();
  return r;
}

/// Every variable of every owned cell of all ranks of the simulation's communicator in one global array
/// (v, z, y, x; x fastest), on each of them.
inline std::vector<double> gather(const climate::GridPhysics& sim) {
  const LocalGrid& g = sim.grid();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sim.state());
  const long long nx = g.global_n[0], ny = g.global_n[1], nz = g.global_n[2];
  const int nv = static_cast<int>(h.extent(0));
  std::vector<double> local(static_cast<std::size_t>(nv * nx * ny * nz), 0.0), global(local.size());
  for (int v = 0; v < nv; ++v)
    for (int k = 0; k < g.n[2]; ++k)
      for (int j = 0; j < g.n[1]; ++j)
        for (int i = 0; i < g.n[0]; ++i)
          local[static_cast<std::size_t>(((v * nz + g.offset[2] + k) * ny + g.offset[1] + j) * nx + g.offset[0] + i)] =
              h(v, k + g.ng[2], j + g.ng[1], i + g.ng[0]);
  // Exactly one rank contributes each entry, the others add +0.0: the sum is exact.
  MPI_Allreduce(local.data(), global.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_SUM, sim.decomp().comm());
  return global;
}

/// Variable v alone, from gather().
inline std::vector<double> gather(const climate::GridPhysics& sim, int v) {
  const std::vector<double> all = gather(sim);
  const std::size_t n = all.size() / static_cast<std::size_t>(sim.state().extent(0));
  return std::vector<double>(all.begin() + static_cast<long>(v * n), all.begin() + static_cast<long>((v + 1) * n));
}

/// The decomposition tests compare every decomposition of the world with the run on one rank. On one
/// rank that is the same run: say so in the test output.
inline void note_one_rank_compares_itself() {
  int np = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (np == 1) WARN("1 rank: the run on one rank is compared with itself (the runs at 2 and 4 ranks compare theirs)");
}

}  // namespace stratus::test
