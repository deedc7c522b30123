// The list of physics compiled into stratus, one explicit entry each.
#include "register.hpp"

#include "climate/advection_diffusion.hpp"
#include "climate/euler.hpp"
#include "climate/shallow_water.hpp"
#include "domain/grid_options.hpp"
#include "driver/run_loop.hpp"
#include "md/md_simulation.hpp"

namespace stratus {

void register_physics(PhysicsRegistry& reg) {
  reg.add(PhysicsEntry{"advection", "advection-diffusion of a passive tracer (climate smoke test, exact solution)",
                       [](OptionRegistry& o) { climate::declare_advection_options(o); },
                       [](const Deck& d, MPI_Comm c) -> std::unique_ptr<Simulation> {
                         return std::make_unique<climate::AdvectionDiffusion>(d, c);
                       }});
  reg.add(PhysicsEntry{"shallow_water", "rotating shallow water (inertia-gravity wave, jet, dam break)",
                       [](OptionRegistry& o) { climate::declare_shallow_water_options(o); },
                       [](const Deck& d, MPI_Comm c) -> std::unique_ptr<Simulation> {
                         return std::make_unique<climate::ShallowWater>(d, c);
                       }});
  reg.add(PhysicsEntry{
      "euler", "compressible non-hydrostatic Euler, 2D x-z or 3D (dynamical-core test cases)",
      [](OptionRegistry& o) { climate::declare_euler_options(o); },
      [](const Deck& d, MPI_Comm c) -> std::unique_ptr<Simulation> { return std::make_unique<climate::Euler>(d, c); }});
  reg.add(PhysicsEntry{
      "md", "molecular dynamics: Lennard-Jones atoms, NVE / Langevin / Nose-Hoover (LAMMPS conventions)",
      [](OptionRegistry& o) { md::declare_md_options(o); },
      [](const Deck& d, MPI_Comm c) -> std::unique_ptr<Simulation> { return std::make_unique<md::MDSimulation>(d, c); },
      RunEnd::at_step});
}

OptionRegistry declare_all_options(const PhysicsRegistry& physics) {
  OptionRegistry reg;
  declare_run_options(reg, physics.names());
  declare_grid_options(reg);
  for (const auto& p : physics.all()) p.declare_options(reg);
  return reg;
}

}  // namespace stratus
