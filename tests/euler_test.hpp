// What the Euler test files share: a run of the Euler solver from deck overrides, with walls at the ground
// and the lid.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "climate/euler.hpp"
#include "grid_physics_test.hpp"

namespace stratus::test {

using EulerRun = Run<climate::Euler>;

inline EulerRun make(const std::vector<std::string>& overrides, MPI_Comm comm = MPI_COMM_WORLD) {
  static const OptionRegistry reg = grid_registry(climate::declare_euler_options);
  return start<climate::Euler>(reg, "[grid]\nbc_z = wall\n", overrides, comm);
}

}  // namespace stratus::test
