// Euler test cases: hydrostatic backgrounds, one perturbation function per case, and the case table.
#include "climate/euler_cases.hpp"

#include <cmath>
#include <complex>

#include "climate/euler.hpp"

namespace stratus::climate {

using namespace euler_const;

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kTheta0 = 300.0;  // surface potential temperature of every background [K]

// amp cos^2 of the scaled distance inside an ellipsoid (ellipse in 2D), 0 outside (miniWeather's bubbles).
double ellipse_cosine(double dx, double dy, double dz, double amp, double rx, double ry, double rz, bool three_d) {
  const double s = (dx / rx) * (dx / rx) + (three_d ? (dy / ry) * (dy / ry) : 0.0) + (dz / rz) * (dz / rz);
  const double dist = std::sqrt(s) * kPi / 2.0;
  return dist <= kPi / 2.0 ? amp * std::cos(dist) * std::cos(dist) : 0.0;
}

// Offsets from the centre of the domain in x and y.
double from_xc(const CaseDomain& d, double x) { return x - (d.lo[0] + d.len[0] / 2.0); }
double from_yc(const CaseDomain& d, double y) { return y - (d.lo[1] + d.len[1] / 2.0); }

// ------------------------------------------------------------------ the cases
// Rising warm bubble (+3 K), neutral background.
void thermal(const CaseDomain& d, double x, double y, double z, double, double, Perturbation& p) {
  p.theta = ellipse_cosine(from_xc(d, x), from_yc(d, y), z - 2000.0, 3.0, 2000.0, 2000.0, 2000.0, d.three_d);
}

// A warm (+20 K) and a cold (-20 K) bubble that collide.
void collision(const CaseDomain& d, double x, double y, double z, double, double, Perturbation& p) {
  const double dx = from_xc(d, x), dy = from_yc(d, y);
  p.theta = ellipse_cosine(dx, dy, z - 2000.0, 20.0, 2000.0, 2000.0, 2000.0, d.three_d) +
            ellipse_cosine(dx, dy, z - 8000.0, -20.0, 2000.0, 2000.0, 2000.0, d.three_d);
}

// Constant-N (0.02/s) background with a 15 m/s wind.
void gravity_waves(const CaseDomain&, double, double, double, double, double, Perturbation& p) { p.u = 15.0; }

// miniWeather's cold bubble (-20 K) falling onto the ground.
void density_current(const CaseDomain& d, double x, double y, double z, double, double, Perturbation& p) {
  p.theta = ellipse_cosine(from_xc(d, x), from_yc(d, y), z - 5000.0, -20.0, 4000.0, 4000.0, 2000.0, d.three_d);
}

// A jet (50 m/s, 298 K) injected through the left boundary (Euler::fill_ghosts); at rest inside.
void injection(const CaseDomain&, double, double, double, double, double, Perturbation&) {}

// Straka et al. (1993) density current: temperature perturbation -15 [1 + cos(pi L)] / 2 K, as potential
// temperature (divided by the Exner function of the neutral background); nu = kappa = 75 m^2/s in its deck.
void straka(const CaseDomain& d, double x, double y, double z, double, double, Perturbation& p) {
  const double dx = from_xc(d, x), dy = from_yc(d, y);
  const double l2 = (dx / 4000.0) * (dx / 4000.0) + (d.three_d ? (dy / 4000.0) * (dy / 4000.0) : 0.0) +
                    ((z - 3000.0) / 2000.0) * ((z - 3000.0) / 2000.0);
  const double l = std::sqrt(l2);
  if (l <= 1.0) {
    const double exner = 1.0 - kGrav * z / (kCp * kTheta0);
    p.theta = -15.0 * (1.0 + std::cos(kPi * l)) / 2.0 / exner;
  }
}

// Skamarock & Klemp (1994) inertia-gravity wave: N = 0.01/s, U = 20 m/s, a 0.01 K bump at 100 km of 300.
void skamarock_klemp(const CaseDomain& d, double x, double, double z, double, double, Perturbation& p) {
  const double a = 5000.0, xs = d.lo[0] + d.len[0] / 3.0;
  p.u = 20.0;
  p.theta = 0.01 * std::sin(kPi * z / d.len[2]) / (1.0 + (x - xs) * (x - xs) / (a * a));
}

// Bryan & Fritsch (2002) dry thermal: a +2 K cos^2 bubble of radius 2 km centred 2 km above the ground in
// a neutral atmosphere, at rest, with the pressure unperturbed (the density takes up the warming).
void bryan_fritsch(const CaseDomain& d, double x, double y, double z, double hr, double ht, Perturbation& p) {
  p.theta = ellipse_cosine(from_xc(d, x), from_yc(d, y), z - 2000.0, 2.0, 2000.0, 2000.0, 2000.0, d.three_d);
  p.rho = hr * ht / (ht + p.theta) - hr;  // rho theta, and so p = C0 (rho theta)^gamma, unchanged
}
// One acoustic-gravity wave of the isothermal atmosphere (T = 300 K) between rigid lids at z = 0 and the
// top, wavenumbers k = 2 pi / (x length) and m = pi / height: w = 0.01 m/s exp(z / 2H) sin(m z) cos(k x),
// travelling along +x at the frequency omega of its branch (gravity or acoustic), a root of
//   omega^4 - omega^2 (c^2 (k^2 + m^2) + c^2 / 4H^2) + c^2 N^2 k^2 = 0,
// c^2 = gamma R T, H = R T / g, N^2 = g^2 / (cp T) (e.g. Gill 1982, section 6.14). u, p' and rho' are the
// branch's polarisation, the pressure given as theta'. The linearised equations in the scaled variables
// w = exp(z / 2H) w^, u = exp(z / 2H) u^, p' = exp(-z / 2H) p^, rho' = exp(-z / 2H) r^ have constant
// coefficients; for w^ = exp(i (k x + m z - omega t)):
//   p^ = rho_s omega (g - c^2 (i m + 1/2H)) / (i (c^2 k^2 - omega^2)), u^ = k p^ / (omega rho_s),
//   r^ = rho_s (i k u^ + (i m - 1/2H) w^) / (i omega),
// and sin(m z) is the difference of the waves of m and -m (the same omega). The exact solution of the
// linearised equations is the initial state shifted by omega t / k along x (test_euler_waves.cpp).
void linear_wave(const CaseDomain& d, double x, double z, double hr, double ht, bool acoustic, Perturbation& p) {
  using C = std::complex<double>;
  const C i(0.0, 1.0);
  const double t0 = kTheta0, h = kRd * t0 / kGrav, c2 = kGamma * kRd * t0, rs = kP0 / (kRd * t0);
  const double n2 = kGrav * kGrav / (kCp * t0), k = 2.0 * kPi / d.len[0], m = kPi / d.len[2];
  const double b = c2 * (k * k + m * m) + c2 / (4.0 * h * h), disc = std::sqrt(b * b - 4.0 * c2 * n2 * k * k);
  const double omega = std::sqrt(acoustic ? 0.5 * (b + disc) : 2.0 * c2 * n2 * k * k / (b + disc));
  C ph = 0.0, uh = 0.0, rh = 0.0;
  for (const double mm : {m, -m}) {
    const C coef = (mm > 0.0 ? 1.0 : -1.0) * std::exp(i * mm * z) / (2.0 * i);  // sin(m z) = sum over +-m
    const C pw = rs * omega * (kGrav - c2 * (i * mm + 0.5 / h)) / (i * (c2 * k * k - omega * omega));
    const C uw = k * pw / (omega * rs);
    const C rw = rs * (i * k * uw + (i * mm - 0.5 / h)) / (i * omega);
    ph += coef * pw;
    uh += coef * uw;
    rh += coef * rw;
  }
  const double amp = 0.01, grow = std::exp(z / (2.0 * h)), along = k * (x - d.lo[0]);
  const C e = amp * std::exp(i * along);
  p.w = grow * amp * std::sin(m * z) * std::cos(along);
  p.u = grow * (uh * e).real();
  p.rho = (rh * e).real() / grow;
  const double dp = (ph * e).real() / grow;
  // theta' from the pressure, exactly: p = C0 (rho theta)^gamma.
  p.theta = std::pow((kC0 * std::pow(hr * ht, kGamma) + dp) / kC0, 1.0 / kGamma) / (hr + p.rho) - ht;
}

void linear_gravity(const CaseDomain& d, double x, double, double z, double hr, double ht, Perturbation& p) {
  linear_wave(d, x, z, hr, ht, false, p);
}
void linear_acoustic(const CaseDomain& d, double x, double, double z, double hr, double ht, Perturbation& p) {
  linear_wave(d, x, z, hr, ht, true, p);
}
}  // namespace

// ------------------------------------------------------------------ the table
const std::vector<EulerCaseDef>& euler_cases() {
  static const std::vector<EulerCaseDef> cases = {
      // name              help                   background             N [1/s] y_uniform inflow sampler
      {"thermal", "rising bubble", Background::neutral, 0.0, false, false, thermal},
      {"collision", "", Background::neutral, 0.0, false, false, collision},
      {"gravity_waves", "", Background::constant_n, 0.02, true, false, gravity_waves},
      {"density_current", "miniWeather's", Background::neutral, 0.0, false, false, density_current},
      {"injection", "open", Background::neutral, 0.0, true, true, injection},
      {"straka", "Straka et al. 1993", Background::neutral, 0.0, false, false, straka},
      {"skamarock_klemp", "inertia-gravity wave", Background::constant_n, 0.01, true, false, skamarock_klemp},
      {"bryan_fritsch", "dry bubble, Bryan & Fritsch 2002", Background::neutral, 0.0, false, false, bryan_fritsch},
      {"linear_gravity", "one linear gravity wave of an isothermal atmosphere, exact frequency", Background::isothermal,
       0.0, true, false, linear_gravity},
      {"linear_acoustic", "one linear acoustic wave of an isothermal atmosphere, exact frequency",
       Background::isothermal, 0.0, true, false, linear_acoustic},
  };
  return cases;
}

std::string euler_cases_help() {
  std::string h = "test case: ";
  bool first = true;
  for (const auto& c : euler_cases()) {
    h += (first ? "" : ", ") + std::string(c.name) + (*c.summary ? " (" + std::string(c.summary) + ")" : "");
    first = false;
  }
  return h;
}

void euler_background(const EulerCaseDef& c, double z, double& hr, double& ht) {
  double pr = 0.0;
  switch (c.background) {
    case Background::constant_n: {
      const double bv = c.brunt_vaisala;
      ht = kTheta0 * std::exp(bv * bv / kGrav * z);
      const double exner = 1.0 - kGrav * kGrav / (kCp * bv * bv) * (ht - kTheta0) / (ht * kTheta0);
      pr = kP0 * std::pow(exner, kCp / kRd);
      break;
    }
    case Background::neutral: {
      ht = kTheta0;
      const double exner = 1.0 - kGrav * z / (kCp * kTheta0);
      pr = kP0 * std::pow(exner, kCp / kRd);
      break;
    }
    case Background::isothermal:  // T = kTheta0, p = p0 exp(-z / H), theta = T (p0 / p)^(R / cp)
      ht = kTheta0 * std::exp(kGrav * z / (kCp * kTheta0));
      pr = kP0 * std::exp(-kGrav * z / (kRd * kTheta0));
      break;
  }
  hr = std::pow(pr / kC0, 1.0 / kGamma) / ht;
}

}  // namespace stratus::climate
