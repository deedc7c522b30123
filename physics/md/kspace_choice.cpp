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

namespace {

// (sin x / x)^p.
double powsinxx(double x, int p) {
  if (x == 0.0) return 1.0;
  return std::pow(std::sin(x) / x, p);
}

// Q_opt of Hockney and Eastwood for the ad influence function (LAMMPS' compute_qopt): the mean squared
// force error summed over the grid's wave vectors, aliases to +-2.
double qopt_ad(const KSpaceSystem& s, double g, Int3 n, int order) {
  double len[3], unit[3];
  for (int d = 0; d < 3; ++d) {
    len[d] = s.hi[static_cast<std::size_t>(d)] - s.lo[static_cast<std::size_t>(d)];
    unit[d] = 2.0 * kPi / len[d];
  }
  const int twoorder = 2 * order;
  const double four_pi = 4.0 * kPi;
  double qopt = 0.0;
  for (int m = 0; m < n[2]; ++m) {
    const int mper = m - n[2] * (2 * m / n[2]);
    for (int l = 0; l < n[1]; ++l) {
      const int lper = l - n[1] * (2 * l / n[1]);
      for (int k = 0; k < n[0]; ++k) {
        const int kper = k - n[0] * (2 * k / n[0]);
        const double sqk = std::pow(unit[0] * kper, 2) + std::pow(unit[1] * lper, 2) + std::pow(unit[2] * mper, 2);
        if (sqk == 0.0) continue;
        double sum1 = 0.0, sum2 = 0.0, sum3 = 0.0, sum4 = 0.0;
        for (int nx = -2; nx <= 2; ++nx) {
          double qx = unit[0] * (kper + n[0] * nx);
          const double sx = std::exp(-0.25 * (qx / g) * (qx / g));
          const double wx = powsinxx(0.5 * qx * len[0] / n[0], twoorder);
          qx *= qx;
          for (int ny = -2; ny <= 2; ++ny) {
            double qy = unit[1] * (lper + n[1] * ny);
            const double sy = std::exp(-0.25 * (qy / g) * (qy / g));
            const double wy = powsinxx(0.5 * qy * len[1] / n[1], twoorder);
            qy *= qy;
            for (int nz = -2; nz <= 2; ++nz) {
              double qz = unit[2] * (mper + n[2] * nz);
              const double sz = std::exp(-0.25 * (qz / g) * (qz / g));
              const double wz = powsinxx(0.5 * qz * len[2] / n[2], twoorder);
              qz *= qz;
              const double dot2 = qx + qy + qz, u1 = sx * sy * sz, u2 = wx * wy * wz;
              sum1 += u1 * u1 / dot2 * four_pi * four_pi;
              sum2 += u1 * u2 * four_pi;
              sum3 += u2;
              sum4 += dot2 * u2;
            }
          }
        }
        qopt += sum1 - sum2 * sum2 / (sum3 * sum4);
      }
    }
  }
  return qopt;
}

}  // namespace

double pppm_kspace_error(const KSpaceSystem& s, double g, Int3 grid, int order, bool ad) {
  if (ad) return std::sqrt(qopt_ad(s, g, grid, order) / static_cast<double>(s.natoms)) * s.q2() / s.volume();
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

KSpaceChoice choose_pppm(const KSpaceSystem& s, double accuracy_rel, double g_ewald, Int3 grid, int order,
                         bool ad) {
  STRATUS_INPUT_REQUIRE(s.qsqsum > 0.0, "md.kspace: the system has no charges (all q = 0)");
  STRATUS_INPUT_REQUIRE(order >= 2 && order <= 7, "key 'md.kspace_order' = " << order << ": give 2 .. 7");
  KSpaceChoice c;
  c.order = order;
  c.ad = ad;
  c.accuracy_abs = accuracy_rel * two_charge_force(s.qqrd2e);
  c.g_ewald = g_ewald > 0.0 ? g_ewald : estimate_g_ewald(s, c.accuracy_abs);
  if (grid[0] > 0) {
    c.grid = grid;
  } else if (ad) {
    // One spacing for all directions, from 4 / g_ewald down by 5 % until Q_opt meets the accuracy.
    double h = 4.0 / c.g_ewald;
    for (int count = 0;; ++count) {
      for (int d = 0; d < 3; ++d)
        c.grid[d] = std::max(2, static_cast<int>((s.hi[static_cast<std::size_t>(d)] - s.lo[static_cast<std::size_t>(d)]) / h));
      if (pppm_kspace_error(s, c.g_ewald, c.grid, order, true) <= c.accuracy_abs) break;
      STRATUS_INPUT_REQUIRE(count < 500, "md.kspace_accuracy = " << accuracy_rel << ": no PPPM grid found");
      h *= 0.95;
    }
    for (int d = 0; d < 3; ++d)
      while (!factorable(c.grid[d])) ++c.grid[d];
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
    auto f = [&](double g) { return rspace_error(s, g) - pppm_kspace_error(s, g, c.grid, order, ad); };
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
  c.estimated_kspace = pppm_kspace_error(s, c.g_ewald, c.grid, order, ad);
  c.estimated_rspace = rspace_error(s, c.g_ewald);
  return c;
}

}  // namespace stratus::md
