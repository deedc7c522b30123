// Advection-diffusion: the deck keys, declared and read by one binding each (AdvectionParams::bind).
#include "climate/advection_diffusion_options.hpp"

#include "input/options.hpp"

namespace stratus::climate {

namespace {
const Choices<TracerShape> kShapes = {{"gaussian", TracerShape::gaussian}, {"sine", TracerShape::sine}};
const Choices<Reconstruction> kReconstructions = {{"centered4", Reconstruction::centered4},
                                                  {"upwind3", Reconstruction::upwind3}};
const Choices<RKMethod> kIntegrators = {{"lsrk4", RKMethod::lsrk4}, {"ssprk3", RKMethod::ssprk3}};
}  // namespace

template <class B>
void AdvectionParams::bind(B& o) {
  using P = AdvectionParams;
  o.reals(&P::velocity, "advection.velocity", {1.0, 0.5, 0.25}, "m/s", "constant advection velocity (x y z)");
  o.real(&P::kappa, "advection.diffusivity", 1e-3, "m^2/s", "constant diffusivity kappa").at_least(0.0);
  o.choice(&P::shape, "advection.initial", kShapes, TracerShape::gaussian,
           "initial tracer: a Gaussian blob or a product of sine modes");
  o.real(&P::amplitude, "advection.amplitude", 1.0, "tracer", "peak value of the initial tracer");
  o.reals(&P::center, "advection.center", {0.5, 0.5, 0.5}, "m", "Gaussian centre at t = 0 (x y z)");
  o.real(&P::width, "advection.width", 0.1, "m", "Gaussian standard deviation at t = 0").greater_than(0.0);
  o.integers(&P::modes, "advection.modes", {1, 1, 1}, "1", "sine: whole wavelengths across the domain (x y z; 0 = uniform)")
      .at_least(0);
  o.choice(&P::recon, "advection.reconstruction", kReconstructions, Reconstruction::centered4,
           "face values: 4th-order centred (non-dissipative) or 3rd-order upwind-biased");
  o.choice(&P::integrator, "advection.integrator", kIntegrators, RKMethod::lsrk4, "Runge-Kutta method");
  o.real(&P::cfl, "advection.cfl", 0.8, "1", "Courant number for the automatic time step").greater_than(0.0).at_most(2.0);
}

void declare_advection_options(OptionRegistry& reg) { declare_options<AdvectionParams>(reg); }

AdvectionParams AdvectionParams::from_deck(const Deck& deck) { return read_options<AdvectionParams>(deck); }

}  // namespace stratus::climate
