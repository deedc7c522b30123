// The options of physics "euler": its deck keys and the parameters read from them.
#pragma once
#include <string>

#include "domain/grid_options.hpp"
#include "input/deck.hpp"

namespace stratus::climate {

enum class EulerCase {
  thermal,          // rising warm bubble (+3 K), neutral background
  collision,        // a warm (+20 K) and a cold (-20 K) bubble that collide
  gravity_waves,    // constant-N (0.02/s) background with a 15 m/s wind
  density_current,  // miniWeather's cold bubble (-20 K) falling onto the ground
  injection,        // a jet (50 m/s, 298 K) injected through the left boundary: an open case
  straka,           // Straka et al. (1993) density current: -15 K temperature, nu = kappa = 75 m^2/s
  skamarock_klemp,  // Skamarock & Klemp (1994) inertia-gravity wave: N = 0.01/s, U = 20 m/s
};
enum class EulerSplitting { alternating, unsplit };

// Defaults are those of the bindings in euler_options.cpp.
struct EulerParams {
  EulerCase test{};
  EulerSplitting splitting{};
  double hv_beta{};        // hyperviscosity strength (1 removes 2 dx noise in one stage)
  double cfl{};            // Courant number of the time step
  double max_speed{};      // [m/s] > 0: fixed dt = cfl min(dx) / max_speed (miniWeather); 0: from the state
  double nu{};             // kinematic viscosity [m^2/s]
  double kappa{};          // thermal diffusivity [m^2/s]
  double courant_limit{};  // stop the run when the measured Courant number exceeds this

  static EulerParams from_deck(const Deck& deck);
  /// One statement per [euler] key (input/options.hpp).
  template <class B>
  static void bind(B& o);
};

void declare_euler_options(OptionRegistry& reg);
const char* euler_case_name(EulerCase c);

}  // namespace stratus::climate
