// core/fast_math.hpp: the vectorisable ln, exp and x^y against the C library over the ranges the solvers
// use (the Euler equation of state takes rho theta from about 1e-3 to 1e4), with the error bounds the
// header states, NaN for inputs outside the domain, and exact values where the result is exact.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "core/fast_math.hpp"

using namespace stratus;

namespace {
double rel_err(double a, double b) { return std::fabs(a - b) / std::fabs(b); }
}  // namespace

TEST_CASE("log_pos and exp_finite agree with the C library to a few ulp", "[fast_math]") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> lx(std::log(1e-300), std::log(1e300)), t(-700.0, 700.0);
  double worst_log = 0.0, worst_exp = 0.0;
  for (int n = 0; n < 200000; ++n) {
    const double x = std::exp(lx(rng));
    // ln x near 1 is small: measure its error against |ln x| + 1 (absolute near 0, relative elsewhere).
    worst_log = std::max(worst_log, std::fabs(fast_math::log_pos(x) - std::log(x)) / (std::fabs(std::log(x)) + 1.0));
    const double y = t(rng);
    worst_exp = std::max(worst_exp, rel_err(fast_math::exp_finite(y), std::exp(y)));
  }
  INFO("ln: " << worst_log << ", exp: " << worst_exp);
  CHECK(worst_log < 4e-16);
  CHECK(worst_exp < 4e-16);
  CHECK(fast_math::log_pos(1.0) == 0.0);
  CHECK(fast_math::exp_finite(0.0) == 1.0);
  CHECK(fast_math::log_pos(std::ldexp(1.0, 37)) == Approx(37 * std::log(2.0)).epsilon(1e-16));
}

TEST_CASE("pow_pos: within (|y ln x| + 2) 1.5e-16 of std::pow, NaN outside normal x > 0", "[fast_math]") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> lx(std::log(1e-3), std::log(1e6));
  for (double y : {1.40027894002789400278940027894, 0.5, 2.5, -1.3}) {
    double worst = 0.0;  // error over its bound
    for (int n = 0; n < 200000; ++n) {
      const double x = std::exp(lx(rng));
      worst = std::max(worst, rel_err(fast_math::pow_pos(x, y), std::pow(x, y)) / ((std::fabs(y * std::log(x)) + 2.0) * 1.5e-16));
    }
    INFO("y = " << y << ": worst error / bound " << worst);
    CHECK(worst < 1.0);
  }
  CHECK(fast_math::pow_pos(4.0, 0.5) == Approx(2.0).epsilon(1e-15));
  for (double bad : {0.0, -1.0, -0.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::denorm_min()})
    CHECK(std::isnan(fast_math::pow_pos(bad, 1.4)));
}
