// PPPM's coefficients (an internal header of pppm.cpp and pppm_green.cpp): the charge assignment
// stencil, the spectral geometry, and the influence functions and self-force amplitudes computed once at
// set-up (pppm_green.cpp).
#pragma once
#include <cmath>

#include "core/types.hpp"
#include "fft/distributed_fft.hpp"

namespace stratus::md::pppm_detail {

constexpr double kPi = 3.14159265358979323846;
constexpr int kMaxOrder = 7;
constexpr int kOffset = 16384;  // keeps the truncation of (x - lo) / h + shift a floor for atoms below lo

/// The charge assignment function of order P as polynomial coefficients per stencil point (LAMMPS'
/// rho_coeff): the weight of stencil point k (k = (1 - P) / 2 .. P / 2) at distance d is
/// sum_l c[l][k - kmin] d^l. Copyable into kernels.
struct Stencil {
  int order = 5;
  int lower = -2, upper = 2;  // stencil points relative to the nearest (odd P) or lower (even P) grid point
  double shift = 0.0;         // (x - lo) / h + shift, truncated, minus kOffset: the stencil's centre point
  double shiftone = 0.0;      // distance d = centre + shiftone - (x - lo) / h
  double c[kMaxOrder][kMaxOrder] = {};
  double dc[kMaxOrder][kMaxOrder] = {};  // derivative coefficients

  Stencil() : Stencil(5) {}
  explicit Stencil(int p) : order(p), lower(-(p - 1) / 2), upper(p / 2) {
    shift = kOffset + (p % 2 ? 0.5 : 0.0);
    shiftone = p % 2 ? 0.0 : 0.5;
    // a[l][k] over k = -P .. P (offset by P): the B-spline pieces built up order by order.
    double a[kMaxOrder][2 * kMaxOrder + 1] = {};
    auto A = [&](int l, int k) -> double& { return a[l][k + p]; };
    A(0, 0) = 1.0;
    for (int j = 1; j < p; ++j) {
      for (int k = -j; k <= j; k += 2) {
        double s = 0.0;
        for (int l = 0; l < j; ++l) {
          A(l + 1, k) = (A(l, k + 1) - A(l, k - 1)) / (l + 1);
          s += std::pow(0.5, l + 1.0) * (A(l, k - 1) + std::pow(-1.0, static_cast<double>(l)) * A(l, k + 1)) / (l + 1);
        }
        A(0, k) = s;
      }
    }
    int m = 0;
    for (int k = -(p - 1); k < p; k += 2, ++m)
      for (int l = 0; l < p; ++l) c[l][m] = A(l, k);
    for (int k = 0; k < p; ++k)
      for (int l = 1; l < p; ++l) dc[l - 1][k] = l * c[l][k];
  }
  /// The weights' derivatives d w / d dist (ad differentiation).
  KOKKOS_INLINE_FUNCTION void dweights(double d, double* w) const {
    for (int k = 0; k < order; ++k) {
      double r = 0.0;
      for (int l = order - 2; l >= 0; --l) r = dc[l][k] + r * d;
      w[k] = r;
    }
  }
  /// Weights w[0 .. P-1] (stencil points lower .. upper) at distance d.
  KOKKOS_INLINE_FUNCTION void weights(double d, double* w) const {
    for (int k = 0; k < order; ++k) {
      double r = 0.0;
      for (int l = order - 1; l >= 0; --l) r = c[l][k] + r * d;
      w[k] = r;
    }
  }
};


/// Signed wave-number index of k in 0 .. n - 1 (LAMMPS' "per": n / 2 maps to -n / 2).
KOKKOS_INLINE_FUNCTION int signed_index(int k, int n) { return k - n * (2 * k / n); }

struct Spectrum {
  fft::SpectralMap map;
  int n[3];
  double unitk[3];
};

/// ad: F_i = C [q_i^2 ... ] with E = -grad phi from the derivative of the assignment weights applied to the
/// potential phi on the grid, less the self force of a charge on itself (LAMMPS' sf_coeff correction).
struct SelfForce {
  double coeff[6];   // sin(2 pi s), sin(4 pi s) amplitudes per direction
  double hinv[3];    // grid points per length
};

/// The expansion coefficients of the influence function's denominator, copied into the kernel.
struct DenomCoef {
  double b[kMaxOrder];
};

/// The denominator's expansion coefficients (LAMMPS' gf_denom).
DenomCoef denominator_coefficients(int order);
/// ad: the self-force amplitudes, over the full grid on the host, once.
SelfForce self_force_coefficients(Int3 n, int order, double g, const double* len);
/// The optimal influence function of ik (LAMMPS' compute_gf_ik) or ad (compute_gf_ad) at this rank's
/// spectral points.
void influence_function(const Spectrum& sp, int order, double g_ewald, const double* len, bool ad,
                        const Kokkos::View<double*, MemSpace>& greens);

}  // namespace stratus::md::pppm_detail
