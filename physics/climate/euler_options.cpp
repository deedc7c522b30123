// Compressible Euler: the deck keys, declared and read by one binding each (EulerParams::bind).
#include "climate/euler_options.hpp"

#include "climate/euler_cases.hpp"
#include "input/options.hpp"

namespace stratus::climate {

namespace {
// The cases' names from their table (euler_cases.cpp), as indices into it.
Choices<int> case_choices() {
  Choices<int> c;
  for (std::size_t i = 0; i < euler_cases().size(); ++i) c.emplace_back(euler_cases()[i].name, static_cast<int>(i));
  return c;
}
const Choices<EulerSplitting> kSplittings = {{"alternating", EulerSplitting::alternating},
                                             {"unsplit", EulerSplitting::unsplit}};
}  // namespace

template <class B>
void EulerParams::bind(B& o) {
  static const Choices<int> cases = case_choices();
  o.choice(&EulerParams::test, "euler.case", cases, value_of(cases, std::string("thermal")), euler_cases_help());
  o.choice(&EulerParams::splitting, "euler.splitting", kSplittings, EulerSplitting::alternating,
           "alternating: x, (y,) z sweeps of 3-stage RK, order reversed every step (miniWeather); unsplit: "
           "SSP-RK3 of all directions at once");
  o.real(&EulerParams::hv_beta, "euler.hv_beta", 0.25, "1", "hyperviscosity strength (1 removes 2 dx noise in one stage)")
      .at_least(0.0)
      .at_most(1.0);
  o.real(&EulerParams::cfl, "euler.cfl", 1.5, "1", "time step: cfl min(dx) / max_speed, or cfl / max((|u|+c)/dx)")
      .greater_than(0.0)
      .at_most(3.0);
  o.real(&EulerParams::max_speed, "euler.max_speed", 450.0, "m/s",
         "fastest signal speed for a fixed time step (miniWeather: 450); 0: the time step follows the state")
      .at_least(0.0);
  o.real(&EulerParams::nu, "euler.viscosity", 0.0, "m^2/s", "constant kinematic viscosity nu (Straka: 75)")
      .at_least(0.0);
  o.real(&EulerParams::kappa, "euler.diffusivity", 0.0, "m^2/s", "constant thermal diffusivity kappa (Straka: 75)")
      .at_least(0.0);
  o.real(&EulerParams::courant_limit, "euler.courant_limit", 2.0, "1",
         "stop the run when the measured Courant number exceeds this")
      .greater_than(0.0);
}

void declare_euler_options(OptionRegistry& reg) { declare_options<EulerParams>(reg); }

EulerParams EulerParams::from_deck(const Deck& deck) { return read_options<EulerParams>(deck); }

}  // namespace stratus::climate
