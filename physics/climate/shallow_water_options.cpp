// Shallow water: the deck keys and their reading into ShallowWaterParams.
#include "climate/shallow_water_options.hpp"

#include "core/error.hpp"

namespace stratus::climate {

void declare_shallow_water_options(OptionRegistry& reg) {
  reg.add_string("shallow_water.case", "wave", "",
                 "test case: linear inertia-gravity wave (exact), geostrophically balanced jet (exact steady "
                 "state), or dam break")
      .one_of({"wave", "jet", "dam_break"});
  reg.add_real("shallow_water.gravity", 9.80616, "m/s^2", "gravitational acceleration g").greater_than(0.0);
  reg.add_real("shallow_water.depth", 1000.0, "m", "mean depth H of the wave and the jet; eta = h - H in the output")
      .greater_than(0.0);
  reg.add_real("shallow_water.f0", 1e-4, "1/s", "Coriolis parameter at y_ref");
  reg.add_real("shallow_water.beta", 0.0, "1/(m s)",
               "beta-plane gradient df/dy (needs grid.bc_y = wall; the wave and the jet are f-plane cases)");
  reg.add_real("shallow_water.y_ref", 0.0, "m", "latitude (y) where f = f0");
  reg.add_real("shallow_water.amplitude", 0.01, "m", "wave: surface amplitude A (small against depth: linear)")
      .greater_than(0.0);
  reg.add_ints("shallow_water.modes", {1, 1}, "1", "wave: whole wavelengths across the domain in x and y").size(2);
  reg.add_real("shallow_water.jet_speed", 10.0, "m/s", "jet: peak speed U0 of u = U0 sin(2 pi (y - y_lo) / Ly)");
  reg.add_real("shallow_water.h_left", 2.0, "m", "dam break: depth left of the dam").greater_than(0.0);
  reg.add_real("shallow_water.h_right", 1.0, "m", "dam break: depth right of the dam").greater_than(0.0);
  reg.add_real("shallow_water.dam_fraction", 0.5, "1", "dam break: dam position as a fraction of the x extent")
      .at_least(0.0)
      .at_most(1.0);
  reg.add_string("shallow_water.flux", "centered", "",
                 "face flux: 4th-order centred (with hyperviscosity) or Rusanov on 3rd-order upwind-biased states")
      .one_of({"centered", "rusanov"});
  reg.add_real("shallow_water.hv_beta", 0.25, "1",
               "hyperviscosity strength (miniWeather's beta; 1 removes 2dx noise in one step, 0 = none); "
               "added with either flux")
      .at_least(0.0)
      .at_most(1.0);
  reg.add_string("shallow_water.integrator", "ssprk3", "", "Runge-Kutta method").one_of({"ssprk3", "lsrk4"});
  reg.add_real("shallow_water.cfl", 0.5, "1", "Courant number of dt = cfl min(dx, dy) / max(|u| + sqrt(g h))")
      .greater_than(0.0)
      .at_most(1.0);
}

ShallowWaterParams ShallowWaterParams::from_deck(const Deck& deck) {
  ShallowWaterParams p;
  const std::string c = deck.get_string("shallow_water.case");
  p.test = c == "jet" ? SwCase::jet : c == "dam_break" ? SwCase::dam_break : SwCase::wave;
  p.gravity = deck.get_real("shallow_water.gravity");
  p.depth = deck.get_real("shallow_water.depth");
  p.f0 = deck.get_real("shallow_water.f0");
  p.beta = deck.get_real("shallow_water.beta");
  p.y_ref = deck.get_real("shallow_water.y_ref");
  p.amplitude = deck.get_real("shallow_water.amplitude");
  const auto m = deck.get_ints32("shallow_water.modes");
  p.modes[0] = static_cast<int>(m[0]);
  p.modes[1] = static_cast<int>(m[1]);
  p.jet_speed = deck.get_real("shallow_water.jet_speed");
  p.h_left = deck.get_real("shallow_water.h_left");
  p.h_right = deck.get_real("shallow_water.h_right");
  p.dam_fraction = deck.get_real("shallow_water.dam_fraction");
  p.flux = deck.get_string("shallow_water.flux") == "rusanov" ? SwFlux::rusanov : SwFlux::centered;
  p.hv_beta = deck.get_real("shallow_water.hv_beta");
  p.integrator = parse_rk_method(deck.get_string("shallow_water.integrator"), "shallow_water.integrator");
  p.cfl = deck.get_real("shallow_water.cfl");
  return p;
}

}  // namespace stratus::climate
