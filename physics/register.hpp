// Registers every physics this build provides with the executable's registry.
#pragma once
#include "driver/simulation.hpp"

namespace stratus {
void register_physics(PhysicsRegistry& reg);
/// Every deck option of this build: [run] (run.physics limited to the registered names), [grid],
/// [parallel] and each physics' own sections, as the executable parses decks.
OptionRegistry declare_all_options(const PhysicsRegistry& physics);
}
