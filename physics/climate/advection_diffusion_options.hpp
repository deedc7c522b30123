// The options of physics "advection": its deck keys and the parameters read from them.
#pragma once
#include <string>

#include "domain/grid_options.hpp"
#include "input/deck.hpp"
#include "time/runge_kutta.hpp"

namespace stratus::climate {

enum class Reconstruction { centered4, upwind3 };
enum class TracerShape { gaussian, sine };

// Defaults are those of the bindings in advection_diffusion_options.cpp.
struct AdvectionParams {
  Real3 velocity{};  // [m/s]
  double kappa{};    // [m^2/s]
  TracerShape shape{};
  double amplitude{};
  Real3 center{};  // Gaussian centre at t = 0 [m]
  double width{};  // Gaussian standard deviation at t = 0 [m]
  Int3 modes{};    // sine: whole wavelengths across the domain per direction (0: constant)
  Reconstruction recon{};
  RKMethod integrator{};
  double cfl{};

  static AdvectionParams from_deck(const Deck& deck);
  /// One statement per [advection] key (input/options.hpp).
  template <class B>
  static void bind(B& o);
};

void declare_advection_options(OptionRegistry& reg);

}  // namespace stratus::climate
