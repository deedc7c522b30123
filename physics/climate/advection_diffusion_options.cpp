// Advection-diffusion: the deck keys and their reading into AdvectionParams.
#include "climate/advection_diffusion_options.hpp"

#include "core/error.hpp"

namespace stratus::climate {

void declare_advection_options(OptionRegistry& reg) {
  reg.add_reals("advection.velocity", {1.0, 0.5, 0.25}, "m/s", "constant advection velocity (x y z)").size(3);
  reg.add_real("advection.diffusivity", 1e-3, "m^2/s", "constant diffusivity kappa").at_least(0.0);
  reg.add_string("advection.initial", "gaussian", "", "initial tracer: a Gaussian blob or a product of sine modes")
      .one_of({"gaussian", "sine"});
  reg.add_real("advection.amplitude", 1.0, "tracer", "peak value of the initial tracer");
  reg.add_reals("advection.center", {0.5, 0.5, 0.5}, "m", "Gaussian centre at t = 0 (x y z)").size(3);
  reg.add_real("advection.width", 0.1, "m", "Gaussian standard deviation at t = 0").greater_than(0.0);
  reg.add_ints("advection.modes", {1, 1, 1}, "1", "sine: whole wavelengths across the domain (x y z; 0 = uniform)")
      .size(3)
      .at_least(0);
  reg.add_string("advection.reconstruction", "centered4", "",
                 "face values: 4th-order centred (non-dissipative) or 3rd-order upwind-biased")
      .one_of({"centered4", "upwind3"});
  reg.add_string("advection.integrator", "lsrk4", "", "Runge-Kutta method").one_of({"lsrk4", "ssprk3"});
  reg.add_real("advection.cfl", 0.8, "1", "Courant number for the automatic time step").greater_than(0.0).at_most(2.0);
}

AdvectionParams AdvectionParams::from_deck(const Deck& deck) {
  AdvectionParams p;
  const auto u = deck.get_reals("advection.velocity");
  const auto c = deck.get_reals("advection.center");
  const auto m = deck.get_ints32("advection.modes");
  for (int d = 0; d < 3; ++d) {
    p.velocity[d] = u[d];
    p.center[d] = c[d];
    p.modes[d] = static_cast<int>(m[d]);
  }
  p.kappa = deck.get_real("advection.diffusivity");
  p.shape = deck.get_string("advection.initial") == "sine" ? TracerShape::sine : TracerShape::gaussian;
  p.amplitude = deck.get_real("advection.amplitude");
  p.width = deck.get_real("advection.width");
  p.recon =
      deck.get_string("advection.reconstruction") == "upwind3" ? Reconstruction::upwind3 : Reconstruction::centered4;
  p.integrator = parse_rk_method(deck.get_string("advection.integrator"), "advection.integrator");
  p.cfl = deck.get_real("advection.cfl");
  return p;
}

}  // namespace stratus::climate
