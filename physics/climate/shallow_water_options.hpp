// The options of physics "shallow_water": its deck keys and the parameters read from them.
#pragma once
#include <string>

#include "domain/grid_options.hpp"
#include "input/deck.hpp"
#include "time/runge_kutta.hpp"

namespace stratus::climate {

enum class SwCase { wave, jet, dam_break };
enum class SwFlux { centered, rusanov };

// Defaults are those of the bindings in shallow_water_options.cpp.
struct ShallowWaterParams {
  SwCase test{};
  double gravity{};  // [m/s^2]
  double depth{};    // mean (reference) depth H [m]; eta = h - H
  double f0{};       // Coriolis parameter at y_ref [1/s]
  double beta{};     // df/dy [1/(m s)]
  double y_ref{};    // [m]
  // wave: eta = amplitude cos(k.x - w t), k = 2 pi (modes[0] / Lx, modes[1] / Ly)
  double amplitude{};  // [m]
  int modes[2] = {};
  // jet: u = U0 sin(2 pi (y - y_lo) / Ly), g dh/dy = -f0 u
  double jet_speed{};  // [m/s]
  // dam break: h = h_left for x < x_lo + dam_fraction Lx, else h_right, at rest
  double h_left{}, h_right{};  // [m]
  double dam_fraction{};
  SwFlux flux{};
  double hv_beta{};
  RKMethod integrator{};
  double cfl{};

  static ShallowWaterParams from_deck(const Deck& deck);
  /// One statement per [shallow_water] key (input/options.hpp).
  template <class B>
  static void bind(B& o);
};

void declare_shallow_water_options(OptionRegistry& reg);

}  // namespace stratus::climate
