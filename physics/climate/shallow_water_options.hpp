// The options of physics "shallow_water": its deck keys and the parameters read from them.
#pragma once
#include <string>

#include "domain/grid_options.hpp"
#include "input/deck.hpp"
#include "time/runge_kutta.hpp"

namespace stratus::climate {

enum class SwCase { wave, jet, dam_break };
enum class SwFlux { centered, rusanov };

struct ShallowWaterParams {
  SwCase test = SwCase::wave;
  double gravity = 9.80616;  // [m/s^2]
  double depth = 1000.0;     // mean (reference) depth H [m]; eta = h - H
  double f0 = 1e-4;          // Coriolis parameter at y_ref [1/s]
  double beta = 0.0;         // df/dy [1/(m s)]
  double y_ref = 0.0;        // [m]
  // wave: eta = amplitude cos(k.x - w t), k = 2 pi (modes[0] / Lx, modes[1] / Ly)
  double amplitude = 0.01;  // [m]
  int modes[2] = {1, 1};
  // jet: u = U0 sin(2 pi (y - y_lo) / Ly), g dh/dy = -f0 u
  double jet_speed = 10.0;  // [m/s]
  // dam break: h = h_left for x < x_lo + dam_fraction Lx, else h_right, at rest
  double h_left = 2.0, h_right = 1.0;  // [m]
  double dam_fraction = 0.5;
  SwFlux flux = SwFlux::centered;
  double hv_beta = 0.25;
  RKMethod integrator = RKMethod::ssprk3;
  double cfl = 0.5;

  static ShallowWaterParams from_deck(const Deck& deck);
};

void declare_shallow_water_options(OptionRegistry& reg);

}  // namespace stratus::climate
