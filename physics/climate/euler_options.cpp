// Compressible Euler: the deck keys and their reading into EulerParams.
#include "climate/euler_options.hpp"

#include "climate/euler_cases.hpp"
#include "core/error.hpp"

namespace stratus::climate {

void declare_euler_options(OptionRegistry& reg) {
  std::vector<std::string> cases;
  for (const auto& c : euler_cases()) cases.push_back(c.name);
  reg.add_string("euler.case", "thermal", "", euler_cases_help()).one_of(cases);
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
  for (std::size_t i = 0; i < euler_cases().size(); ++i)
    if (c == euler_cases()[i].name) p.test = static_cast<int>(i);
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
