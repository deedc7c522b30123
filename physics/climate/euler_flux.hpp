// The fluxes of the compressible Euler equations through cell faces, and the local wave rate, as device
// functions (4th-order face values, hyperviscosity, optional constant viscosity and diffusivity).
#pragma once
#include "climate/euler.hpp"
#include "climate/fv_stencils.hpp"

namespace stratus::climate::euler_flux {

using namespace euler_const;

// Flux through the face between cells (i - di, j - dj) and (i, j) at level k, per unit area; hr and hrt
// are the background density and rho theta of level k; hv = fv::hyperviscosity(beta, dx, dt). Both cells sharing a face evaluate it from the
// same operands in the same order, so the update is conservative to the last bit.
KOKKOS_INLINE_FUNCTION void horizontal_flux(const Field4D& s, int k, int j, int i, int di, int dj, double hr,
                                            double hrt, double hv, double nu, double kappa, double inv_dx,
                                            double F[kEulerVars]) {
  double vals[kEulerVars], d3[kEulerVars];
  for (int v = 0; v < kEulerVars; ++v) {
    const double s0 = s(v, k, j - 2 * dj, i - 2 * di), s1 = s(v, k, j - dj, i - di), s2 = s(v, k, j, i),
                 s3 = s(v, k, j + dj, i + di);
    vals[v] = fv::face_value4(s0, s1, s2, s3);
    d3[v] = fv::hyperviscous_flux(hv, s0, s1, s2, s3);
  }
  const double r = vals[kDens] + hr;
  const double u = vals[kUmom] / r, vv = vals[kVmom] / r, w = vals[kWmom] / r, t = (vals[kRhot] + hrt) / r;
  const double p = kC0 * ::pow(r * t, kGamma);
  const double un = di ? u : vv;
  F[kDens] = r * un + d3[kDens];
  F[kUmom] = r * un * u + (di ? p : 0.0) + d3[kUmom];
  F[kVmom] = r * un * vv + (dj ? p : 0.0) + d3[kVmom];
  F[kWmom] = r * un * w + d3[kWmom];
  F[kRhot] = r * un * t + d3[kRhot];
  if (nu > 0.0 || kappa > 0.0) {  // constant viscosity and diffusivity: rho nu grad(u), rho kappa grad(theta)
    double c[4][4];               // u, v, w, theta in the four stencil cells
    for (int m = 0; m < 4; ++m) {
      const int jj = j + (m - 2) * dj, ii = i + (m - 2) * di;
      const double rc = s(kDens, k, jj, ii) + hr;
      c[0][m] = s(kUmom, k, jj, ii) / rc;
      c[1][m] = s(kVmom, k, jj, ii) / rc;
      c[2][m] = s(kWmom, k, jj, ii) / rc;
      c[3][m] = (s(kRhot, k, jj, ii) + hrt) / rc;
    }
    for (int q = 0; q < 3; ++q) F[kUmom + q] -= r * nu * fv::face_diff1(c[q][0], c[q][1], c[q][2], c[q][3]) * inv_dx;
    F[kRhot] -= r * kappa * fv::face_diff1(c[3][0], c[3][1], c[3][2], c[3][3]) * inv_dx;
  }
}

// Flux through the face below cell k (between levels k - 1 and k); hdi, hdti, hpi are the background
// density, rho theta and pressure at that face. At a wall the normal velocity and the hyperviscous mass
// flux vanish, and so do the viscous fluxes (free slip, no heat flux): mass is conserved to round-off.
KOKKOS_INLINE_FUNCTION void vertical_flux(const Field4D& s, int k, int j, int i, double hdi, double hdti, double hpi,
                                          bool wall, double hv, double nu, double kappa, double inv_dz,
                                          const Kokkos::View<double*, MemSpace>& hcell,
                                          const Kokkos::View<double*, MemSpace>& htcell, double F[kEulerVars]) {
  double vals[kEulerVars], d3[kEulerVars];
  for (int v = 0; v < kEulerVars; ++v) {
    const double s0 = s(v, k - 2, j, i), s1 = s(v, k - 1, j, i), s2 = s(v, k, j, i), s3 = s(v, k + 1, j, i);
    vals[v] = fv::face_value4(s0, s1, s2, s3);
    d3[v] = fv::hyperviscous_flux(hv, s0, s1, s2, s3);
  }
  const double r = vals[kDens] + hdi;
  const double u = vals[kUmom] / r, vv = vals[kVmom] / r, t = (vals[kRhot] + hdti) / r;
  double w = vals[kWmom] / r;
  const double p = kC0 * ::pow(r * t, kGamma) - hpi;
  if (wall) {
    w = 0.0;
    d3[kDens] = 0.0;
  }
  F[kDens] = r * w + d3[kDens];
  F[kUmom] = r * w * u + d3[kUmom];
  F[kVmom] = r * w * vv + d3[kVmom];
  F[kWmom] = r * w * w + p + d3[kWmom];
  F[kRhot] = r * w * t + d3[kRhot];
  if ((nu > 0.0 || kappa > 0.0) && !wall) {
    double c[4][4];
    for (int m = 0; m < 4; ++m) {
      const int kk = k + m - 2;
      const double rc = s(kDens, kk, j, i) + hcell(kk);
      c[0][m] = s(kUmom, kk, j, i) / rc;
      c[1][m] = s(kVmom, kk, j, i) / rc;
      c[2][m] = s(kWmom, kk, j, i) / rc;
      c[3][m] = (s(kRhot, kk, j, i) + htcell(kk)) / rc;
    }
    for (int q = 0; q < 3; ++q) F[kUmom + q] -= r * nu * fv::face_diff1(c[q][0], c[q][1], c[q][2], c[q][3]) * inv_dz;
    F[kRhot] -= r * kappa * fv::face_diff1(c[3][0], c[3][1], c[3][2], c[3][3]) * inv_dz;
  }
}

// (|u_d| + c) / dx_d of cell (i, j, k), the largest over directions (split) or their sum (unsplit).
KOKKOS_INLINE_FUNCTION double wave_rate(const Field4D& s, double hc, double htc, int k, int j, int i, double ix,
                                        double iy, double iz, bool sum) {
  const double r = s(kDens, k, j, i) + hc;
  const double rt = s(kRhot, k, j, i) + htc;
  const double c = ::sqrt(kGamma * kC0 * ::pow(rt, kGamma) / r);
  const double u = s(kUmom, k, j, i) / r, v = s(kVmom, k, j, i) / r, w = s(kWmom, k, j, i) / r;
  const double ax = ((u < 0 ? -u : u) + c) * ix, ay = ((v < 0 ? -v : v) + c) * iy, az = ((w < 0 ? -w : w) + c) * iz;
  return sum ? ax + ay + az : (ax > ay ? (ax > az ? ax : az) : (ay > az ? ay : az));
}

/// wave_rate with the grid's inverse spacings (0 along a direction with one cell) and the stepping's
/// combination bound in, so that every reduction over it does the same arithmetic.
struct WaveRate {
  double ix = 0.0, iy = 0.0, iz = 0.0;
  bool sum = false;  // unsplit stepping: the sum over directions; split: the largest
  WaveRate(const LocalGrid& g, bool unsplit)
      : ix(g.global_n[0] > 1 ? 1.0 / g.dx[0] : 0.0),
        iy(g.global_n[1] > 1 ? 1.0 / g.dx[1] : 0.0),
        iz(1.0 / g.dx[2]),
        sum(unsplit) {}
  KOKKOS_INLINE_FUNCTION double operator()(const Field4D& s, double hc, double htc, int k, int j, int i) const {
    return wave_rate(s, hc, htc, k, j, i, ix, iy, iz, sum);
  }
};

}  // namespace stratus::climate::euler_flux
