// Shallow water: the deck keys, declared and read by one binding each (ShallowWaterParams::bind).
#include "climate/shallow_water_options.hpp"

#include "input/options.hpp"

namespace stratus::climate {

namespace {
const Choices<SwCase> kCases = {{"wave", SwCase::wave}, {"jet", SwCase::jet}, {"dam_break", SwCase::dam_break}};
const Choices<SwFlux> kFluxes = {{"centered", SwFlux::centered}, {"rusanov", SwFlux::rusanov}};
const Choices<RKMethod> kIntegrators = {{"ssprk3", RKMethod::ssprk3}, {"lsrk4", RKMethod::lsrk4}};
}  // namespace

template <class B>
void ShallowWaterParams::bind(B& o) {
  using P = ShallowWaterParams;
  o.choice(&P::test, "shallow_water.case", kCases, SwCase::wave,
           "test case: linear inertia-gravity wave (exact), geostrophically balanced jet (exact steady "
           "state), or dam break");
  o.real(&P::gravity, "shallow_water.gravity", 9.80616, "m/s^2", "gravitational acceleration g").greater_than(0.0);
  o.real(&P::depth, "shallow_water.depth", 1000.0, "m", "mean depth H of the wave and the jet; eta = h - H in the output")
      .greater_than(0.0);
  o.real(&P::f0, "shallow_water.f0", 1e-4, "1/s", "Coriolis parameter at y_ref");
  o.real(&P::beta, "shallow_water.beta", 0.0, "1/(m s)",
         "beta-plane gradient df/dy (needs grid.bc_y = wall; the wave and the jet are f-plane cases)");
  o.real(&P::y_ref, "shallow_water.y_ref", 0.0, "m", "latitude (y) where f = f0");
  o.real(&P::amplitude, "shallow_water.amplitude", 0.01, "m", "wave: surface amplitude A (small against depth: linear)")
      .greater_than(0.0);
  o.integers(&P::modes, "shallow_water.modes", {1, 1}, "1", "wave: whole wavelengths across the domain in x and y");
  o.real(&P::jet_speed, "shallow_water.jet_speed", 10.0, "m/s", "jet: peak speed U0 of u = U0 sin(2 pi (y - y_lo) / Ly)");
  o.real(&P::h_left, "shallow_water.h_left", 2.0, "m", "dam break: depth left of the dam").greater_than(0.0);
  o.real(&P::h_right, "shallow_water.h_right", 1.0, "m", "dam break: depth right of the dam").greater_than(0.0);
  o.real(&P::dam_fraction, "shallow_water.dam_fraction", 0.5, "1", "dam break: dam position as a fraction of the x extent")
      .at_least(0.0)
      .at_most(1.0);
  o.choice(&P::flux, "shallow_water.flux", kFluxes, SwFlux::centered,
           "face flux: 4th-order centred (with hyperviscosity) or Rusanov on 3rd-order upwind-biased states");
  o.real(&P::hv_beta, "shallow_water.hv_beta", 0.25, "1",
         "hyperviscosity strength (miniWeather's beta; 1 removes 2dx noise in one step, 0 = none); "
         "added with either flux")
      .at_least(0.0)
      .at_most(1.0);
  o.choice(&P::integrator, "shallow_water.integrator", kIntegrators, RKMethod::ssprk3, "Runge-Kutta method");
  o.real(&P::cfl, "shallow_water.cfl", 0.5, "1", "Courant number of dt = cfl min(dx, dy) / max(|u| + sqrt(g h))")
      .greater_than(0.0)
      .at_most(1.0);
}

void declare_shallow_water_options(OptionRegistry& reg) { declare_options<ShallowWaterParams>(reg); }

ShallowWaterParams ShallowWaterParams::from_deck(const Deck& deck) { return read_options<ShallowWaterParams>(deck); }

}  // namespace stratus::climate
