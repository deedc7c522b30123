// Registers every physics this build provides with the executable's registry.
#pragma once
#include "driver/simulation.hpp"

namespace stratus {
void register_physics(PhysicsRegistry& reg);
}
