// Compressible Euler: the deck keys and their reading into EulerParams.
#include "climate/euler_options.hpp"

#include "core/error.hpp"

namespace stratus::climate {

namespace {
const char* const kCaseNames[] = {"thermal",   "collision", "gravity_waves",  "density_current",
                                  "injection", "straka",    "skamarock_klemp"};
}  // namespace

const char* euler_case_name(EulerCase c) { return kCaseNames[static_cast<int>(c)]; }

void declare_euler_options(OptionRegistry& reg) {
  reg.add_string("euler.case", "thermal", "",
                 "test case: thermal (rising bubble), collision, gravity_waves, density_current (miniWeather's), "
                 "injection (open), straka (Straka et al. 1993), skamarock_klemp (inertia-gravity wave)")
      .one_of({"thermal", "collision", "gravity_waves", "density_current", "injection", "straka", "skamarock_klemp"});
  reg.add_string("euler.splitting", "alternating", "",
                 "alternating: x, (y,) z sweeps of 3-stage RK, order reversed every step (miniWeather); unsplit: "
                 "SSP-RK3 of all directions at once")
      .one_of({"alternating", "unsplit"});
  reg.add_real("euler.hv_beta", 0.25, "1", "hyperviscosity strength (1 removes 2 dx noise in one stage)")
      .at_least(0.0)
      .at_most(1.0);
  reg.add_real("euler.cfl", 1.5, "1", "time step: cfl min(dx) / max_speed, or cfl / max((|u|+c)/dx)")
      .greater_than(0.0)
      .at_most(3.0);
  reg.add_real("euler.max_speed", 450.0, "m/s",
               "fastest signal speed for a fixed time step (miniWeather: 450); 0: the time step follows the state")
      .at_least(0.0);
  reg.add_real("euler.viscosity", 0.0, "m^2/s", "constant kinematic viscosity nu (Straka: 75)").at_least(0.0);
  reg.add_real("euler.diffusivity", 0.0, "m^2/s", "constant thermal diffusivity kappa (Straka: 75)").at_least(0.0);
  reg.add_real("euler.courant_limit", 2.0, "1", "stop the run when the measured Courant number exceeds this")
      .greater_than(0.0);
}

EulerParams EulerParams::from_deck(const Deck& deck) {
  EulerParams p;
  const std::string c = deck.get_string("euler.case");
  for (int i = 0; i < 7; ++i)
    if (c == kCaseNames[i]) p.test = static_cast<EulerCase>(i);
  p.splitting = deck.get_string("euler.splitting") == "unsplit" ? EulerSplitting::unsplit : EulerSplitting::alternating;
  p.hv_beta = deck.get_real("euler.hv_beta");
  p.cfl = deck.get_real("euler.cfl");
  p.max_speed = deck.get_real("euler.max_speed");
  p.nu = deck.get_real("euler.viscosity");
  p.kappa = deck.get_real("euler.diffusivity");
  p.courant_limit = deck.get_real("euler.courant_limit");
  return p;
}

}  // namespace stratus::climate
