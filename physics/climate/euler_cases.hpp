// The test cases of the Euler solver: one function per case giving the initial perturbation at a point
// (as miniWeather writes them), and one table line per case naming it with its hydrostatic background.
// A new case is a function in euler_cases.cpp and a line in its table.
#pragma once
#include <string>
#include <vector>

#include "core/types.hpp"

namespace stratus::climate {

/// The domain a case is set in: lower corner and extent [m]; z is the height above the ground.
struct CaseDomain {
  Real3 lo{}, len{};
  bool three_d = false;
};

/// A perturbation of the hydrostatic background at a point: density [kg/m^3], velocity [m/s] and
/// potential temperature [K].
struct Perturbation {
  double rho = 0.0, u = 0.0, v = 0.0, w = 0.0, theta = 0.0;
};

/// The perturbation at (x, y, z) [m] over the background density hr [kg/m^3] and potential temperature
/// ht [K] there.
using CaseSampler = void (*)(const CaseDomain& d, double x, double y, double z, double hr, double ht, Perturbation& p);

/// The hydrostatic background of a case (surface potential temperature 300 K, surface pressure 1000 hPa).
enum class Background {
  neutral,     // constant theta
  constant_n,  // constant Brunt-Vaisala frequency EulerCaseDef::brunt_vaisala
  isothermal,  // T = 300 K: constant N = g / sqrt(cp T), sound speed and scale height R T / g
};

struct EulerCaseDef {
  const char* name;
  const char* summary;  // in the help of euler.case ("" for none)
  Background background;
  double brunt_vaisala;  // N [1/s] of a constant_n background
  bool y_uniform;        // does not vary along y (3D runs repeat the 2D run in every y slice)
  bool inflow;           // a jet enters through the left boundary (an open case)
  CaseSampler sample;
};

/// Every case, in the order of the table.
const std::vector<EulerCaseDef>& euler_cases();
/// The help text of euler.case, from the table.
std::string euler_cases_help();
/// The hydrostatic background of a case at height z: density hr [kg/m^3], potential temperature ht [K].
void euler_background(const EulerCaseDef& c, double z, double& hr, double& ht);

}  // namespace stratus::climate
