// The parts of an MD step that `stratus bench --kernel NAME` times alone. Only what the step itself runs,
// on the state it leaves: no set-up, output or communication of its own.
#include "core/error.hpp"
#include "md/md_simulation.hpp"

namespace stratus::md {

std::vector<Simulation::BenchKernel> MDSimulation::bench_kernels() const {
  return {{"neighbor", "atoms", "one neighbor-list build of the current atoms"}};
}

double MDSimulation::run_bench_kernel(const std::string& name) {
  STRATUS_REQUIRE(name == "neighbor", "md has no bench kernel '" << name << "'");
  // The ghosts are those of the last rebuild, in the same bounding box: the list comes out as the step's.
  list_->build(atoms_.x, atoms_.n_local, atoms_.n_ghost, pc_->ghost_lo(), pc_->ghost_hi());
  return static_cast<double>(atoms_.n_local);
}

}  // namespace stratus::md
