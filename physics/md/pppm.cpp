// PPPM (Hockney and Eastwood's particle-particle particle-mesh, in LAMMPS' formulation with ik
// differentiation): each rank assigns its atoms' charges to the grid points of its sub-domain plus ghost
// layers with the order-P weights W(x) (a P-point stencil per direction), the ghost layers are summed into
// their owners (GridHalo::scatter_add), the density is transformed (solvers/fft), multiplied by the optimal
// influence function G(k) and by -i k per direction, transformed back (three fields), the fields' ghost
// layers are filled (GridHalo::exchange), and each atom's field is interpolated with the same weights:
//   F_i = C q_i sum_grid W(x_i - x_g) E(x_g),  E = -grad phi (from i k phi(k), with the forward transform's
//   exp(-i k x); LAMMPS transforms with the opposite signs and takes -i k),
//   E_long = C [V / 2 sum_k G(k) |rho(k)|^2 / N^2 - g / sqrt(pi) sum q^2 - pi / (2 g^2 V) (sum q)^2].
// The grid, owned by the ranks in the blocks of the particle decomposition, carries ghost layers as wide
// as the stencil of an atom up to half a skin outside its sub-domain can reach.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <Kokkos_ScatterView.hpp>

#include "comm/grid_halo.hpp"
#include "comm/particle_comm.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"
#include "domain/cart_decomp.hpp"
#include "domain/local_grid.hpp"
#include "fft/distributed_fft.hpp"
#include "md/kspace.hpp"

namespace stratus::md {

namespace {

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

/// Grid geometry as the kernels see it: global index of the stencil centre of an atom, and the array
/// index of a global grid index (ghosts included).
struct GridMap {
  double lo[3], delinv[3];
  int first[3];  // global index of array index 0 (the first ghost layer) per direction
  Stencil st;
  KOKKOS_INLINE_FUNCTION void locate(double x, int d, int& centre, double& dist) const {
    const double u = (x - lo[d]) * delinv[d];
    centre = static_cast<int>(u + st.shift) - kOffset;
    dist = centre + st.shiftone - u;
  }
  /// The stencil of the atom at x: the array index of its first point c[d] and its weights w[d][0 .. P-1]
  /// (and, with dw, their derivatives along d).
  template <class X>
  KOKKOS_INLINE_FUNCTION void stencil(const X& x, int i, int* c, double (*w)[kMaxOrder],
                                      double (*dw)[kMaxOrder] = nullptr) const {
    for (int d = 0; d < 3; ++d) {
      double dist = 0.0;
      locate(x(i, d), d, c[d], dist);
      st.weights(dist, w[d]);
      if (dw) st.dweights(dist, dw[d]);
      c[d] += st.lower - first[d];
    }
  }
};

// Kernels are free functions (CUDA: no device lambdas in private members).

using DensityScatter = decltype(Kokkos::Experimental::create_scatter_view(Field4D()));

void assign_charges(const Particles& atoms, const GridMap& gm, double delvolinv, const Field4D& rho,
                    DensityScatter& sv, const Kokkos::View<int*, MemSpace>& out_of_range) {
  Kokkos::deep_copy(rho, 0.0);
  sv.reset_except(rho);
  const auto x = atoms.x;
  const auto q = atoms.q;
  const int nx = static_cast<int>(rho.extent(3)), ny = static_cast<int>(rho.extent(2)),
            nz = static_cast<int>(rho.extent(1));
  Kokkos::parallel_for(
      "pppm::assign_charges", Kokkos::RangePolicy<ExecSpace>(0, atoms.n_local), KOKKOS_LAMBDA(int i) {
        int c[3];
        double w[3][kMaxOrder];
        gm.stencil(x, i, c, w);
        if (c[0] < 0 || c[1] < 0 || c[2] < 0 || c[0] + gm.st.order > nx || c[1] + gm.st.order > ny ||
            c[2] + gm.st.order > nz) {
          out_of_range(0) = 1;
          return;
        }
        auto acc = sv.access();
        const double z0 = delvolinv * q(i);
        for (int n = 0; n < gm.st.order; ++n) {
          const double y0 = z0 * w[2][n];
          for (int m = 0; m < gm.st.order; ++m) {
            const double x0 = y0 * w[1][m];
            for (int l = 0; l < gm.st.order; ++l) acc(0, c[2] + n, c[1] + m, c[0] + l) += x0 * w[0][l];
          }
        }
      });
  Field4D dest = rho;
  Kokkos::Experimental::contribute(dest, sv);
}

void owned_to_brick(const LocalGrid& g, const Field4D& rho, const fft::RealBrick& brick) {
  const int gx = g.ng[0], gy = g.ng[1], gz = g.ng[2];
  Kokkos::parallel_for(
      "pppm::owned_to_brick",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>({0, 0, 0}, {g.n[2], g.n[1], g.n[0]}),
      KOKKOS_LAMBDA(int k, int j, int i) { brick(k, j, i) = rho(0, gz + k, gy + j, gx + i); });
}

void brick_to_owned(const LocalGrid& g, const fft::RealBrick& brick, const Field4D& e, int var) {
  const int gx = g.ng[0], gy = g.ng[1], gz = g.ng[2];
  Kokkos::parallel_for(
      "pppm::brick_to_owned",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>({0, 0, 0}, {g.n[2], g.n[1], g.n[0]}),
      KOKKOS_LAMBDA(int k, int j, int i) { e(var, gz + k, gy + j, gx + i) = brick(k, j, i); });
}

/// Signed wave-number index of k in 0 .. n - 1 (LAMMPS' "per": n / 2 maps to -n / 2).
KOKKOS_INLINE_FUNCTION int signed_index(int k, int n) { return k - n * (2 * k / n); }

struct Spectrum {
  fft::SpectralMap map;
  int n[3];
  double unitk[3];
};

/// Energy and virial-trace sums over this rank's half spectrum (each point weighted by how many points of
/// the full spectrum it stands for).
void spectral_energy(const Spectrum& sp, const Kokkos::View<double*, MemSpace>& greens,
                     const fft::SpectralPoints& rho_hat, double g_ewald, double& energy, double& virial) {
  const double s2 = 1.0 / (static_cast<double>(sp.n[0]) * sp.n[1] * sp.n[2]) /
                    (static_cast<double>(sp.n[0]) * sp.n[1] * sp.n[2]);
  const double inv2g2 = 0.5 / (g_ewald * g_ewald);
  Kokkos::parallel_reduce(
      "pppm::energy", Kokkos::RangePolicy<ExecSpace>(0, static_cast<long long>(rho_hat.extent(0))),
      KOKKOS_LAMBDA(long long m, double& e, double& w) {
        int kx = 0, ky = 0, kz = 0;
        sp.map.index(m, kx, ky, kz);
        const double weight = (kx == 0 || 2 * kx == sp.n[0]) ? 1.0 : 2.0;
        const double fx = sp.unitk[0] * signed_index(kx, sp.n[0]), fy = sp.unitk[1] * signed_index(ky, sp.n[1]),
                     fz = sp.unitk[2] * signed_index(kz, sp.n[2]);
        const fft::Complex r = rho_hat(m);
        const double eng = weight * s2 * greens(m) * (r.real() * r.real() + r.imag() * r.imag());
        e += eng;
        w += eng * (1.0 - (fx * fx + fy * fy + fz * fz) * inv2g2);
      },
      energy, virial);
}

/// work = rho_hat G / N (the potential's spectrum).
void potential_spectrum(const Kokkos::View<double*, MemSpace>& greens, const fft::SpectralPoints& rho_hat,
                        double scaleinv, const fft::SpectralPoints& work) {
  Kokkos::parallel_for(
      "pppm::potential", Kokkos::RangePolicy<ExecSpace>(0, static_cast<long long>(work.extent(0))),
      KOKKOS_LAMBDA(long long m) { work(m) = rho_hat(m) * (scaleinv * greens(m)); });
}

/// out = i k_d work for direction d, the spectrum of d phi / dx_d (zero at the Nyquist index, where the
/// derivative of a real field has no odd part); the interpolation takes E = -grad phi.
void gradient_spectrum(const Spectrum& sp, int d, const fft::SpectralPoints& work, const fft::SpectralPoints& out) {
  Kokkos::parallel_for(
      "pppm::gradient", Kokkos::RangePolicy<ExecSpace>(0, static_cast<long long>(work.extent(0))),
      KOKKOS_LAMBDA(long long m) {
        int k[3];
        sp.map.index(m, k[0], k[1], k[2]);
        const double fk = 2 * k[d] == sp.n[d] ? 0.0 : sp.unitk[d] * signed_index(k[d], sp.n[d]);
        const fft::Complex w = work(m);
        out(m) = fft::Complex(-fk * w.imag(), fk * w.real());
      });
}

void interpolate_forces(const Particles& atoms, const GridMap& gm, const Field4D& e, double qqrd2e,
                        const ParticleVec& f) {
  const auto x = atoms.x;
  const auto q = atoms.q;
  Kokkos::parallel_for(
      "pppm::interpolate_forces", Kokkos::RangePolicy<ExecSpace>(0, atoms.n_local), KOKKOS_LAMBDA(int i) {
        int c[3];
        double w[3][kMaxOrder];
        gm.stencil(x, i, c, w);
        double ex = 0.0, ey = 0.0, ez = 0.0;
        for (int n = 0; n < gm.st.order; ++n) {
          const double z0 = w[2][n];
          for (int m = 0; m < gm.st.order; ++m) {
            const double y0 = z0 * w[1][m];
            for (int l = 0; l < gm.st.order; ++l) {
              const double x0 = y0 * w[0][l];
              const int kk = c[2] + n, jj = c[1] + m, ii = c[0] + l;
              ex -= x0 * e(0, kk, jj, ii);
              ey -= x0 * e(1, kk, jj, ii);
              ez -= x0 * e(2, kk, jj, ii);
            }
          }
        }
        const double s = qqrd2e * q(i);
        f(i, 0) += s * ex;
        f(i, 1) += s * ey;
        f(i, 2) += s * ez;
      });
}

/// ad: F_i = C [q_i^2 ... ] with E = -grad phi from the derivative of the assignment weights applied to the
/// potential phi on the grid, less the self force of a charge on itself (LAMMPS' sf_coeff correction).
struct SelfForce {
  double coeff[6];   // sin(2 pi s), sin(4 pi s) amplitudes per direction
  double hinv[3];    // grid points per length
};

void interpolate_forces_ad(const Particles& atoms, const GridMap& gm, const SelfForce& sf, const Field4D& u,
                           double qqrd2e, const ParticleVec& f) {
  const auto x = atoms.x;
  const auto q = atoms.q;
  Kokkos::parallel_for(
      "pppm::interpolate_forces_ad", Kokkos::RangePolicy<ExecSpace>(0, atoms.n_local), KOKKOS_LAMBDA(int i) {
        int c[3];
        double w[3][kMaxOrder], dw[3][kMaxOrder];
        gm.stencil(x, i, c, w, dw);
        double ex = 0.0, ey = 0.0, ez = 0.0;
        for (int n = 0; n < gm.st.order; ++n)
          for (int m = 0; m < gm.st.order; ++m)
            for (int l = 0; l < gm.st.order; ++l) {
              const double v = u(0, c[2] + n, c[1] + m, c[0] + l);
              ex += dw[0][l] * w[1][m] * w[2][n] * v;
              ey += w[0][l] * dw[1][m] * w[2][n] * v;
              ez += w[0][l] * w[1][m] * dw[2][n] * v;
            }
        const double e[3] = {ex * sf.hinv[0], ey * sf.hinv[1], ez * sf.hinv[2]};
        const double qi = q(i);
        for (int d = 0; d < 3; ++d) {
          const double s1 = (x(i, d) - gm.lo[d]) * sf.hinv[d];
          const double self = 2.0 * qi * qi *
                              (sf.coeff[2 * d] * ::sin(2.0 * kPi * s1) + sf.coeff[2 * d + 1] * ::sin(4.0 * kPi * s1));
          f(i, d) += qqrd2e * (e[d] * qi - self);
        }
      });
}

/// The expansion coefficients of the influence function's denominator, copied into the kernel.
struct DenomCoef {
  double b[kMaxOrder];
};

/// The denominator's expansion coefficients (LAMMPS' gf_denom): [sum_l b_l sin^(2l)(k h / 2)]^2 per
/// direction is sum over the aliases of U^2.
DenomCoef denominator_coefficients(int order) {
  DenomCoef c{};
  double* b = c.b;
  b[0] = 1.0;
  for (int m = 1; m < order; ++m) {
    int l = m;
    for (; l > 0; --l) b[l] = 4.0 * (b[l] * (l - m) * (l - m - 0.5) - b[l - 1] * (l - m - 1) * (l - m - 1));
    b[0] = 4.0 * (b[0] * (l - m) * (l - m - 0.5));
  }
  double fact = 1.0;
  for (int k = 1; k < 2 * order; ++k) fact *= k;
  for (int l = 0; l < order; ++l) b[l] /= fact;
  return c;
}

/// ad: the amplitudes of the self force (LAMMPS' compute_sf_precoeff and the sums of compute_gf_ad), over
/// the full grid on the host, once.
SelfForce self_force_coefficients(Int3 n, int order, double g, const double* len) {
  const DenomCoef dc = denominator_coefficients(order);
  auto powsinxx = [](double v, int p) { return v == 0.0 ? 1.0 : std::pow(std::sin(v) / v, p); };
  auto denom = [&](double s) {
    double r = 0.0;
    for (int l = order - 1; l >= 0; --l) r = dc.b[l] + r * s;
    return r;
  };
  double sum[6] = {0, 0, 0, 0, 0, 0};
  double unit[3];
  for (int d = 0; d < 3; ++d) unit[d] = 2.0 * kPi / len[d];
  for (int m = 0; m < n[2]; ++m) {
    const int mper = signed_index(m, n[2]);
    for (int l = 0; l < n[1]; ++l) {
      const int lper = signed_index(l, n[1]);
      for (int k = 0; k < n[0]; ++k) {
        const int kper = signed_index(k, n[0]);
        const int per[3] = {kper, lper, mper};
        double w[3][3][5];  // direction, shift 0/1/2, alias i
        for (int d = 0; d < 3; ++d)
          for (int i = 0; i < 5; ++i)
            for (int sh = 0; sh < 3; ++sh)
              w[d][sh][i] = powsinxx(0.5 * 2.0 * kPi * (per[d] + n[d] * (i - 2 + sh)) / n[d], order);
        double pre[6] = {0, 0, 0, 0, 0, 0};
        for (int ix = 0; ix < 5; ++ix)
          for (int iy = 0; iy < 5; ++iy)
            for (int iz = 0; iz < 5; ++iz) {
              const double u0 = w[0][0][ix] * w[1][0][iy] * w[2][0][iz];
              pre[0] += u0 * w[0][1][ix] * w[1][0][iy] * w[2][0][iz];
              pre[1] += u0 * w[0][2][ix] * w[1][0][iy] * w[2][0][iz];
              pre[2] += u0 * w[0][0][ix] * w[1][1][iy] * w[2][0][iz];
              pre[3] += u0 * w[0][0][ix] * w[1][2][iy] * w[2][0][iz];
              pre[4] += u0 * w[0][0][ix] * w[1][0][iy] * w[2][1][iz];
              pre[5] += u0 * w[0][0][ix] * w[1][0][iy] * w[2][2][iz];
            }
        double gk = 0.0;
        const double q[3] = {unit[0] * kper, unit[1] * lper, unit[2] * mper};
        const double sqk = q[0] * q[0] + q[1] * q[1] + q[2] * q[2];
        if (sqk != 0.0) {
          double sxyz = 1.0, wxyz = 1.0, den = 1.0;
          for (int d = 0; d < 3; ++d) {
            const double arg = 0.5 * q[d] * len[d] / n[d];
            sxyz *= std::exp(-0.25 * (q[d] / g) * (q[d] / g));
            wxyz *= powsinxx(arg, 2 * order);
            den *= denom(std::sin(arg) * std::sin(arg));
          }
          gk = 4.0 * kPi / sqk * sxyz * wxyz / (den * den);
        }
        for (int j = 0; j < 6; ++j) sum[j] += pre[j] * gk;
      }
    }
  }
  SelfForce sf{};
  const double vol = len[0] * len[1] * len[2];
  for (int d = 0; d < 3; ++d) {
    const double pref = kPi / vol * n[d] / len[d];
    sf.coeff[2 * d] = sum[2 * d] * pref;
    sf.coeff[2 * d + 1] = sum[2 * d + 1] * pref * 2.0;
    sf.hinv[d] = n[d] / len[d];
  }
  return sf;
}

/// The optimal influence function for ik differentiation (Hockney and Eastwood; LAMMPS' compute_gf_ik),
/// with the aliasing sums over the images that contribute more than 1e-7.
void influence_function(const Spectrum& sp, int order, double g_ewald, const double* len, bool ad,
                        const Kokkos::View<double*, MemSpace>& greens) {
  const DenomCoef coef = denominator_coefficients(order);
  int nb[3];
  for (int d = 0; d < 3; ++d)
    nb[d] = static_cast<int>((g_ewald * len[d] / (kPi * sp.n[d])) * std::pow(-std::log(1.0e-7), 0.25));
  const int nbx = nb[0], nby = nb[1], nbz = nb[2], twoorder = 2 * order;
  const double g = g_ewald;
  const double hx = len[0] / sp.n[0], hy = len[1] / sp.n[1], hz = len[2] / sp.n[2];
  Kokkos::parallel_for(
      "pppm::influence_function", Kokkos::RangePolicy<ExecSpace>(0, static_cast<long long>(greens.extent(0))),
      KOKKOS_LAMBDA(long long m) {
        int k[3];
        sp.map.index(m, k[0], k[1], k[2]);
        const int kper = signed_index(k[0], sp.n[0]), lper = signed_index(k[1], sp.n[1]),
                  mper = signed_index(k[2], sp.n[2]);
        const double kxv = sp.unitk[0] * kper, kyv = sp.unitk[1] * lper, kzv = sp.unitk[2] * mper;
        const double sqk = kxv * kxv + kyv * kyv + kzv * kzv;
        if (sqk == 0.0) {
          greens(m) = 0.0;
          return;
        }
        auto sq = [](double v) { return v * v; };
        auto powsinxx = [](double v, int p) {  // (sin v / v)^p
          if (v == 0.0) return 1.0;
          const double s = ::sin(v) / v;
          double r = 1.0;
          for (int i = 0; i < p; ++i) r *= s;
          return r;
        };
        auto denom_factor = [&](double s) {
          double r = 0.0;
          for (int l = order - 1; l >= 0; --l) r = coef.b[l] + r * s;
          return r;
        };
        const double snx = sq(::sin(0.5 * kxv * hx)), sny = sq(::sin(0.5 * kyv * hy)), snz = sq(::sin(0.5 * kzv * hz));
        const double den = sq(denom_factor(snx) * denom_factor(sny) * denom_factor(snz));
        if (ad) {  // LAMMPS' compute_gf_ad: no alias sum in the numerator
          const double sxyz = ::exp(-0.25 * sq(kxv / g)) * ::exp(-0.25 * sq(kyv / g)) * ::exp(-0.25 * sq(kzv / g));
          const double wxyz = powsinxx(0.5 * kxv * hx, twoorder) * powsinxx(0.5 * kyv * hy, twoorder) *
                              powsinxx(0.5 * kzv * hz, twoorder);
          greens(m) = 4.0 * kPi / sqk * sxyz * wxyz / den;
          return;
        }
        double sum1 = 0.0;
        for (int ix = -nbx; ix <= nbx; ++ix) {
          const double qx = sp.unitk[0] * (kper + sp.n[0] * ix);
          const double sx = ::exp(-0.25 * sq(qx / g));
          const double wx = powsinxx(0.5 * qx * hx, twoorder);
          for (int iy = -nby; iy <= nby; ++iy) {
            const double qy = sp.unitk[1] * (lper + sp.n[1] * iy);
            const double sy = ::exp(-0.25 * sq(qy / g));
            const double wy = powsinxx(0.5 * qy * hy, twoorder);
            for (int iz = -nbz; iz <= nbz; ++iz) {
              const double qz = sp.unitk[2] * (mper + sp.n[2] * iz);
              const double sz = ::exp(-0.25 * sq(qz / g));
              const double wz = powsinxx(0.5 * qz * hz, twoorder);
              const double dot1 = kxv * qx + kyv * qy + kzv * qz;
              const double dot2 = qx * qx + qy * qy + qz * qz;
              sum1 += (dot1 / dot2) * sx * sy * sz * wx * wy * wz;
            }
          }
        }
        greens(m) = 4.0 * kPi / sqk * sum1 / den;
      });
}

class PPPM final : public KSpace {
 public:
  PPPM(const KSpaceSystem& s, const KSpaceChoice& c, const ParticleComm& pc, HaloTransport transport)
      : sys_(s),
        comm_(pc.comm()),
        rank_(pc.rank()),
        decomp_(pc.comm(), c.grid, pc.dims(), {true, true, true}, CartDecomp::Uneven{}) {
    choice_ = c;
    const Int3 n = c.grid;
    double len[3];
    for (int d = 0; d < 3; ++d) len[d] = s.hi[static_cast<std::size_t>(d)] - s.lo[static_cast<std::size_t>(d)];
    // Ghost layers: the stencil of an atom up to half a skin outside this rank's sub-domain (LAMMPS'
    // nlo_out / nhi_out), the widest over directions, sides and ranks.
    const Stencil st(c.order);
    const Real3 sub_lo = pc.sub_lo(), sub_hi = pc.sub_hi();
    int width = 1;
    for (int d = 0; d < 3; ++d) {
      const double delinv = n[d] / len[d], half = 0.5 * s.skin;
      const int nlo = static_cast<int>((sub_lo[d] - half - s.lo[static_cast<std::size_t>(d)]) * delinv + st.shift) - kOffset;
      const int nhi = static_cast<int>((sub_hi[d] + half - s.lo[static_cast<std::size_t>(d)]) * delinv + st.shift) - kOffset;
      const int in_lo = decomp_.offset()[d], in_hi = in_lo + decomp_.local_cells()[d] - 1;
      width = std::max({width, in_lo - (nlo + st.lower), (nhi + st.upper) - in_hi});
    }
    int fewest = std::numeric_limits<int>::max();
    for (int d = 0; d < 3; ++d) fewest = std::min(fewest, decomp_.local_cells()[d]);
    int in[2] = {width, -fewest}, out[2] = {0, 0};
    STRATUS_MPI_CHECK(MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, comm_));
    width = out[0];
    fewest = -out[1];
    STRATUS_INPUT_REQUIRE(fewest >= width,
                          "md.kspace pppm: the grid " << n[0] << " x " << n[1] << " x " << n[2] << " over "
                                                      << pc.dims()[0] << " x " << pc.dims()[1] << " x " << pc.dims()[2]
                                                      << " ranks leaves " << fewest << " points on some rank, fewer "
                                                      << "than the " << width << " ghost layers the stencil of order "
                                                      << c.order << " needs; use fewer ranks, a finer md.kspace_grid "
                                                      << "or a lower md.kspace_order");
    grid_.n = decomp_.local_cells();
    grid_.offset = decomp_.offset();
    grid_.global_n = n;
    for (int d = 0; d < 3; ++d) {
      grid_.ng[d] = width;
      grid_.lo[d] = s.lo[static_cast<std::size_t>(d)];
      grid_.dx[d] = len[d] / n[d];
    }
    rho_ = grid_.allocate("pppm::density", 1);
    scatter_ = Kokkos::Experimental::create_scatter_view(rho_);
    field_ = grid_.allocate("pppm::field", 3);
    halo_ = std::make_unique<GridHalo>(decomp_, grid_, 3, width, true, transport);
    fft::Box3 box;
    for (int d = 0; d < 3; ++d) {
      box.lo[d] = grid_.offset[d];
      box.hi[d] = grid_.offset[d] + grid_.n[d];
    }
    fft_ = std::make_unique<fft::DistributedFFT>(comm_, n, box, transport);
    brick_ = fft::RealBrick("pppm::brick", grid_.n[2], grid_.n[1], grid_.n[0]);
    const long long ns = fft_->spectral_size();
    rho_hat_ = fft::SpectralPoints("pppm::rho_hat", ns);
    work_ = fft::SpectralPoints("pppm::work", ns);
    grad_ = fft::SpectralPoints("pppm::gradient", ns);
    greens_ = Kokkos::View<double*, MemSpace>("pppm::greens", ns);
    out_of_range_ = Kokkos::View<int*, MemSpace>("pppm::out_of_range", 1);
    sp_.map = fft_->spectral_map();
    for (int d = 0; d < 3; ++d) {
      sp_.n[d] = n[d];
      sp_.unitk[d] = 2.0 * kPi / len[d];
      gm_.lo[d] = s.lo[static_cast<std::size_t>(d)];
      gm_.delinv[d] = n[d] / len[d];
      gm_.first[d] = grid_.offset[d] - width;
    }
    gm_.st = st;
    delvolinv_ = gm_.delinv[0] * gm_.delinv[1] * gm_.delinv[2];
    influence_function(sp_, c.order, c.g_ewald, len, c.ad, greens_);
    if (c.ad) {
      self_force_ = self_force_coefficients(n, c.order, c.g_ewald, len);
      potential_ = grid_.allocate("pppm::potential", 1);
    }
  }

  std::string describe() const override {
    char b[320];
    std::snprintf(b, sizeof b,
                  "pppm: g_ewald %.10g, grid %d x %d x %d, order %d, %s differentiation, %d ghost layers, "
                  "estimated RMS force error %.3g (%.3g relative); %s",
                  choice_.g_ewald, choice_.grid[0], choice_.grid[1], choice_.grid[2], choice_.order,
                  choice_.ad ? "ad" : "ik", grid_.ng[0],
                  choice_.estimated(), choice_.estimated() / two_charge_force(sys_.qqrd2e), fft_->describe().c_str());
    return b;
  }

  KSpaceResult compute(const Particles& atoms, const ParticleVec& f, bool energy) override {
    assign_charges(atoms, gm_, delvolinv_, rho_, scatter_, out_of_range_);
    halo_->scatter_add(rho_);
    owned_to_brick(grid_, rho_, brick_);
    fft_->forward(brick_, rho_hat_);
    KSpaceResult r;
    if (energy) {
      // Checked on reporting steps (a host read): an atom beyond the ghost layers would break the sums.
      auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), out_of_range_);
      STRATUS_REQUIRE(h(0) == 0, "pppm: an atom's stencil reaches beyond the ghost layers of its rank (an atom "
                                 "moved more than half the skin without a neighbor-list rebuild)");
      double e = 0.0, w = 0.0;
      spectral_energy(sp_, greens_, rho_hat_, choice_.g_ewald, e, w);
      const double vol = sys_.volume(), c = sys_.qqrd2e, g = choice_.g_ewald;
      r.energy = 0.5 * vol * e * c;
      r.virial = 0.5 * vol * w * c;
      if (rank_ == 0)
        r.energy -= c * (g * sys_.qsqsum / std::sqrt(kPi) + 0.5 * kPi * sys_.qsum * sys_.qsum / (g * g * vol));
    }
    const double scaleinv = 1.0 / (static_cast<double>(sp_.n[0]) * sp_.n[1] * sp_.n[2]);
    potential_spectrum(greens_, rho_hat_, scaleinv, work_);
    if (choice_.ad) {  // one backward transform: the potential, differentiated through the weights
      fft_->backward(work_, brick_);
      brick_to_owned(grid_, brick_, potential_, 0);
      halo_->exchange(potential_);
      interpolate_forces_ad(atoms, gm_, self_force_, potential_, sys_.qqrd2e, f);
      return r;
    }
    for (int d = 0; d < 3; ++d) {
      gradient_spectrum(sp_, d, work_, grad_);
      fft_->backward(grad_, brick_);
      brick_to_owned(grid_, brick_, field_, d);
    }
    halo_->exchange(field_);
    interpolate_forces(atoms, gm_, field_, sys_.qqrd2e, f);
    return r;
  }

 private:
  KSpaceSystem sys_;
  MPI_Comm comm_;
  int rank_ = 0;
  CartDecomp decomp_;
  LocalGrid grid_;
  std::unique_ptr<GridHalo> halo_;
  std::unique_ptr<fft::DistributedFFT> fft_;
  Field4D rho_, field_;
  Field4D potential_;  // ad
  SelfForce self_force_{};
  DensityScatter scatter_;  // per-thread copies on CPUs, atomics on GPUs
  fft::RealBrick brick_;
  fft::SpectralPoints rho_hat_, work_, grad_;
  Kokkos::View<double*, MemSpace> greens_;
  Kokkos::View<int*, MemSpace> out_of_range_;
  Spectrum sp_{};
  GridMap gm_{};
  double delvolinv_ = 0.0;
};

}  // namespace

std::unique_ptr<KSpace> make_pppm(const KSpaceSystem& s, const KSpaceChoice& choice, const ParticleComm& pc,
                                  HaloTransport transport) {
  return std::make_unique<PPPM>(s, choice, pc, transport);
}

}  // namespace stratus::md
