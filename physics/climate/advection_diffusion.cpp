// Advection-diffusion: deck options, exact solution, flux kernel, diagnostics.
#include "climate/advection_diffusion.hpp"

#include <cmath>
#include <sstream>

#include "core/error.hpp"

namespace stratus::climate {

namespace {
constexpr double kPi = 3.14159265358979323846;

// Flux through the face between cells 0 and 1 of the stencil (qm1, q0, q1, q2), per unit area.
// Both cells sharing a face evaluate it from the same operands in the same order, so the update is
// conservative to the last bit.
KOKKOS_INLINE_FUNCTION double face_flux(double qm1, double q0, double q1, double q2, double u, double kappa,
                                        double inv_dx, bool centered) {
  double qf;
  if (centered)
    qf = (-qm1 + 7.0 * (q0 + q1) - q2) / 12.0;
  else if (u >= 0.0)
    qf = (-qm1 + 5.0 * q0 + 2.0 * q1) / 6.0;
  else
    qf = (2.0 * q0 + 5.0 * q1 - q2) / 6.0;
  const double grad = (qm1 - 15.0 * q0 + 15.0 * q1 - q2) * inv_dx / 12.0;
  return u * qf - kappa * grad;
}
}  // namespace



double AdvectionExact::factor(int d, int idx, double t) const {
  if (g_.global_n[d] == 1) return 1.0;
  const double dx = g_.dx[d];
  const double len = dx * g_.global_n[d];
  const double a = g_.lo[d] + (g_.offset[d] + idx - g_.ng[d]) * dx;
  const double b = a + dx;
  if (p_.shape == TracerShape::sine) {
    if (p_.modes[d] == 0) return 1.0;
    const double k = 2.0 * kPi * p_.modes[d] / len;
    const double shift = std::fmod(p_.velocity[d] * t, len);
    return (std::cos(k * (a - g_.lo[d] - shift)) - std::cos(k * (b - g_.lo[d] - shift))) / (k * dx) *
           std::exp(-p_.kappa * k * k * t);
  }
  const double s = std::sqrt(p_.width * p_.width + 2.0 * p_.kappa * t);
  double c = std::fmod(p_.center[d] - g_.lo[d] + p_.velocity[d] * t, len);
  if (c < 0.0) c += len;
  c += g_.lo[d];
  double sum = 0.0;
  for (int m = -2; m <= 2; ++m) {  // periodic images; two each side cover any width up to ~L/2
    const double cm = c + m * len;
    sum += std::erf((b - cm) / (std::sqrt(2.0) * s)) - std::erf((a - cm) / (std::sqrt(2.0) * s));
  }
  // 1D heat kernel: amplitude falls as width/s while the integral is conserved.
  return (p_.width / s) * s * std::sqrt(kPi / 2.0) * sum / dx;
}

double AdvectionExact::cell_average(int i, int j, int k, double t) const {
  return p_.amplitude * factor(0, i, t) * factor(1, j, t) * factor(2, k, t);
}

AdvectionDiffusion::AdvectionDiffusion(const Deck& deck, Comm comm)
    : GridPhysics("advection", GridParams::from_deck(deck), {{"q", "q"}}, AdvectionParams::from_deck(deck).integrator),
      p_(AdvectionParams::from_deck(deck)) {
  const char* bc[3] = {"grid.bc_x", "grid.bc_y", "grid.bc_z"};
  for (int d = 0; d < 3; ++d)
    STRATUS_INPUT_REQUIRE(gp_.periodic[d],
                          "key '" << bc[d] << "' = 'wall': the advection physics needs periodic boundaries");
  decompose(comm, 2);
}

std::string AdvectionDiffusion::describe() const {
  std::ostringstream os;
  int dims = 0;
  for (int d = 0; d < 3; ++d) dims += grid_.global_n[d] > 1;
  os << "physics: advection-diffusion of a tracer, " << dims << "D\n"
     << describe_grid() << "\n"
     << "velocity: " << p_.velocity[0] << " " << p_.velocity[1] << " " << p_.velocity[2]
     << " m/s, diffusivity: " << p_.kappa << " m^2/s\n"
     << "initial: " << (p_.shape == TracerShape::gaussian ? "gaussian" : "sine")
     << ", reconstruction: " << (p_.recon == Reconstruction::centered4 ? "centered4" : "upwind3")
     << ", integrator: " << rk_name(p_.integrator) << ", cfl: " << p_.cfl << "\n"
     << "stable time step: " << stable_dt() << " s";
  return os.str();
}

double AdvectionDiffusion::memory_bytes() const { return grid_memory_bytes(1.0); }

double AdvectionDiffusion::stable_dt() const {
  // Advection: the centred 4th-order operator's largest eigenvalue is about 1.37 u/dx, inside the RK
  // stability regions for cfl <= 1; diffusion: 16/3 kappa/dx^2 per direction on the negative real axis.
  double adv = 0.0, dif = 0.0;
  for (int d = 0; d < 3; ++d) {
    if (grid_.global_n[d] == 1) continue;
    adv += std::abs(p_.velocity[d]) / grid_.dx[d];
    dif += 4.0 * p_.kappa / (grid_.dx[d] * grid_.dx[d]);
  }
  const double rate = adv + dif;
  return rate > 0.0 ? p_.cfl / rate : 1e30;
}

void AdvectionDiffusion::set_initial_state() {
  // Set-up on the host: exact cell averages (erf is not portable to every device math library).
  auto h = Kokkos::create_mirror_view(state_);
  AdvectionExact exact(p_, grid_);
  for (int k = grid_.ng[2]; k < grid_.ng[2] + grid_.n[2]; ++k)
    for (int j = grid_.ng[1]; j < grid_.ng[1] + grid_.n[1]; ++j)
      for (int i = grid_.ng[0]; i < grid_.ng[0] + grid_.n[0]; ++i) h(0, k, j, i) = exact.cell_average(i, j, k, 0.0);
  Kokkos::deep_copy(state_, h);
}

void AdvectionDiffusion::rhs(const Field4D& q, const Field4D& dqdt) const {
  const LocalGrid g = grid_;
  const Real3 u = p_.velocity;
  const double kappa = p_.kappa;
  const bool centered = p_.recon == Reconstruction::centered4;
  const bool ax = g.global_n[0] > 1, ay = g.global_n[1] > 1, az = g.global_n[2] > 1;
  const double ix = 1.0 / g.dx[0], iy = 1.0 / g.dx[1], iz = 1.0 / g.dx[2];
  for_each_cell(
      "advection::rhs", g, KOKKOS_LAMBDA(int i, int j, int k) {
        double r = 0.0;
        if (ax) {
          const double fr = face_flux(q(0, k, j, i - 1), q(0, k, j, i), q(0, k, j, i + 1), q(0, k, j, i + 2), u[0],
                                      kappa, ix, centered);
          const double fl = face_flux(q(0, k, j, i - 2), q(0, k, j, i - 1), q(0, k, j, i), q(0, k, j, i + 1), u[0],
                                      kappa, ix, centered);
          r -= (fr - fl) * ix;
        }
        if (ay) {
          const double fr = face_flux(q(0, k, j - 1, i), q(0, k, j, i), q(0, k, j + 1, i), q(0, k, j + 2, i), u[1],
                                      kappa, iy, centered);
          const double fl = face_flux(q(0, k, j - 2, i), q(0, k, j - 1, i), q(0, k, j, i), q(0, k, j + 1, i), u[1],
                                      kappa, iy, centered);
          r -= (fr - fl) * iy;
        }
        if (az) {
          const double fr = face_flux(q(0, k - 1, j, i), q(0, k, j, i), q(0, k + 1, j, i), q(0, k + 2, j, i), u[2],
                                      kappa, iz, centered);
          const double fl = face_flux(q(0, k - 2, j, i), q(0, k - 1, j, i), q(0, k, j, i), q(0, k + 1, j, i), u[2],
                                      kappa, iz, centered);
          r -= (fr - fl) * iz;
        }
        dqdt(0, k, j, i) = r;
      });
}

void AdvectionDiffusion::advance(const Clock& clock, double dt) {
  rk_->step(
      state_, clock.time, dt, [this](const Field4D& q, double, const Field4D& dqdt) { rhs(q, dqdt); },
      [this](const Field4D& q, double) { halo_->exchange(q); });
}

void AdvectionDiffusion::declare_diagnostics(DiagnosticsPlan& plan) {
  const double vol = grid_.cell_volume();
  auto volume = [vol](double s, double) { return s * vol; };
  plan.sum("mass", volume);
  plan.hidden_sum("abs_mass", volume);  // the scale of d_mass (a sine's mass is 0)
  plan.relative_change("d_mass", "mass", "abs_mass");
  plan.min("q_min");
  plan.max("q_max");
  plan.error_norms(work_per_step());
  // Courant number of the step just taken: sum over active directions of |u_d| dt / dx_d.
  double rate = 0.0;
  for (int d = 0; d < 3; ++d)
    if (grid_.global_n[d] > 1) rate += std::abs(p_.velocity[d]) / grid_.dx[d];
  plan.derived("cfl", [rate](const Diagnostics&, double dt) { return dt * rate; });
}

void AdvectionDiffusion::reduce_diagnostics(const Clock& clock, double, LocalReductions& local) {
  // The exact solution is a product of one factor per direction: tabulate the factors on the host
  // (nx + ny + nz evaluations), then compare cell by cell on the device. No field leaves the device.
  const AdvectionExact exact(p_, grid_);
  Kokkos::View<double*, MemSpace> f[3];
  for (int d = 0; d < 3; ++d) {
    f[d] = Kokkos::View<double*, MemSpace>("advection::exact_factor", grid_.extent(d));
    auto h = Kokkos::create_mirror_view(f[d]);
    for (int idx = 0; idx < static_cast<int>(h.extent(0)); ++idx)
      h(idx) = (d == 0 ? p_.amplitude : 1.0) * exact.factor(d, idx, clock.time);
    Kokkos::deep_copy(f[d], h);
  }
  const auto fx = f[0], fy = f[1], fz = f[2];
  const auto q = state_;
  Slots<7> r;
  reduce_cells(
      "advection::diagnostics", grid_,
      KOKKOS_LAMBDA(int i, int j, int k, Slots<7>& a) {
        const double v = q(0, k, j, i);
        a.add(0, v);
        a.add(1, v < 0.0 ? -v : v);
        a.lower(2, v);
        a.raise(3, v);
        const double e = v - fx(i) * fy(j) * fz(k), ae = e < 0.0 ? -e : e;
        a.add(4, ae);
        a.add(5, e * e);
        a.raise(6, ae);
      },
      SlotReducer<7>(local.ops, r));
  local.assign(r);
}

std::optional<GridFields> AdvectionDiffusion::grid_fields() {
  return GridFields{decomp_.get(), grid_, state_, {GridVariable{"q", "tracer", 0}}};
}

}  // namespace stratus::climate
