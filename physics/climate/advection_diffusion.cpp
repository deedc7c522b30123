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

AdvectionDiffusion::AdvectionDiffusion(const Deck& deck, MPI_Comm comm)
    : gp_(GridParams::from_deck(deck)), p_(AdvectionParams::from_deck(deck)) {
  const char* bc[3] = {"grid.bc_x", "grid.bc_y", "grid.bc_z"};
  for (int d = 0; d < 3; ++d)
    STRATUS_INPUT_REQUIRE(gp_.periodic[d],
                          "key '" << bc[d] << "' = 'wall': the advection physics needs periodic boundaries");
  decomp_ = gp_.decompose(comm);
  grid_ = make_local_grid(*decomp_, gp_.lo, gp_.length, 2);
}

std::string AdvectionDiffusion::describe() const {
  std::ostringstream os;
  int dims = 0;
  for (int d = 0; d < 3; ++d) dims += grid_.global_n[d] > 1;
  os << "physics: advection-diffusion of a tracer, " << dims << "D\n"
     << "grid: " << grid_.global_n[0] << " x " << grid_.global_n[1] << " x " << grid_.global_n[2]
     << " cells, dx = " << grid_.dx[0] << " " << grid_.dx[1] << " " << grid_.dx[2] << " m\n"
     << "decomposition: " << decomp_->describe() << "\n"
     << "velocity: " << p_.velocity[0] << " " << p_.velocity[1] << " " << p_.velocity[2]
     << " m/s, diffusivity: " << p_.kappa << " m^2/s\n"
     << "initial: " << (p_.shape == TracerShape::gaussian ? "gaussian" : "sine")
     << ", reconstruction: " << (p_.recon == Reconstruction::centered4 ? "centered4" : "upwind3")
     << ", integrator: " << rk_name(p_.integrator) << ", cfl: " << p_.cfl << "\n"
     << "stable time step: " << stable_dt() << " s";
  return os.str();
}

double AdvectionDiffusion::memory_bytes() const {
  const double cells = double(grid_.extent(0)) * grid_.extent(1) * grid_.extent(2);
  const double halo = 2.0 * 8.0 * (cells - double(grid_.owned_cells()));  // send + receive, an upper bound
  return 8.0 * cells + RungeKutta::register_bytes(p_.integrator, grid_, 1) + halo;
}

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

void AdvectionDiffusion::initialize() {
  q_ = grid_.allocate("advection::q", 1);
  halo_ = std::make_unique<GridHalo>(*decomp_, grid_, 1, 2, false, gp_.transport);
  rk_ = std::make_unique<RungeKutta>(p_.integrator, grid_, 1);
  // Set-up on the host: exact cell averages (erf is not portable to every device math library).
  auto h = Kokkos::create_mirror_view(q_);
  AdvectionExact exact(p_, grid_);
  for (int k = grid_.ng[2]; k < grid_.ng[2] + grid_.n[2]; ++k)
    for (int j = grid_.ng[1]; j < grid_.ng[1] + grid_.n[1]; ++j)
      for (int i = grid_.ng[0]; i < grid_.ng[0] + grid_.n[0]; ++i) {
        h(0, k, j, i) = exact.cell_average(i, j, k, 0.0);
      }
  Kokkos::deep_copy(q_, h);
  const auto m = tracer_mass();
  mass_initial_ = m[0];
  mass0_ = m[1];
  time_ = 0.0;
  step_ = 0;
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

void AdvectionDiffusion::advance(double dt) {
  rk_->step(
      q_, time_, dt, [this](const Field4D& q, double, const Field4D& dqdt) { rhs(q, dqdt); },
      [this](const Field4D& q, double) { halo_->exchange(q); });
  time_ += dt;
  ++step_;
}

std::array<double, 3> AdvectionDiffusion::error_norms() const {
  // The exact solution is a product of one factor per direction: tabulate the factors on the host
  // (nx + ny + nz evaluations), then compare cell by cell on the device. No field leaves the device.
  const AdvectionExact exact(p_, grid_);
  Kokkos::View<double*, MemSpace> f[3];
  for (int d = 0; d < 3; ++d) {
    f[d] = Kokkos::View<double*, MemSpace>("advection::exact_factor", grid_.n[d] + 2 * grid_.ng[d]);
    auto h = Kokkos::create_mirror_view(f[d]);
    for (int idx = 0; idx < static_cast<int>(h.extent(0)); ++idx)
      h(idx) = (d == 0 ? p_.amplitude : 1.0) * exact.factor(d, idx, time_);
    Kokkos::deep_copy(f[d], h);
  }
  const auto fx = f[0], fy = f[1], fz = f[2];
  const auto q = q_;
  double l1 = 0.0, l2 = 0.0, linf = 0.0;
  reduce_cells(
      "advection::error_l1", grid_,
      KOKKOS_LAMBDA(int i, int j, int k, double& s) {
        const double e = q(0, k, j, i) - fx(i) * fy(j) * fz(k);
        s += e < 0.0 ? -e : e;
      },
      l1);
  reduce_cells(
      "advection::error_l2", grid_,
      KOKKOS_LAMBDA(int i, int j, int k, double& s) {
        const double e = q(0, k, j, i) - fx(i) * fy(j) * fz(k);
        s += e * e;
      },
      l2);
  reduce_cells(
      "advection::error_max", grid_,
      KOKKOS_LAMBDA(int i, int j, int k, double& m) {
        const double e = q(0, k, j, i) - fx(i) * fy(j) * fz(k);
        const double a = e < 0.0 ? -e : e;
        m = a > m ? a : m;
      },
      Kokkos::Max<double>(linf));
  double sums[2] = {l1, l2}, gsums[2] = {0.0, 0.0}, gmax = 0.0;
  MPI_Allreduce(sums, gsums, 2, MPI_DOUBLE, MPI_SUM, decomp_->comm());
  MPI_Allreduce(&linf, &gmax, 1, MPI_DOUBLE, MPI_MAX, decomp_->comm());
  const double n = double(grid_.global_n[0]) * grid_.global_n[1] * grid_.global_n[2];
  return {gsums[0] / n, std::sqrt(gsums[1] / n), gmax};
}

std::array<double, 2> AdvectionDiffusion::tracer_mass() const {
  const LocalGrid g = grid_;
  auto q = q_;
  double sum = 0.0, abs_sum = 0.0;
  reduce_cells(
      "advection::mass", g, KOKKOS_LAMBDA(int i, int j, int k, double& s) { s += q(0, k, j, i); }, sum);
  reduce_cells(
      "advection::abs_mass", g,
      KOKKOS_LAMBDA(int i, int j, int k, double& s) {
        const double v = q(0, k, j, i);
        s += v < 0.0 ? -v : v;
      },
      abs_sum);
  double local[2] = {sum * g.cell_volume(), abs_sum * g.cell_volume()}, global[2] = {0.0, 0.0};
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, decomp_->comm());
  return {global[0], global[1]};
}

Diagnostics AdvectionDiffusion::diagnostics(double dt) {
  const LocalGrid g = grid_;
  auto q = q_;
  double qmin = 0.0, qmax = 0.0;
  reduce_cells(
      "advection::min", g, KOKKOS_LAMBDA(int i, int j, int k, double& m) { m = q(0, k, j, i) < m ? q(0, k, j, i) : m; },
      Kokkos::Min<double>(qmin));
  reduce_cells(
      "advection::max", g, KOKKOS_LAMBDA(int i, int j, int k, double& m) { m = q(0, k, j, i) > m ? q(0, k, j, i) : m; },
      Kokkos::Max<double>(qmax));
  double gmin = 0.0, gmax = 0.0;
  const double mass = tracer_mass()[0];
  MPI_Allreduce(&qmin, &gmin, 1, MPI_DOUBLE, MPI_MIN, decomp_->comm());
  MPI_Allreduce(&qmax, &gmax, 1, MPI_DOUBLE, MPI_MAX, decomp_->comm());
  const auto err = error_norms();
  double courant = 0.0;
  for (int d = 0; d < 3; ++d)
    if (g.global_n[d] > 1) courant += dt * std::abs(p_.velocity[d]) / g.dx[d];
  Diagnostics d;
  d.add("mass", mass);
  d.add("d_mass", mass0_ > 0.0 ? (mass - mass_initial_) / mass0_ : 0.0);
  d.add("q_min", gmin);
  d.add("q_max", gmax);
  d.add("err_l1", err[0]);
  d.add("err_l2", err[1]);
  d.add("err_max", err[2]);
  d.add("cfl", courant);
  return d;
}

std::optional<GridFields> AdvectionDiffusion::checkpoint_fields() {
  return GridFields{decomp_.get(), grid_, q_, {GridVariable{"q", "", 0}}};
}

std::optional<GridFields> AdvectionDiffusion::grid_fields() {
  return GridFields{decomp_.get(), grid_, q_, {GridVariable{"q", "tracer", 0}}};
}

double AdvectionDiffusion::work_per_step() const {
  return double(grid_.global_n[0]) * grid_.global_n[1] * grid_.global_n[2];
}

}  // namespace stratus::climate
