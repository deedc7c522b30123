// The options of physics "advection": its deck keys and the parameters read from them.
#pragma once
#include <string>

#include "domain/grid_options.hpp"
#include "input/deck.hpp"
#include "time/runge_kutta.hpp"

namespace stratus::climate {

enum class Reconstruction { centered4, upwind3 };
enum class TracerShape { gaussian, sine };

struct AdvectionParams {
  Real3 velocity{};    // [m/s]
  double kappa = 0.0;  // [m^2/s]
  TracerShape shape = TracerShape::gaussian;
  double amplitude = 1.0;
  Real3 center{};      // Gaussian centre at t = 0 [m]
  double width = 0.1;  // Gaussian standard deviation at t = 0 [m]
  Int3 modes{};        // sine: whole wavelengths across the domain per direction (0: constant)
  Reconstruction recon = Reconstruction::centered4;
  RKMethod integrator = RKMethod::lsrk4;
  double cfl = 0.8;

  static AdvectionParams from_deck(const Deck& deck);
};

void declare_advection_options(OptionRegistry& reg);

}  // namespace stratus::climate
