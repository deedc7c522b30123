// The choice of g_ewald, the PPPM grid and the Ewald k-vectors from a requested force accuracy, as LAMMPS
// makes it (kspace.cpp, ewald.cpp, pppm.cpp), so that a deck and a LAMMPS input with the same accuracy run
// with the same parameters. Host code, run once at set-up.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "md/kspace.hpp"

namespace stratus::md {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Deserno and Holm, J. Chem. Phys. 109, 7678 (1998), table of the ik error coefficients a(order, m).
double acons(int order, int m) {
  static const double a[8][7] = {
      {0, 0, 0, 0, 0, 0, 0},
      {2.0 / 3.0, 0, 0, 0, 0, 0, 0},
      {1.0 / 50.0, 5.0 / 294.0, 0, 0, 0, 0, 0},
      {1.0 / 588.0, 7.0 / 1440.0, 21.0 / 3872.0, 0, 0, 0, 0},
      {1.0 / 4320.0, 3.0 / 1936.0, 7601.0 / 2271360.0, 143.0 / 28800.0, 0, 0, 0},
      {1.0 / 23232.0, 7601.0 / 13628160.0, 143.0 / 69120.0, 517231.0 / 106536960.0, 106640677.0 / 11737571328.0, 0, 0},
      {691.0 / 68140800.0, 13.0 / 57600.0, 47021.0 / 35512320.0, 9694607.0 / 2095994880.0,
       733191589.0 / 59609088000.0, 326190917.0 / 11700633600.0, 0},
      {1.0 / 345600.0, 3617.0 / 35512320.0, 745739.0 / 838397952.0, 56399353.0 / 12773376000.0,
       25091609.0 / 1560084480.0, 1755948832039.0 / 36229939200000.0, 4887769399.0 / 37838389248.0}};
  return a[order][m];
}

// RMS ik force error along one direction of length prd with spacing h.
double ik_error(const KSpaceSystem& s, double g, double h, double prd, int order) {
  double sum = 0.0;
  for (int m = 0; m < order; ++m) sum += acons(order, m) * std::pow(h * g, 2.0 * m);
  return s.q2() * std::pow(h * g, static_cast<double>(order)) *
         std::sqrt(g * prd * std::sqrt(2.0 * kPi) * sum / static_cast<double>(s.natoms)) / (prd * prd);
}

bool factorable(int n) {
  while (n > 1) {
    if (n % 2 == 0)
      n /= 2;
    else if (n % 3 == 0)
      n /= 3;
    else if (n % 5 == 0)
      n /= 5;
    else
      return false;
  }
  return true;
}

// RMS error of the Ewald sum truncated at index km along a direction of length prd.
double ewald_rms(const KSpaceSystem& s, double g, int km, double prd) {
  return 2.0 * s.q2() * g / prd * std::sqrt(1.0 / (kPi * km * static_cast<double>(s.natoms))) *
         std::exp(-kPi * kPi * km * km / (g * g * prd * prd));
}

}  // namespace

double KSpaceChoice::estimated() const {
  return std::sqrt(estimated_kspace * estimated_kspace + estimated_rspace * estimated_rspace);
}

double two_charge_force(double qqrd2e) { return qqrd2e; }  // q = 1 charge unit, r = 1 length unit

double estimate_g_ewald(const KSpaceSystem& s, double accuracy_abs) {
  const double v = s.volume();
  double g = accuracy_abs * std::sqrt(static_cast<double>(s.natoms) * s.cutoff * v) / (2.0 * s.q2());
  if (g >= 1.0)
    g = (1.35 - 0.15 * std::log(accuracy_abs)) / s.cutoff;
  else
    g = std::sqrt(-std::log(g)) / s.cutoff;
  return g;
}

double rspace_error(const KSpaceSystem& s, double g) {
  return 2.0 * s.q2() * std::exp(-g * g * s.cutoff * s.cutoff) /
         std::sqrt(static_cast<double>(s.natoms) * s.cutoff * s.volume());
}

double pppm_kspace_error(const KSpaceSystem& s, double g, Int3 grid, int order) {
  double sq = 0.0;
  for (int d = 0; d < 3; ++d) {
    const double prd = s.hi[static_cast<std::size_t>(d)] - s.lo[static_cast<std::size_t>(d)];
    const double e = ik_error(s, g, prd / grid[d], prd, order);
    sq += e * e;
  }
  return std::sqrt(sq) / std::sqrt(3.0);
}

KSpaceChoice choose_ewald(const KSpaceSystem& s, double accuracy_rel, double g_ewald, Int3 kmax) {
  STRATUS_INPUT_REQUIRE(s.qsqsum > 0.0, "md.kspace: the system has no charges (all q = 0)");
  KSpaceChoice c;
  c.accuracy_abs = accuracy_rel * two_charge_force(s.qqrd2e);
  c.g_ewald = g_ewald > 0.0 ? g_ewald : estimate_g_ewald(s, c.accuracy_abs);
  if (kmax[0] > 0) {
    c.kmax = kmax;
  } else {
    for (int d = 0; d < 3; ++d) {
      const double prd = s.hi[static_cast<std::size_t>(d)] - s.lo[static_cast<std::size_t>(d)];
      int k = 1;
      while (ewald_rms(s, c.g_ewald, k, prd) > c.accuracy_abs) ++k;
      c.kmax[d] = k;
    }
  }
  double sq = 0.0;
  for (int d = 0; d < 3; ++d) {
    const double e =
        ewald_rms(s, c.g_ewald, c.kmax[d], s.hi[static_cast<std::size_t>(d)] - s.lo[static_cast<std::size_t>(d)]);
    sq += e * e;
  }
  c.estimated_kspace = std::sqrt(sq) / std::sqrt(3.0);
  c.estimated_rspace = rspace_error(s, c.g_ewald);
  return c;
}

KSpaceChoice choose_pppm(const KSpaceSystem& s, double accuracy_rel, double g_ewald, Int3 grid, int order) {
  STRATUS_INPUT_REQUIRE(s.qsqsum > 0.0, "md.kspace: the system has no charges (all q = 0)");
  STRATUS_INPUT_REQUIRE(order >= 2 && order <= 7, "key 'md.kspace_order' = " << order << ": give 2 .. 7");
  KSpaceChoice c;
  c.order = order;
  c.accuracy_abs = accuracy_rel * two_charge_force(s.qqrd2e);
  c.g_ewald = g_ewald > 0.0 ? g_ewald : estimate_g_ewald(s, c.accuracy_abs);
  if (grid[0] > 0) {
    c.grid = grid;
  } else {
    // Per direction: start at spacing 1 / g_ewald and refine until the direction's error meets the
    // accuracy (LAMMPS' loop evaluates the error before each refinement, so it ends one point finer).
    for (int d = 0; d < 3; ++d) {
      const double prd = s.hi[static_cast<std::size_t>(d)] - s.lo[static_cast<std::size_t>(d)];
      double h = 1.0 / c.g_ewald;
      int n = static_cast<int>(prd / h) + 1;
      double err = ik_error(s, c.g_ewald, h, prd, order);
      while (err > c.accuracy_abs) {
        err = ik_error(s, c.g_ewald, h, prd, order);
        ++n;
        h = prd / n;
      }
      while (!factorable(n)) ++n;
      STRATUS_INPUT_REQUIRE(n < 16384, "md.kspace_accuracy = " << accuracy_rel << " needs a PPPM grid of " << n
                                                               << " points in " << "xyz"[d] << ": too large");
      c.grid[d] = n;
    }
  }
  if (g_ewald <= 0.0) {
    // Newton-Raphson on rspace_error - kspace_error (a forward-difference derivative), as LAMMPS.
    auto f = [&](double g) { return rspace_error(s, g) - pppm_kspace_error(s, g, c.grid, order); };
    bool done = false;
    for (int i = 0; i < 10000 && !done; ++i) {
      const double h = 1e-6, f1 = f(c.g_ewald);
      const double df = (f(c.g_ewald + h) - f1) / h;
      c.g_ewald -= f1 / df;
      done = std::abs(f(c.g_ewald)) < 1e-5;
    }
    STRATUS_INPUT_REQUIRE(done && c.g_ewald > 0.0, "md.kspace: could not choose g_ewald for accuracy "
                                                       << accuracy_rel << "; set md.kspace_gewald");
  }
  c.estimated_kspace = pppm_kspace_error(s, c.g_ewald, c.grid, order);
  c.estimated_rspace = rspace_error(s, c.g_ewald);
  return c;
}

}  // namespace stratus::md
