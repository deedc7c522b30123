// Rotating shallow water: test cases, flux and source kernels, boundaries, diagnostics and output.
#include "climate/shallow_water.hpp"

#include <cmath>
#include <sstream>

#include "climate/fv_stencils.hpp"
#include "core/error.hpp"

namespace stratus::climate {

namespace {
constexpr double kPi = 3.14159265358979323846;

// Physical flux normal to a face of the state (h, mn, mt): mn the momentum normal to the face, mt the
// tangential one.
KOKKOS_INLINE_FUNCTION void normal_flux(double h, double mn, double mt, double g, double* f) {
  const double un = mn / h;
  f[0] = mn;
  f[1] = mn * un + 0.5 * g * h * h;
  f[2] = mt * un;
}

// Numerical flux through the face between cells 1 and 2 of the stencils h[0..3], mn[0..3], mt[0..3].
// hv = fv::hyperviscosity(hv_beta, dx, dt) >= 0. Both cells sharing a face evaluate it from the same operands in the same order, so
// the update is conservative to the last bit.
KOKKOS_INLINE_FUNCTION void face_flux(const double* h, const double* mn, const double* mt, double g, double hv,
                                      bool rusanov, double* f) {
  if (!rusanov) {
    normal_flux(fv::face_value4(h[0], h[1], h[2], h[3]), fv::face_value4(mn[0], mn[1], mn[2], mn[3]),
                fv::face_value4(mt[0], mt[1], mt[2], mt[3]), g, f);
  } else {
    // 3rd-order upwind-biased states on the left and right of the face, Rusanov's dissipation.
    const double hl = (-h[0] + 5.0 * h[1] + 2.0 * h[2]) / 6.0, hr = (2.0 * h[1] + 5.0 * h[2] - h[3]) / 6.0;
    const double nl = (-mn[0] + 5.0 * mn[1] + 2.0 * mn[2]) / 6.0, nr = (2.0 * mn[1] + 5.0 * mn[2] - mn[3]) / 6.0;
    const double tl = (-mt[0] + 5.0 * mt[1] + 2.0 * mt[2]) / 6.0, tr = (2.0 * mt[1] + 5.0 * mt[2] - mt[3]) / 6.0;
    double fl[3], fr[3];
    normal_flux(hl, nl, tl, g, fl);
    normal_flux(hr, nr, tr, g, fr);
    const double ul = nl / hl, ur = nr / hr;
    const double al = (ul < 0.0 ? -ul : ul) + sqrt(g * hl), ar = (ur < 0.0 ? -ur : ur) + sqrt(g * hr);
    const double a = al > ar ? al : ar;
    f[0] = 0.5 * (fl[0] + fr[0]) - 0.5 * a * (hr - hl);
    f[1] = 0.5 * (fl[1] + fr[1]) - 0.5 * a * (nr - nl);
    f[2] = 0.5 * (fl[2] + fr[2]) - 0.5 * a * (tr - tl);
  }
  if (hv > 0.0) {
    f[0] += fv::hyperviscous_flux(hv, h[0], h[1], h[2], h[3]);
    f[1] += fv::hyperviscous_flux(hv, mn[0], mn[1], mn[2], mn[3]);
    f[2] += fv::hyperviscous_flux(hv, mt[0], mt[1], mt[2], mt[3]);
  }
}

// Cell averages of cos(k x + phase) and sin(k x + phase) over [a, a + dx] (coordinates relative to the
// domain's lower corner): the midpoint values times sin(k dx / 2) / (k dx / 2), free of cancellation.
void average_cos_sin(double k, double a, double dx, double phase, double& c, double& s) {
  const double half = 0.5 * k * dx;
  const double sinc = half == 0.0 ? 1.0 : std::sin(half) / half;
  const double m = k * (a + 0.5 * dx) + phase;
  c = std::cos(m) * sinc;
  s = std::sin(m) * sinc;
}

const char* case_name(SwCase c) { return c == SwCase::wave ? "wave" : c == SwCase::jet ? "jet" : "dam_break"; }

}  // namespace



ShallowWaterWave::ShallowWaterWave(const ShallowWaterParams& p, const LocalGrid& g) : p_(p), g_(g) {
  for (int d = 0; d < 2; ++d) k_[d] = 2.0 * kPi * p.modes[d] / (g.dx[d] * g.global_n[d]);
  omega_ = std::sqrt(p.f0 * p.f0 + p.gravity * p.depth * (k_[0] * k_[0] + k_[1] * k_[1]));
}

void ShallowWaterWave::factor(int d, int idx, double t, double& c, double& s) const {
  const double a = (g_.offset[d] + idx - g_.ng[d]) * g_.dx[d];
  average_cos_sin(k_[d], a, g_.dx[d], d == 1 ? -omega_ * t : 0.0, c, s);
}

void ShallowWaterWave::cell_average(int i, int j, double t, double& c, double& s) const {
  double cx, sx, cy, sy;
  factor(0, i, t, cx, sx);
  factor(1, j, t, cy, sy);
  c = cx * cy - sx * sy;
  s = sx * cy + cx * sy;
}

void ShallowWaterWave::state(int i, int j, double t, double& eta, double& mu, double& mv) const {
  double c, s;
  cell_average(i, j, t, c, s);
  const double kk = k_[0] * k_[0] + k_[1] * k_[1], a = p_.amplitude, f = p_.f0;
  eta = a * c;
  // H u = (A / K^2) (w kx cos - f ky sin), H v = (A / K^2) (w ky cos + f kx sin).
  mu = a / kk * (omega_ * k_[0] * c - f * k_[1] * s);
  mv = a / kk * (omega_ * k_[1] * c + f * k_[0] * s);
}

ShallowWater::ShallowWater(const Deck& deck, Comm comm)
    : GridPhysics("shallow_water", GridParams::from_deck(deck), {{"h", "h"}, {"hu", "hu"}, {"hv", "hv"}},
                  ShallowWaterParams::from_deck(deck).integrator),
      p_(ShallowWaterParams::from_deck(deck)) {
  STRATUS_INPUT_REQUIRE(gp_.cells[2] == 1,
                        "key 'grid.nz' = " << gp_.cells[2] << ": the shallow-water physics is 2D (x-y), set 1");
  STRATUS_INPUT_REQUIRE(gp_.cells[0] > 1, "key 'grid.nx' = 1: the shallow-water physics needs cells in x");
  STRATUS_INPUT_REQUIRE(
      p_.beta == 0.0 || !gp_.periodic[1],
      "key 'shallow_water.beta' = " << p_.beta << ": a beta plane is not periodic in y; set grid.bc_y = wall");
  const char* name = case_name(p_.test);
  if (p_.test != SwCase::dam_break) {
    STRATUS_INPUT_REQUIRE(gp_.periodic[0] && gp_.periodic[1],
                          "shallow_water.case = '" << name << "' needs periodic boundaries (grid.bc_x, grid.bc_y)");
    STRATUS_INPUT_REQUIRE(p_.beta == 0.0, "shallow_water.case = '" << name << "' is an f-plane case: set beta = 0");
  }
  if (p_.test == SwCase::wave) {
    STRATUS_INPUT_REQUIRE(p_.modes[0] != 0 || p_.modes[1] != 0, "key 'shallow_water.modes': both are 0, no wave");
    STRATUS_INPUT_REQUIRE(p_.modes[1] == 0 || gp_.cells[1] > 1,
                          "key 'shallow_water.modes': a mode in y needs grid.ny > 1");
  }
  if (p_.test == SwCase::jet)
    STRATUS_INPUT_REQUIRE(gp_.cells[1] > 1, "shallow_water.case = 'jet' varies in y: set grid.ny > 1");
  decompose(comm, 2);
}

std::string ShallowWater::describe() const {
  std::ostringstream os;
  os << "physics: rotating shallow water (conservative finite volume, flat bottom), case " << case_name(p_.test) << "\n"
     << describe_grid() << "\n"
     << "g = " << p_.gravity << " m/s^2, f = " << p_.f0 << " + " << p_.beta << " (y - " << p_.y_ref << ") 1/s\n"
     << "flux: " << (p_.flux == SwFlux::centered ? "centered4" : "rusanov") << ", hv_beta: " << p_.hv_beta
     << ", integrator: " << rk_name(p_.integrator) << ", cfl: " << p_.cfl;
  if (p_.test == SwCase::wave) {
    const ShallowWaterWave w(p_, grid_);
    os << "\nwave: H = " << p_.depth << " m, A = " << p_.amplitude << " m, modes " << p_.modes[0] << " " << p_.modes[1]
       << ", omega = " << w.omega() << " 1/s (period " << 2.0 * kPi / w.omega() << " s)";
  } else if (p_.test == SwCase::jet) {
    os << "\njet: H = " << p_.depth << " m, U0 = " << p_.jet_speed << " m/s";
  } else {
    os << "\ndam break: h = " << p_.h_left << " m | " << p_.h_right
       << " m at x = " << gp_.lo[0] + p_.dam_fraction * gp_.length[0] << " m";
  }
  if (state_.data() != nullptr) os << "\nstable time step: " << stable_dt() << " s";
  return os.str();
}

double ShallowWater::memory_bytes() const { return grid_memory_bytes(3.0 + 4.0 + (p_.test == SwCase::jet ? 1.0 : 0.0)); }

void ShallowWater::set_initial_state() {
  out_ = grid_.allocate("shallow_water::out", 4);
  // Set-up on the host: exact cell averages.
  auto hq = Kokkos::create_mirror_view(state_);
  const LocalGrid& g = grid_;
  const double lx = g.dx[0] * g.global_n[0], ly = g.dx[1] * g.global_n[1];
  const ShallowWaterWave wave(p_, g);
  for (int k = g.ng[2]; k < g.ng[2] + g.n[2]; ++k)
    for (int j = g.ng[1]; j < g.ng[1] + g.n[1]; ++j)
      for (int i = g.ng[0]; i < g.ng[0] + g.n[0]; ++i) {
        double h = p_.depth, mu = 0.0, mv = 0.0;
        if (p_.test == SwCase::wave) {
          double eta;
          wave.state(i, j, 0.0, eta, mu, mv);
          h += eta;
        } else if (p_.test == SwCase::jet) {
          // u = U0 sin(ky y), h = H + C cos(ky y) with C = f0 U0 / (g ky): g h_y = -f0 u.
          // hu = H U0 sin(ky y) + (C U0 / 2) sin(2 ky y).
          const double ky = 2.0 * kPi / ly, c = p_.f0 * p_.jet_speed / (p_.gravity * ky);
          const double a = (g.offset[1] + j - g.ng[1]) * g.dx[1];
          double c1, s1, c2, s2;
          average_cos_sin(ky, a, g.dx[1], 0.0, c1, s1);
          average_cos_sin(2.0 * ky, a, g.dx[1], 0.0, c2, s2);
          h += c * c1;
          mu = p_.depth * p_.jet_speed * s1 + 0.5 * c * p_.jet_speed * s2;
        } else {
          const double a = (g.offset[0] + i - g.ng[0]) * g.dx[0], xd = p_.dam_fraction * lx;
          double w = (xd - a) / g.dx[0];  // fraction of the cell left of the dam
          w = w < 0.0 ? 0.0 : (w > 1.0 ? 1.0 : w);
          h = w * p_.h_left + (1.0 - w) * p_.h_right;
        }
        hq(0, k, j, i) = h;
        hq(1, k, j, i) = mu;
        hq(2, k, j, i) = mv;
      }
  Kokkos::deep_copy(state_, hq);
  if (p_.test == SwCase::jet) {
    href_ = grid_.allocate("shallow_water::h_ref", 1);
    Kokkos::deep_copy(href_, Kokkos::subview(state_, std::make_pair(0, 1), Kokkos::ALL, Kokkos::ALL, Kokkos::ALL));
  }
  fill_ghosts(state_);
}

void ShallowWater::fill_ghosts(const Field4D& q) const {
  halo_->exchange(q);
  const LocalGrid g = grid_;
  // Free-slip walls: ghosts mirror the owned cells; the momentum normal to the wall changes sign. x first,
  // then y over the whole x extent (the stencils use no corner ghosts).
  for (int d = 0; d < 2; ++d) {
    if (gp_.periodic[d] || g.global_n[d] == 1) continue;
    const bool lo = g.offset[d] == 0, hi = g.offset[d] + g.n[d] == g.global_n[d];
    if (!lo && !hi) continue;
    const int ng = g.ng[d], n = g.n[d], normal = 1 + d;
    const int along = d == 0 ? g.extent(1) : g.extent(0);
    Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>> policy({0, 0, 0}, {g.extent(2), along, ng});
    const bool xdir = d == 0;
    Kokkos::parallel_for(
        xdir ? "shallow_water::wall_x" : "shallow_water::wall_y", policy, KOKKOS_LAMBDA(int k, int a, int m) {
          for (int v = 0; v < 3; ++v) {
            const double sign = v == normal ? -1.0 : 1.0;
            if (lo) {
              const int gi = ng - 1 - m, oi = ng + m;
              if (xdir)
                q(v, k, a, gi) = sign * q(v, k, a, oi);
              else
                q(v, k, gi, a) = sign * q(v, k, oi, a);
            }
            if (hi) {
              const int gi = ng + n + m, oi = ng + n - 1 - m;
              if (xdir)
                q(v, k, a, gi) = sign * q(v, k, a, oi);
              else
                q(v, k, gi, a) = sign * q(v, k, oi, a);
            }
          }
        });
  }
}

void ShallowWater::rhs(const Field4D& q, const Field4D& dqdt, double dt) const {
  const LocalGrid g = grid_;
  const double grav = p_.gravity, f0 = p_.f0, beta = p_.beta, yref = p_.y_ref;
  const bool rusanov = p_.flux == SwFlux::rusanov;
  const bool ax = g.global_n[0] > 1, ay = g.global_n[1] > 1;
  const double ix = 1.0 / g.dx[0], iy = 1.0 / g.dx[1];
  const double hvx = fv::hyperviscosity(p_.hv_beta, g.dx[0], dt), hvy = fv::hyperviscosity(p_.hv_beta, g.dx[1], dt);
  // beta plane: the cell average of f q is f(y_c) q + beta dy^2 / 12 dq/dy to 4th order
  const double bcorr = ay ? beta * g.dx[1] / 24.0 : 0.0;
  for_each_cell(
      "shallow_water::rhs", g, KOKKOS_LAMBDA(int i, int j, int k) {
        double r[3] = {0.0, 0.0, 0.0};
        double fl[3], fr[3];
        if (ax) {
          double h[5], mn[5], mt[5];
          for (int m = 0; m < 5; ++m) {
            h[m] = q(0, k, j, i - 2 + m);
            mn[m] = q(1, k, j, i - 2 + m);
            mt[m] = q(2, k, j, i - 2 + m);
          }
          face_flux(h, mn, mt, grav, hvx, rusanov, fl);
          face_flux(h + 1, mn + 1, mt + 1, grav, hvx, rusanov, fr);
          r[0] -= (fr[0] - fl[0]) * ix;
          r[1] -= (fr[1] - fl[1]) * ix;
          r[2] -= (fr[2] - fl[2]) * ix;
        }
        if (ay) {
          double h[5], mn[5], mt[5];
          for (int m = 0; m < 5; ++m) {
            h[m] = q(0, k, j - 2 + m, i);
            mn[m] = q(2, k, j - 2 + m, i);
            mt[m] = q(1, k, j - 2 + m, i);
          }
          face_flux(h, mn, mt, grav, hvy, rusanov, fl);
          face_flux(h + 1, mn + 1, mt + 1, grav, hvy, rusanov, fr);
          r[0] -= (fr[0] - fl[0]) * iy;
          r[2] -= (fr[1] - fl[1]) * iy;
          r[1] -= (fr[2] - fl[2]) * iy;
        }
        const double f = f0 + beta * (g.center(1, j) - yref);
        double fu = f * q(1, k, j, i), fv = f * q(2, k, j, i);
        if (bcorr != 0.0) {
          fu += bcorr * (q(1, k, j + 1, i) - q(1, k, j - 1, i));
          fv += bcorr * (q(2, k, j + 1, i) - q(2, k, j - 1, i));
        }
        dqdt(0, k, j, i) = r[0];
        dqdt(1, k, j, i) = r[1] + fv;
        dqdt(2, k, j, i) = r[2] - fu;
      });
}

void ShallowWater::advance(const Clock& clock, double dt) {
  rk_->step(
      state_, clock.time, dt, [this, dt](const Field4D& q, double, const Field4D& dqdt) { rhs(q, dqdt, dt); },
      [this](const Field4D& q, double) { fill_ghosts(q); });
}

double ShallowWater::max_wave_speed() const {
  const double grav = p_.gravity;
  auto q = state_;
  double smax = 0.0;
  reduce_cells(
      "shallow_water::max_speed", grid_,
      KOKKOS_LAMBDA(int i, int j, int k, double& m) {
        const double h = q(0, k, j, i);
        double s = 0.0;
        if (h > 0.0) {
          const double u = q(1, k, j, i) / h, v = q(2, k, j, i) / h;
          s = sqrt(u * u + v * v) + sqrt(grav * h);
        }
        m = s > m ? s : m;
      },
      Kokkos::Max<double>(smax));
  return global_max(decomp_->comm(), smax);
}

double ShallowWater::stable_dt() const {
  // Centred 4th-order differences: eigenvalues up to about 1.37 c / dx per direction, inside SSP-RK3's and
  // LSRK4's stability regions (imaginary axis to 1.73 and 2.8) for cfl <= 0.6 in 2D.
  const double s = max_wave_speed();
  return s > 0.0 ? p_.cfl * min_active_dx() / s : 1e30;
}

void ShallowWater::declare_diagnostics(DiagnosticsPlan& plan) {
  const double da = grid_.dx[0] * grid_.dx[1];
  auto area = [da](double s, double) { return s * da; };
  plan.sum("mass", area);  // sum h dA [m^3]
  plan.relative_change("d_mass", "mass");
  plan.sum("energy", area);  // sum (|hu|^2 / (2h) + g h^2 / 2) dA [m^5/s^2]
  plan.relative_change("d_te", "energy");
  plan.min("h_min");
  plan.max("h_max");
  plan.max("u_max");
  const double len = min_active_dx();
  plan.max("cfl", [len](double s, double dt) { return dt * s / len; });  // max |u| + sqrt(g h)
  plan.error_norms(double(grid_.global_n[0]) * grid_.global_n[1], has_exact());
}

void ShallowWater::reduce_diagnostics(const Clock& clock, double, LocalReductions& local) {
  auto q = state_;
  // The exact h on the device: the jet's initial state, or the wave from per-direction tables (nx + ny
  // host evaluations: cos(theta) = cx cy - sx sy). No field leaves the device.
  const bool exact = has_exact(), jet = p_.test == SwCase::jet;
  auto href = href_;
  Kokkos::View<double**, MemSpace> tab("shallow_water::exact_factors", 4, 1);
  if (exact && !jet) {
    const int ex = grid_.extent(0), ey = grid_.extent(1);
    tab = Kokkos::View<double**, MemSpace>("shallow_water::exact_factors", 4, std::max(ex, ey));
    auto ht = Kokkos::create_mirror_view(tab);
    const ShallowWaterWave wave(p_, grid_);
    for (int i = 0; i < ex; ++i) wave.factor(0, i, clock.time, ht(0, i), ht(1, i));
    for (int j = 0; j < ey; ++j) wave.factor(1, j, clock.time, ht(2, j), ht(3, j));
    Kokkos::deep_copy(tab, ht);
  }
  const double grav = p_.gravity, depth = p_.depth, amp = p_.amplitude;
  Slots<9> r;
  reduce_cells(
      "shallow_water::diagnostics", grid_,
      KOKKOS_LAMBDA(int i, int j, int k, Slots<9>& a) {
        const double h = q(0, k, j, i), mu = q(1, k, j, i), mv = q(2, k, j, i);
        a.add(0, h);
        a.add(1, 0.5 * (mu * mu + mv * mv) / h + 0.5 * grav * h * h);
        a.lower(2, h);
        a.raise(3, h);
        const double u = mu / h, v = mv / h, speed = sqrt(u * u + v * v);
        a.raise(4, speed);
        a.raise(5, h > 0.0 ? speed + sqrt(grav * h) : 0.0);
        if (exact) {
          const double ex = jet ? href(0, k, j, i) : depth + amp * (tab(0, i) * tab(2, j) - tab(1, i) * tab(3, j));
          const double e = h - ex, ae = e < 0.0 ? -e : e;
          a.add(6, ae);
          a.add(7, e * e);
          a.raise(8, ae);
        }
      },
      SlotReducer<9>(local.ops, r));
  local.assign(r);
}

std::string ShallowWater::divergence(const Diagnostics& d) {
  std::ostringstream os;
  const double hmin = d.get("h_min"), cfl = d.get("cfl");
  if (hmin <= 0.0)
    os << "the depth is not positive (h_min = " << hmin << " m)";
  else if (cfl > 2.0 * p_.cfl)
    os << "the Courant number " << cfl << " exceeds twice its target " << p_.cfl;
  return os.str();
}

void ShallowWater::compute_output() const {
  auto q = state_;
  auto out = out_;
  const double depth = p_.depth;
  for_each_cell(
      "shallow_water::output", grid_, KOKKOS_LAMBDA(int i, int j, int k) {
        const double h = q(0, k, j, i);
        out(0, k, j, i) = h;
        out(1, k, j, i) = q(1, k, j, i) / h;
        out(2, k, j, i) = q(2, k, j, i) / h;
        out(3, k, j, i) = h - depth;
      });
}

std::optional<GridFields> ShallowWater::grid_fields() {
  compute_output();
  return GridFields{decomp_.get(),
                    grid_,
                    out_,
                    {GridVariable{"h", "m", 0}, GridVariable{"u", "m/s", 1}, GridVariable{"v", "m/s", 2},
                     GridVariable{"eta", "m", 3}},
                    true};  // out_ is written only by compute_output()
}


}  // namespace stratus::climate
