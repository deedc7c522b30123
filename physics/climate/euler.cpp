// Compressible Euler: deck options, test cases, hydrostatic background, flux kernels, the split and
// unsplit time steps, diagnostics and output.
#include "climate/euler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "climate/fv_stencils.hpp"
#include "core/error.hpp"
#include "domain/field_check.hpp"

namespace stratus::climate {

using namespace euler_const;

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kTheta0 = 300.0;  // surface potential temperature of every background [K]

const char* const kVarNames[] = {"rho'", "rho_u", "rho_v", "rho_w", "rho_theta'"};

// ------------------------------------------------------------------ test cases (host, set-up only)
// Hydrostatic background at height z: density hr [kg/m^3] and potential temperature ht [K].
void hydro_const_theta(double z, double& hr, double& ht) {
  ht = kTheta0;
  const double exner = 1.0 - kGrav * z / (kCp * kTheta0);
  const double p = kP0 * std::pow(exner, kCp / kRd);
  const double rt = std::pow(p / kC0, 1.0 / kGamma);
  hr = rt / ht;
}
void hydro_const_bvfreq(double z, double bv, double& hr, double& ht) {
  ht = kTheta0 * std::exp(bv * bv / kGrav * z);
  const double exner = 1.0 - kGrav * kGrav / (kCp * bv * bv) * (ht - kTheta0) / (ht * kTheta0);
  const double p = kP0 * std::pow(exner, kCp / kRd);
  const double rt = std::pow(p / kC0, 1.0 / kGamma);
  hr = rt / ht;
}
void background(EulerCase c, double z, double& hr, double& ht) {
  if (c == EulerCase::gravity_waves)
    hydro_const_bvfreq(z, 0.02, hr, ht);
  else if (c == EulerCase::skamarock_klemp)
    hydro_const_bvfreq(z, 0.01, hr, ht);
  else
    hydro_const_theta(z, hr, ht);
}

// amp cos^2 of the scaled distance inside an ellipsoid (ellipse in 2D), 0 outside (miniWeather's bubbles).
double ellipse_cosine(double dx, double dy, double dz, double amp, double rx, double ry, double rz, bool three_d) {
  const double s = (dx / rx) * (dx / rx) + (three_d ? (dy / ry) * (dy / ry) : 0.0) + (dz / rz) * (dz / rz);
  const double dist = std::sqrt(s) * kPi / 2.0;
  return dist <= kPi / 2.0 ? amp * std::cos(dist) * std::cos(dist) : 0.0;
}

struct Domain {
  Real3 lo, len;
  bool three_d;
};

// The initial perturbation at (x, y, z) (z = height above the ground): density r, velocity (u, v, w),
// potential temperature t, with the background hr, ht.
void sample(EulerCase c, const Domain& d, double x, double y, double z, double& r, double& u, double& v, double& w,
            double& t, double& hr, double& ht) {
  r = u = v = w = t = 0.0;
  background(c, z, hr, ht);
  const double xc = d.lo[0] + d.len[0] / 2.0, yc = d.lo[1] + d.len[1] / 2.0;
  const double dx = x - xc, dy = y - yc;
  switch (c) {
    case EulerCase::thermal:
      t = ellipse_cosine(dx, dy, z - 2000.0, 3.0, 2000.0, 2000.0, 2000.0, d.three_d);
      break;
    case EulerCase::collision:
      t = ellipse_cosine(dx, dy, z - 2000.0, 20.0, 2000.0, 2000.0, 2000.0, d.three_d) +
          ellipse_cosine(dx, dy, z - 8000.0, -20.0, 2000.0, 2000.0, 2000.0, d.three_d);
      break;
    case EulerCase::gravity_waves:
      u = 15.0;
      break;
    case EulerCase::density_current:
      t = ellipse_cosine(dx, dy, z - 5000.0, -20.0, 4000.0, 4000.0, 2000.0, d.three_d);
      break;
    case EulerCase::injection:
      break;
    case EulerCase::straka: {
      // Temperature perturbation -15 [1 + cos(pi L)] / 2 K, as potential temperature: divided by the Exner
      // function of the neutral background.
      const double l2 = (dx / 4000.0) * (dx / 4000.0) + (d.three_d ? (dy / 4000.0) * (dy / 4000.0) : 0.0) +
                        ((z - 3000.0) / 2000.0) * ((z - 3000.0) / 2000.0);
      const double l = std::sqrt(l2);
      if (l <= 1.0) {
        const double exner = 1.0 - kGrav * z / (kCp * kTheta0);
        t = -15.0 * (1.0 + std::cos(kPi * l)) / 2.0 / exner;
      }
      break;
    }
    case EulerCase::skamarock_klemp: {
      const double a = 5000.0, xs = d.lo[0] + d.len[0] / 3.0;  // 100 km in the 300 km channel
      u = 20.0;
      t = 0.01 * std::sin(kPi * z / d.len[2]) / (1.0 + (x - xs) * (x - xs) / (a * a));
      break;
    }
  }
}

// 3-point Gauss-Legendre quadrature on [0, 1].
constexpr double kQp[3] = {0.112701665379258311482073460022, 0.5, 0.887298334620741688517926539980};
constexpr double kQw[3] = {0.277777777777777777777777777779, 0.444444444444444444444444444444,
                           0.277777777777777777777777777779};

// ------------------------------------------------------------------ flux kernels (device)
// Flux through the face between cells (i - di, j - dj) and (i, j) at level k, per unit area; hr and hrt
// are the background density and rho theta of level k. Both cells sharing a face evaluate it from the
// same operands in the same order, so the update is conservative to the last bit.
KOKKOS_INLINE_FUNCTION void horizontal_flux(const Field4D& s, int k, int j, int i, int di, int dj, double hr,
                                            double hrt, double hv, double nu, double kappa, double inv_dx,
                                            double F[kEulerVars]) {
  double vals[kEulerVars], d3[kEulerVars];
  for (int v = 0; v < kEulerVars; ++v) {
    const double s0 = s(v, k, j - 2 * dj, i - 2 * di), s1 = s(v, k, j - dj, i - di), s2 = s(v, k, j, i),
                 s3 = s(v, k, j + dj, i + di);
    vals[v] = fv::face_value4(s0, s1, s2, s3);
    d3[v] = fv::face_diff3(s0, s1, s2, s3);
  }
  const double r = vals[kDens] + hr;
  const double u = vals[kUmom] / r, vv = vals[kVmom] / r, w = vals[kWmom] / r, t = (vals[kRhot] + hrt) / r;
  const double p = kC0 * ::pow(r * t, kGamma);
  const double un = di ? u : vv;
  F[kDens] = r * un - hv * d3[kDens];
  F[kUmom] = r * un * u + (di ? p : 0.0) - hv * d3[kUmom];
  F[kVmom] = r * un * vv + (dj ? p : 0.0) - hv * d3[kVmom];
  F[kWmom] = r * un * w - hv * d3[kWmom];
  F[kRhot] = r * un * t - hv * d3[kRhot];
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
    d3[v] = fv::face_diff3(s0, s1, s2, s3);
  }
  const double r = vals[kDens] + hdi;
  const double u = vals[kUmom] / r, vv = vals[kVmom] / r, t = (vals[kRhot] + hdti) / r;
  double w = vals[kWmom] / r;
  const double p = kC0 * ::pow(r * t, kGamma) - hpi;
  if (wall) {
    w = 0.0;
    d3[kDens] = 0.0;
  }
  F[kDens] = r * w - hv * d3[kDens];
  F[kUmom] = r * w * u - hv * d3[kUmom];
  F[kVmom] = r * w * vv - hv * d3[kVmom];
  F[kWmom] = r * w * w + p - hv * d3[kWmom];
  F[kRhot] = r * w * t - hv * d3[kRhot];
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
}  // namespace


// ------------------------------------------------------------------ set-up
Euler::Euler(const Deck& deck, MPI_Comm comm) : gp_(GridParams::from_deck(deck)), p_(EulerParams::from_deck(deck)) {
  STRATUS_INPUT_REQUIRE(gp_.periodic[0],
                        "key 'grid.bc_x' = 'wall': the Euler solver's lateral boundaries are periodic");
  STRATUS_INPUT_REQUIRE(gp_.periodic[1],
                        "key 'grid.bc_y' = 'wall': the Euler solver's lateral boundaries are periodic");
  STRATUS_INPUT_REQUIRE(!gp_.periodic[2],
                        "key 'grid.bc_z' = 'periodic': the Euler solver needs walls at the bottom "
                        "and top (bc_z = wall)");
  STRATUS_INPUT_REQUIRE(gp_.cells[0] >= 4, "key 'grid.nx' = " << gp_.cells[0] << ": the Euler solver needs >= 4 cells");
  STRATUS_INPUT_REQUIRE(gp_.cells[2] >= 4, "key 'grid.nz' = " << gp_.cells[2] << ": the Euler solver needs >= 4 cells");
  STRATUS_INPUT_REQUIRE(gp_.cells[1] == 1 || gp_.cells[1] >= 4,
                        "key 'grid.ny' = " << gp_.cells[1] << ": 1 for x-z (2D) or >= 4 cells (3D)");
  decomp_ = gp_.decompose(comm);
  grid_ = make_local_grid(*decomp_, gp_.lo, gp_.length, 2);
}

std::string Euler::describe() const {
  std::ostringstream os;
  const bool three_d = grid_.global_n[1] > 1;
  os << "physics: compressible Euler (dry, non-hydrostatic), " << (three_d ? "3D" : "2D x-z") << ", case "
     << euler_case_name(p_.test) << "\n"
     << "grid: " << grid_.global_n[0] << " x " << grid_.global_n[1] << " x " << grid_.global_n[2]
     << " cells, dx = " << grid_.dx[0] << " " << grid_.dx[1] << " " << grid_.dx[2] << " m\n"
     << "decomposition: " << decomp_->describe() << "\n"
     << "numerics: 4th-order finite volume, hyperviscosity beta " << p_.hv_beta << ", "
     << (p_.splitting == EulerSplitting::alternating ? "dimensionally split RK3, order alternating" : "unsplit SSP-RK3")
     << ", viscosity " << p_.nu << " m^2/s, diffusivity " << p_.kappa << " m^2/s\n"
     << "time step: ";
  if (p_.max_speed > 0.0)
    os << stable_dt() << " s (cfl " << p_.cfl << ", max speed " << p_.max_speed << " m/s)";
  else
    os << "from the state, cfl " << p_.cfl;
  return os.str();
}

double Euler::memory_bytes() const {
  const double cells = double(grid_.extent(0)) * grid_.extent(1) * grid_.extent(2);
  const double halo = 2.0 * 8.0 * kEulerVars * (cells - double(grid_.owned_cells()));
  const double rk =
      p_.splitting == EulerSplitting::unsplit ? RungeKutta::register_bytes(RKMethod::ssprk3, grid_, kEulerVars) : 0.0;
  return 8.0 * cells * (4 * kEulerVars + 6) + halo + rk;
}

void Euler::initialize() {
  state_ = grid_.allocate("euler::state", kEulerVars);
  tmp_ = grid_.allocate("euler::tmp", kEulerVars);
  tend_ = grid_.allocate("euler::tend", kEulerVars);
  flux_ = grid_.allocate("euler::flux", kEulerVars);
  halo_ = std::make_unique<GridHalo>(*decomp_, grid_, kEulerVars, 2, false, gp_.transport);
  if (p_.splitting == EulerSplitting::unsplit) rk_ = std::make_unique<RungeKutta>(RKMethod::ssprk3, grid_, kEulerVars);

  // Background, on the host: cell averages by quadrature, and point values at the faces.
  const int nk = grid_.extent(2);
  hy_dens_cell_ = Kokkos::View<double*, MemSpace>("euler::hy_dens_cell", nk);
  hy_dens_theta_cell_ = Kokkos::View<double*, MemSpace>("euler::hy_dens_theta_cell", nk);
  hy_dens_int_ = Kokkos::View<double*, MemSpace>("euler::hy_dens_int", nk + 1);
  hy_dens_theta_int_ = Kokkos::View<double*, MemSpace>("euler::hy_dens_theta_int", nk + 1);
  hy_pressure_int_ = Kokkos::View<double*, MemSpace>("euler::hy_pressure_int", nk + 1);
  auto hc = Kokkos::create_mirror_view(hy_dens_cell_);
  auto htc = Kokkos::create_mirror_view(hy_dens_theta_cell_);
  auto hi = Kokkos::create_mirror_view(hy_dens_int_);
  auto hti = Kokkos::create_mirror_view(hy_dens_theta_int_);
  auto hpi = Kokkos::create_mirror_view(hy_pressure_int_);
  const double dz = grid_.dx[2];
  auto height_of_face = [&](int k) { return (grid_.offset[2] + k - grid_.ng[2]) * dz; };
  for (int k = 0; k < nk; ++k) {
    hc(k) = htc(k) = 0.0;
    for (int q = 0; q < 3; ++q) {
      double hr, ht;
      background(p_.test, height_of_face(k) + kQp[q] * dz, hr, ht);
      hc(k) += hr * kQw[q];
      htc(k) += hr * ht * kQw[q];
    }
  }
  for (int k = 0; k <= nk; ++k) {
    double hr, ht;
    background(p_.test, height_of_face(k), hr, ht);
    hi(k) = hr;
    hti(k) = hr * ht;
    hpi(k) = kC0 * std::pow(hr * ht, kGamma);
  }
  Kokkos::deep_copy(hy_dens_cell_, hc);
  Kokkos::deep_copy(hy_dens_theta_cell_, htc);
  Kokkos::deep_copy(hy_dens_int_, hi);
  Kokkos::deep_copy(hy_dens_theta_int_, hti);
  Kokkos::deep_copy(hy_pressure_int_, hpi);

  // Initial state: cell averages by tensor Gauss-Legendre quadrature (3 points per active direction).
  const Domain dom{gp_.lo, gp_.length, grid_.global_n[1] > 1};
  // Cases that do not vary along y take one y point: the quadrature is then exact, and a 3D run is the
  // 2D run repeated bit for bit in every y slice.
  const bool y_uniform =
      p_.test == EulerCase::gravity_waves || p_.test == EulerCase::skamarock_klemp || p_.test == EulerCase::injection;
  const bool yq = dom.three_d && !y_uniform;
  const int nqy = yq ? 3 : 1;
  auto h = Kokkos::create_mirror_view(state_);
  Kokkos::deep_copy(h, 0.0);
  for (int k = grid_.ng[2]; k < grid_.ng[2] + grid_.n[2]; ++k)
    for (int j = grid_.ng[1]; j < grid_.ng[1] + grid_.n[1]; ++j)
      for (int i = grid_.ng[0]; i < grid_.ng[0] + grid_.n[0]; ++i) {
        const double x0 = grid_.center(0, i) - 0.5 * grid_.dx[0], y0 = grid_.center(1, j) - 0.5 * grid_.dx[1];
        const double z0 = height_of_face(k);
        for (int qz = 0; qz < 3; ++qz)
          for (int qy = 0; qy < nqy; ++qy)
            for (int qx = 0; qx < 3; ++qx) {
              const double x = x0 + kQp[qx] * grid_.dx[0], z = z0 + kQp[qz] * dz;
              const double y = yq ? y0 + kQp[qy] * grid_.dx[1] : grid_.center(1, j);
              const double wq = kQw[qx] * kQw[qz] * (yq ? kQw[qy] : 1.0);
              double r, u, v, w, t, hr, ht;
              sample(p_.test, dom, x, y, z, r, u, v, w, t, hr, ht);
              h(kDens, k, j, i) += r * wq;
              h(kUmom, k, j, i) += (r + hr) * u * wq;
              h(kVmom, k, j, i) += (r + hr) * v * wq;
              h(kWmom, k, j, i) += (r + hr) * w * wq;
              h(kRhot, k, j, i) += ((r + hr) * (t + ht) - hr * ht) * wq;
            }
      }
  Kokkos::deep_copy(state_, h);
  time_ = 0.0;
  step_ = 0;
  const auto me = mass_energy();
  mass0_ = me[0];
  te0_ = me[1];
}

// ------------------------------------------------------------------ boundaries
void Euler::fill_ghosts(const Field4D& s) const {
  halo_->exchange(s);
  const LocalGrid g = grid_;
  const auto hc = hy_dens_cell_, htc = hy_dens_theta_cell_;
  const int ng = g.ng[2], nx = g.n[0], ny = g.n[1];
  using Flat = Kokkos::RangePolicy<ExecSpace>;
  // Walls: w = 0, the horizontal velocity and the other variables continued from the first owned level
  // (momentum rescaled by the background density).
  const bool bottom = g.offset[2] == 0, top = g.offset[2] + g.n[2] == g.global_n[2];
  for (int side = 0; side < 2; ++side) {
    if ((side == 0 && !bottom) || (side == 1 && !top)) continue;
    const int src = side == 0 ? ng : ng + g.n[2] - 1;
    const int step = side == 0 ? -1 : 1;
    Kokkos::parallel_for(
        "euler::wall_ghosts", Flat(0, nx * ny), KOKKOS_LAMBDA(int n) {
          const int i = g.ng[0] + n % nx, j = g.ng[1] + n / nx;
          for (int l = 1; l <= ng; ++l) {
            const int k = src + step * l;
            s(kWmom, k, j, i) = 0.0;
            s(kUmom, k, j, i) = s(kUmom, src, j, i) / hc(src) * hc(k);
            s(kVmom, k, j, i) = s(kVmom, src, j, i) / hc(src) * hc(k);
            s(kDens, k, j, i) = s(kDens, src, j, i);
            s(kRhot, k, j, i) = s(kRhot, src, j, i);
          }
        });
  }
  // Injection: a 50 m/s jet of 298 K air enters through the left face around three quarters of the height.
  if (p_.test == EulerCase::injection && g.offset[0] == 0) {
    const int nz = g.n[2], ngx = g.ng[0];
    const double dz = g.dx[2], zlen = gp_.length[2], z_base = (g.offset[2] - ng) * dz;
    Kokkos::parallel_for(
        "euler::injection", Flat(0, nz * ny), KOKKOS_LAMBDA(int n) {
          const int k = ng + n % nz, j = g.ng[1] + n / nz;
          const double z = z_base + (k + 0.5) * dz;
          const double dzj = z - 3.0 * zlen / 4.0;
          if ((dzj < 0 ? -dzj : dzj) <= zlen / 16.0) {
            for (int i = 0; i < ngx; ++i) {
              const double r = s(kDens, k, j, i) + hc(k);
              s(kUmom, k, j, i) = r * 50.0;
              s(kRhot, k, j, i) = r * 298.0 - htc(k);
            }
          }
        });
  }
}

// ------------------------------------------------------------------ tendencies and updates
void Euler::tendency(const Field4D& s, int dir, double hv_dt, const Field4D& tend, bool add) const {
  const LocalGrid g = grid_;
  const double dx = g.dx[dir], inv_dx = 1.0 / dx;
  const double hv = -p_.hv_beta * dx / (16.0 * hv_dt);
  const double nu = p_.nu, kappa = p_.kappa;
  const auto hc = hy_dens_cell_, htc = hy_dens_theta_cell_;
  const Field4D F = flux_;
  // Each face flux once (the costly part: a pow per face), at the face below/left of every owned cell and
  // the one past the last: the faces are the owned cells of a grid one cell longer along dir.
  LocalGrid faces = g;
  faces.n[dir] += 1;
  if (dir < 2) {
    const int di = dir == 0, dj = dir == 1;
    for_each_cell(
        dir == 0 ? "euler::flux_x" : "euler::flux_y", faces, KOKKOS_LAMBDA(int i, int j, int k) {
          double f[kEulerVars];
          horizontal_flux(s, k, j, i, di, dj, hc(k), htc(k), hv, nu, kappa, inv_dx, f);
          for (int v = 0; v < kEulerVars; ++v) F(v, k, j, i) = f[v];
        });
  } else {
    const auto hi = hy_dens_int_, hti = hy_dens_theta_int_, hpi = hy_pressure_int_;
    const int kw_lo = g.offset[2] == 0 ? g.ng[2] : -1;  // array index of a wall face, if this rank has one
    const int kw_hi = g.offset[2] + g.n[2] == g.global_n[2] ? g.ng[2] + g.n[2] : -1;
    for_each_cell(
        "euler::flux_z", faces, KOKKOS_LAMBDA(int i, int j, int k) {
          double f[kEulerVars];
          vertical_flux(s, k, j, i, hi(k), hti(k), hpi(k), k == kw_lo || k == kw_hi, hv, nu, kappa, inv_dx, hc, htc, f);
          for (int v = 0; v < kEulerVars; ++v) F(v, k, j, i) = f[v];
        });
  }
  const int di = dir == 0, dj = dir == 1, dk = dir == 2;
  for_each_cell(
      "euler::tendency", g, KOKKOS_LAMBDA(int i, int j, int k) {
        for (int v = 0; v < kEulerVars; ++v) {
          double t = -(F(v, k + dk, j + dj, i + di) - F(v, k, j, i)) * inv_dx;
          if (dk && v == kWmom) t -= s(kDens, k, j, i) * kGrav;
          tend(v, k, j, i) = add ? tend(v, k, j, i) + t : t;
        }
      });
}

void Euler::update(const Field4D& init, const Field4D& tend, double dt, const Field4D& out) const {
  for_each_cell(
      "euler::update", grid_, KOKKOS_LAMBDA(int i, int j, int k) {
        for (int v = 0; v < kEulerVars; ++v) out(v, k, j, i) = init(v, k, j, i) + dt * tend(v, k, j, i);
      });
}

void Euler::semi_discrete_step(const Field4D& init, const Field4D& forcing, const Field4D& out, double dt, int dir) {
  fill_ghosts(forcing);
  tendency(forcing, dir, dt, tend_, false);
  update(init, tend_, dt, out);
}

void Euler::advance(double dt) {
  int dirs[3], nd = 0;
  for (int d = 0; d < 3; ++d)
    if (grid_.global_n[d] > 1) dirs[nd++] = d;
  if (p_.splitting == EulerSplitting::alternating) {
    // miniWeather's step: per direction, three stages dt/3, dt/2, dt; the direction order reverses every
    // step so that the splitting error does not accumulate one way.
    for (int n = 0; n < nd; ++n) {
      const int d = step_ % 2 == 0 ? dirs[n] : dirs[nd - 1 - n];
      semi_discrete_step(state_, state_, tmp_, dt / 3.0, d);
      semi_discrete_step(state_, tmp_, tmp_, dt / 2.0, d);
      semi_discrete_step(state_, tmp_, state_, dt, d);
    }
  } else {
    rk_->step(
        state_, time_, dt,
        [this, dt, dirs, nd](const Field4D& u, double, const Field4D& dudt) {
          for (int n = 0; n < nd; ++n) tendency(u, dirs[n], dt, dudt, n > 0);
        },
        [this](const Field4D& u, double) { fill_ghosts(u); });
  }
  time_ += dt;
  ++step_;
}

double Euler::stable_dt() const {
  if (p_.max_speed > 0.0) {
    double h = 1e300;
    for (int d = 0; d < 3; ++d)
      if (grid_.global_n[d] > 1) h = std::min(h, grid_.dx[d]);
    return p_.cfl * h / p_.max_speed;
  }
  const double rate = max_wave_rate();
  return rate > 0.0 ? p_.cfl / rate : 1e300;
}

// ------------------------------------------------------------------ diagnostics
namespace {
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
}  // namespace

double Euler::max_wave_rate() const {
  const LocalGrid g = grid_;
  const auto s = state_;
  const auto hc = hy_dens_cell_, htc = hy_dens_theta_cell_;
  const bool sum = p_.splitting == EulerSplitting::unsplit;
  const double ix = g.global_n[0] > 1 ? 1.0 / g.dx[0] : 0.0, iy = g.global_n[1] > 1 ? 1.0 / g.dx[1] : 0.0;
  const double iz = 1.0 / g.dx[2];
  double rate = 0.0;
  reduce_cells(
      "euler::max_wave_rate", g,
      KOKKOS_LAMBDA(int i, int j, int k, double& m) {
        const double a = wave_rate(s, hc(k), htc(k), k, j, i, ix, iy, iz, sum);
        m = a > m ? a : m;
      },
      Kokkos::Max<double>(rate));
  double global = 0.0;
  MPI_Allreduce(&rate, &global, 1, MPI_DOUBLE, MPI_MAX, decomp_->comm());
  return global;
}

std::string Euler::fastest_cell() const {
  const double top = max_wave_rate();
  const LocalGrid g = grid_;
  const auto s = state_;
  const auto hc = hy_dens_cell_, htc = hy_dens_theta_cell_;
  const bool sum = p_.splitting == EulerSplitting::unsplit;
  const double ix = g.global_n[0] > 1 ? 1.0 / g.dx[0] : 0.0, iy = g.global_n[1] > 1 ? 1.0 / g.dx[1] : 0.0;
  const double iz = 1.0 / g.dx[2];
  const long long nx = g.global_n[0], ny = g.global_n[1];
  const long long none = std::numeric_limits<long long>::max();
  long long first = none;
  reduce_cells(
      "euler::fastest_cell", g,
      KOKKOS_LAMBDA(int i, int j, int k, long long& m) {
        if (wave_rate(s, hc(k), htc(k), k, j, i, ix, iy, iz, sum) == top) {  // the same arithmetic: exact
          const long long idx =
              ((g.offset[2] + k - g.ng[2]) * ny + g.offset[1] + j - g.ng[1]) * nx + g.offset[0] + i - g.ng[0];
          m = idx < m ? idx : m;
        }
      },
      Kokkos::Min<long long>(first));
  long long global = none;
  MPI_Allreduce(&first, &global, 1, MPI_LONG_LONG, MPI_MIN, decomp_->comm());
  if (global == none) return {};
  const long long gi = global % nx, gj = global / nx % ny, gk = global / (nx * ny);
  std::ostringstream os;
  os << "cell (" << gi << ", " << gj << ", " << gk << "), x = " << gp_.lo[0] + (gi + 0.5) * grid_.dx[0] << " m";
  if (grid_.global_n[1] > 1) os << ", y = " << gp_.lo[1] + (gj + 0.5) * grid_.dx[1] << " m";
  os << ", z = " << gp_.lo[2] + (gk + 0.5) * grid_.dx[2] << " m";
  return os.str();
}

std::array<double, 2> Euler::mass_energy() const {
  const LocalGrid g = grid_;
  const auto s = state_;
  const auto hc = hy_dens_cell_, htc = hy_dens_theta_cell_;
  const double z0 = (g.offset[2] - g.ng[2] + 0.5) * g.dx[2], dz = g.dx[2];
  double mass = 0.0, te = 0.0;
  reduce_cells(
      "euler::mass", g, KOKKOS_LAMBDA(int i, int j, int k, double& m) { m += s(kDens, k, j, i) + hc(k); }, mass);
  reduce_cells(
      "euler::energy", g,
      KOKKOS_LAMBDA(int i, int j, int k, double& e) {
        const double r = s(kDens, k, j, i) + hc(k);
        const double u = s(kUmom, k, j, i) / r, v = s(kVmom, k, j, i) / r, w = s(kWmom, k, j, i) / r;
        const double rt = s(kRhot, k, j, i) + htc(k);
        const double p = kC0 * ::pow(rt, kGamma);
        const double temp = rt / r * ::pow(p / kP0, kRd / kCp);
        e += 0.5 * r * (u * u + v * v + w * w) + r * kCv * temp + r * kGrav * (z0 + k * dz);
      },
      te);
  const double vol = g.cell_volume();
  double local[2] = {mass * vol, te * vol}, global[2] = {0.0, 0.0};
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, decomp_->comm());
  return {global[0], global[1]};
}

std::array<double, 3> Euler::theta_w_extremes() const {
  const LocalGrid g = grid_;
  const auto s = state_;
  const auto hc = hy_dens_cell_, htc = hy_dens_theta_cell_;
  double tmin = 0.0, tmax = 0.0, wmax = 0.0;
  reduce_cells(
      "euler::theta_min", g,
      KOKKOS_LAMBDA(int i, int j, int k, double& m) {
        const double t = (s(kRhot, k, j, i) + htc(k)) / (s(kDens, k, j, i) + hc(k)) - htc(k) / hc(k);
        m = t < m ? t : m;
      },
      Kokkos::Min<double>(tmin));
  reduce_cells(
      "euler::theta_max", g,
      KOKKOS_LAMBDA(int i, int j, int k, double& m) {
        const double t = (s(kRhot, k, j, i) + htc(k)) / (s(kDens, k, j, i) + hc(k)) - htc(k) / hc(k);
        m = t > m ? t : m;
      },
      Kokkos::Max<double>(tmax));
  reduce_cells(
      "euler::w_max", g,
      KOKKOS_LAMBDA(int i, int j, int k, double& m) {
        const double w = s(kWmom, k, j, i) / (s(kDens, k, j, i) + hc(k));
        const double a = w < 0 ? -w : w;
        m = a > m ? a : m;
      },
      Kokkos::Max<double>(wmax));
  double lo = 0.0, hi[2] = {tmax, wmax}, ghi[2] = {0.0, 0.0};
  MPI_Allreduce(&tmin, &lo, 1, MPI_DOUBLE, MPI_MIN, decomp_->comm());
  MPI_Allreduce(hi, ghi, 2, MPI_DOUBLE, MPI_MAX, decomp_->comm());
  return {lo, ghi[0], ghi[1]};
}

Diagnostics Euler::diagnostics(double dt) {
  const auto me = mass_energy();
  const auto ext = theta_w_extremes();
  Diagnostics d;
  d.add("mass", me[0]);
  d.add("d_mass", (me[0] - mass0_) / mass0_);
  d.add("te", me[1]);
  d.add("d_te", (me[1] - te0_) / te0_);
  d.add("theta_min", ext[0]);
  d.add("theta_max", ext[1]);
  d.add("w_max", ext[2]);
  d.add("cfl", dt * max_wave_rate());
  return d;
}

std::string Euler::divergence(const Diagnostics& d) {
  for (std::size_t n = 0; n < d.names.size(); ++n)
    if (d.names[n] == "cfl" && d.values[n] > p_.courant_limit) {
      std::ostringstream os;
      const std::string where = fastest_cell();  // empty only if the two reductions rounded differently
      os << "the Courant number " << d.values[n] << " exceeds euler.courant_limit = " << p_.courant_limit
         << (where.empty() ? "" : " at " + where)
         << " (the flow outran the time step: lower euler.cfl, or raise euler.max_speed)";
      return os.str();
    }
  return {};
}

std::string Euler::locate_nonfinite() {
  const CellLocation c = first_nonfinite(state_, grid_, decomp_->comm());
  if (!c.found) return {};
  std::ostringstream os;
  os << "field '" << kVarNames[c.var] << "' at cell (" << c.global[0] << ", " << c.global[1] << ", " << c.global[2]
     << "), x = " << gp_.lo[0] + (c.global[0] + 0.5) * grid_.dx[0] << " m";
  if (grid_.global_n[1] > 1) os << ", y = " << gp_.lo[1] + (c.global[1] + 0.5) * grid_.dx[1] << " m";
  os << ", z = " << gp_.lo[2] + (c.global[2] + 0.5) * grid_.dx[2] << " m";
  return os.str();
}

// ------------------------------------------------------------------ output
void Euler::compute_output(const Field4D& out) const {
  const auto s = state_;
  const auto hc = hy_dens_cell_, htc = hy_dens_theta_cell_;
  for_each_cell(
      "euler::output", grid_, KOKKOS_LAMBDA(int i, int j, int k) {
        const double r = s(kDens, k, j, i) + hc(k);
        const double rt = s(kRhot, k, j, i) + htc(k);
        out(0, k, j, i) = r;
        out(1, k, j, i) = s(kUmom, k, j, i) / r;
        out(2, k, j, i) = s(kVmom, k, j, i) / r;
        out(3, k, j, i) = s(kWmom, k, j, i) / r;
        out(4, k, j, i) = rt / r - htc(k) / hc(k);
        out(5, k, j, i) = kC0 * (::pow(rt, kGamma) - ::pow(htc(k), kGamma));
      });
}

std::optional<GridFields> Euler::checkpoint_fields() {
  return GridFields{decomp_.get(),
                    grid_,
                    state_,
                    {GridVariable{"rho_prime", "", 0}, GridVariable{"rho_u", "", 1}, GridVariable{"rho_v", "", 2},
                     GridVariable{"rho_w", "", 3}, GridVariable{"rho_theta_prime", "", 4}}};
}

std::optional<GridFields> Euler::grid_fields() {
  if (out_.extent(0) == 0) out_ = grid_.allocate("euler::output", 6);
  compute_output(out_);
  return GridFields{
      decomp_.get(),
      grid_,
      out_,
      {GridVariable{"rho", "kg/m^3", 0}, GridVariable{"u", "m/s", 1}, GridVariable{"v", "m/s", 2},
       GridVariable{"w", "m/s", 3}, GridVariable{"theta_prime", "K", 4}, GridVariable{"p_prime", "Pa", 5}}};
}

double Euler::bytes_per_update() const {
  // Per stage and direction: the flux kernel reads the state and writes the fluxes (10 doubles), the
  // tendency kernel reads the fluxes and writes the tendency (10; 15 when it adds to it); the update reads
  // init and the tendency and writes out (15). Split: 3 stages per active direction; unsplit SSP-RK3:
  // 3 stages of all directions plus the RK update (about 20). Halo traffic and boundary kernels are left out.
  int nd = 0;
  for (int d = 0; d < 3; ++d) nd += grid_.global_n[d] > 1;
  if (p_.splitting == EulerSplitting::alternating) return 8.0 * 3 * nd * (10 + 10 + 15);
  return 8.0 * 3 * (20 * nd + 5 * (nd - 1) + 20);
}

double Euler::work_per_step() const { return double(grid_.global_n[0]) * grid_.global_n[1] * grid_.global_n[2]; }

}  // namespace stratus::climate
