// The fluxes of the compressible Euler equations through cell faces, and the local wave rate, as device
// functions (4th-order face values, hyperviscosity, optional constant viscosity and diffusivity).
#pragma once
#include "climate/euler.hpp"
#include "climate/fv_stencils.hpp"
#include "core/fast_math.hpp"

namespace stratus::climate::euler_flux {

using namespace euler_const;

/// The pressure C0 (rho theta)^gamma [Pa] of a positive rho theta [kg K / m^3] (NaN otherwise), the same
/// bits on the host and in every kernel, so that the hydrostatic background balances to the last bit.
KOKKOS_FORCEINLINE_FUNCTION double pressure(double rho_theta) { return kC0 * fast_math::pow_pos(rho_theta, kGamma); }

/// (1 + e)^gamma - 1 by its binomial series: sum over n = 1..kGammaTerms of binom(gamma, n) e^n. For
/// |e| <= kSeriesBound the truncation is below 2.2e-18 (checked in the test against long arithmetic),
/// far below the rounding of the result: the pressure perturbation to the last bits where exp(gamma ln x)
/// and a subtraction of the background would lose log2(p / p') of them.
constexpr double kSeriesBound = 0.125;
constexpr int kGammaTerms = 15;

/// binom(gamma, n), rounded once per factor (at compile time).
constexpr double gamma_binomial(int n) {
  double c = 1.0;
  for (int k = 0; k < n; ++k) c = c * (kGamma - k) / (k + 1);
  return c;
}

/// Horner's scheme from term n up: binom(gamma, n) + e (binom(gamma, n + 1) + e (...)).
template <int N>
KOKKOS_FORCEINLINE_FUNCTION double gamma_horner(double e) {
  constexpr double c = gamma_binomial(N);
  if constexpr (N == kGammaTerms)
    return c;
  else
    return c + e * gamma_horner<N + 1>(e);
}

KOKKOS_FORCEINLINE_FUNCTION double gamma_series(double e) { return e * gamma_horner<1>(e); }

/// Whether gamma_series(e) is within its bound (false for NaN).
KOKKOS_FORCEINLINE_FUNCTION bool in_series_range(double e) { return (e >= -kSeriesBound) & (e <= kSeriesBound); }

/// The pressure perturbation p(rt0 + d) - p(rt0) [Pa] of a perturbation d of a background rho theta rt0 >
/// 0 whose pressure is p0 = pressure(rt0): p0 gamma_series(d / rt0) where |d / rt0| <= kSeriesBound (the
/// common case: no exp or log), pressure(rt0 + d) - p0 beyond. Exactly 0 at d = 0.
KOKKOS_FORCEINLINE_FUNCTION double pressure_perturbation(double d, double rt0, double p0) {
  const double e = d * (1.0 / rt0);
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return in_series_range(e) ? p0 * gamma_series(e) : pressure(rt0 + d) - p0;  // a branch: rarely taken
#else
  // Both forms and a select, so that a loop over faces still vectorises.
  const double series = p0 * gamma_series(e), general = pressure(rt0 + d) - p0;
  return in_series_range(e) ? series : general;
#endif
}

/// How face_flux evaluates the pressure: exact is pressure_perturbation; series is its series alone,
/// for the CPU line kernels, whose vectorised face loops would otherwise evaluate both forms at every
/// face: face_flux then returns false where a perturbation lies beyond the bound, and the caller
/// evaluates those faces again with exact (the same bits as exact everywhere).
enum class Eos { exact, series };

/// The four cells around a face along its normal, q[v][m] for m = 0..3 (the face lies between m = 1 and
/// m = 2), with the background density and rho theta of each (for the viscous terms).
struct FaceStencil {
  double q[kEulerVars][4];
  double hc[4], htc[4];
};

/// Flux through a face with normal D (0 x, 1 y, 2 z) from its stencil, per unit area. hr, hrt, hp: the
/// background density, rho theta and pressure at the face (hp = pressure(hrt)). The fluxes carry the
/// perturbation pressure p - hp: its vertical gradient balances the gravity term, and a horizontal
/// gradient of the background, constant along a level, is zero. At a wall the normal velocity and the hyperviscous mass
/// flux vanish, and so do the viscous fluxes (free slip, no heat flux): mass is conserved to round-off. hv =
/// fv::hyperviscosity(beta, dx, dt). Both cells sharing a face evaluate it from the same operands in the
/// same order, so the update is conservative to the last bit. With V false the v momentum is taken as 0
/// and not read (x-z runs whose v is 0 everywhere: it then stays 0) and F[kVmom] = 0. With Visc false the
/// viscous and diffusive terms are compiled out (callers whose nu and kappa are 0: the same bits, and the
/// face loops of the line kernels keep their operands in registers). Returns false only with Eos::series,
/// where the face's rho theta perturbation is beyond the series' bound (F is then to be evaluated again).
template <bool V, int D, bool Visc = true, Eos E = Eos::exact>
KOKKOS_FORCEINLINE_FUNCTION bool face_flux(const FaceStencil& st, double hr, double hrt, double hp, bool wall,
                                           double hv, double nu, double kappa, double inv_dx, double F[kEulerVars]) {
  double vals[kEulerVars] = {}, d3[kEulerVars] = {};
  for (int v = 0; v < kEulerVars; ++v) {
    if (!V && v == kVmom) continue;
    vals[v] = fv::face_value4(st.q[v][0], st.q[v][1], st.q[v][2], st.q[v][3]);
    d3[v] = fv::hyperviscous_flux(hv, st.q[v][0], st.q[v][1], st.q[v][2], st.q[v][3]);
  }
  const double r = vals[kDens] + hr;
  const double ir = 1.0 / r;
  const double u = vals[kUmom] * ir, vv = V ? vals[kVmom] * ir : 0.0, t = (vals[kRhot] + hrt) * ir;
  double w = vals[kWmom] * ir;
  double p;
  bool in_range = true;
  if constexpr (E == Eos::series) {
    const double e = vals[kRhot] * (1.0 / hrt);
    p = hp * gamma_series(e);
    in_range = in_series_range(e);
  } else {
    p = pressure_perturbation(vals[kRhot], hrt, hp);
  }
  if (D == 2) {  // selects, not a branch: the face loops of the line kernels vectorise
    w = wall ? 0.0 : w;
    d3[kDens] = wall ? 0.0 : d3[kDens];
  }
  const double un = D == 0 ? u : (D == 1 ? vv : w);
  F[kDens] = r * un + d3[kDens];
  F[kUmom] = r * un * u + (D == 0 ? p : 0.0) + d3[kUmom];
  F[kVmom] = V ? r * un * vv + (D == 1 ? p : 0.0) + d3[kVmom] : 0.0;
  F[kWmom] = r * un * w + (D == 2 ? p : 0.0) + d3[kWmom];
  F[kRhot] = r * un * t + d3[kRhot];
  if (Visc && (nu > 0.0 || kappa > 0.0) &&
      !wall) {  // constant viscosity and diffusivity: rho nu grad(u), rho kappa grad(theta)
    double c[4][4];                            // u, v, w, theta in the four stencil cells
    for (int m = 0; m < 4; ++m) {
      const double rc = st.q[kDens][m] + st.hc[m];
      c[0][m] = st.q[kUmom][m] / rc;
      c[1][m] = V ? st.q[kVmom][m] / rc : 0.0;
      c[2][m] = st.q[kWmom][m] / rc;
      c[3][m] = (st.q[kRhot][m] + st.htc[m]) / rc;
    }
    for (int q = 0; q < 3; ++q)
      if (V || q != 1) F[kUmom + q] -= r * nu * fv::face_diff1(c[q][0], c[q][1], c[q][2], c[q][3]) * inv_dx;
    F[kRhot] -= r * kappa * fv::face_diff1(c[3][0], c[3][1], c[3][2], c[3][3]) * inv_dx;
  }
  return in_range;
}

/// Flux through the face between cells (i - di, j - dj) and (i, j) at level k; hr, hrt and hp are the
/// background density, rho theta and pressure of level k (face_flux with D = 0 or 1).
KOKKOS_INLINE_FUNCTION void horizontal_flux(const Field4D& s, int k, int j, int i, int di, int dj, double hr,
                                            double hrt, double hp, double hv, double nu, double kappa, double inv_dx,
                                            double F[kEulerVars]) {
  FaceStencil st;
  for (int m = 0; m < 4; ++m) {
    for (int v = 0; v < kEulerVars; ++v) st.q[v][m] = s(v, k, j + (m - 2) * dj, i + (m - 2) * di);
    st.hc[m] = hr;
    st.htc[m] = hrt;
  }
  if (di)
    face_flux<true, 0>(st, hr, hrt, hp, false, hv, nu, kappa, inv_dx, F);
  else
    face_flux<true, 1>(st, hr, hrt, hp, false, hv, nu, kappa, inv_dx, F);
}

/// Flux through the face below cell k (between levels k - 1 and k); hdi, hdti, hpi are the background
/// density, rho theta and pressure at that face, hcell and htcell the background of the cells.
KOKKOS_INLINE_FUNCTION void vertical_flux(const Field4D& s, int k, int j, int i, double hdi, double hdti, double hpi,
                                          bool wall, double hv, double nu, double kappa, double inv_dz,
                                          const Kokkos::View<double*, MemSpace>& hcell,
                                          const Kokkos::View<double*, MemSpace>& htcell, double F[kEulerVars]) {
  FaceStencil st;
  for (int m = 0; m < 4; ++m) {
    for (int v = 0; v < kEulerVars; ++v) st.q[v][m] = s(v, k + m - 2, j, i);
    st.hc[m] = hcell(k + m - 2);
    st.htc[m] = htcell(k + m - 2);
  }
  face_flux<true, 2>(st, hdi, hdti, hpi, wall, hv, nu, kappa, inv_dz, F);
}

/// The tendency of variable v in cell (i, j, k) from the face fluxes F along one direction (di, dj, dk a
/// unit vector): -(F above - F below) / dx, with gravity's -rho g on rho w along z.
KOKKOS_INLINE_FUNCTION double flux_divergence(const Field4D& F, const Field4D& s, int v, int k, int j, int i, int di,
                                              int dj, int dk, double inv_dx) {
  double t = -(F(v, k + dk, j + dj, i + di) - F(v, k, j, i)) * inv_dx;
  if (dk && v == kWmom) t -= s(kDens, k, j, i) * kGrav;
  return t;
}

// (|u_d| + c) / dx_d of a cell of state (d, mu, mv, mw, drt) (density and rho theta as perturbations of
// hc, htc), the largest over directions (split) or their sum (unsplit).
KOKKOS_INLINE_FUNCTION double wave_rate(double d, double mu, double mv, double mw, double drt, double hc, double htc,
                                        double ix, double iy, double iz, bool sum) {
  const double r = d + hc;
  const double rt = drt + htc;
  const double c = ::sqrt(kGamma * pressure(rt) / r);
  const double u = mu / r, v = mv / r, w = mw / r;
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
  KOKKOS_INLINE_FUNCTION double operator()(double d, double mu, double mv, double mw, double drt, double hc,
                                           double htc) const {
    return wave_rate(d, mu, mv, mw, drt, hc, htc, ix, iy, iz, sum);
  }
  KOKKOS_INLINE_FUNCTION double operator()(const Field4D& s, double hc, double htc, int k, int j, int i) const {
    return (*this)(s(kDens, k, j, i), s(kUmom, k, j, i), s(kVmom, k, j, i), s(kWmom, k, j, i), s(kRhot, k, j, i), hc,
                   htc);
  }
};

}  // namespace stratus::climate::euler_flux
