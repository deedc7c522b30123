// PPPM's influence functions and self-force amplitudes (pppm_detail.hpp), computed once at set-up.
#include <cmath>

#include "md/pppm_detail.hpp"

namespace stratus::md::pppm_detail {

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

}  // namespace stratus::md::pppm_detail
