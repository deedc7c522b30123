// Compressible Euler: set-up (the background and the initial state of the case), boundaries, the
// tendencies and the split and unsplit time steps.
#include "climate/euler.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "climate/euler_cases.hpp"
#include "climate/euler_flux.hpp"
#include "core/error.hpp"

namespace stratus::climate {

using namespace euler_const;

namespace {
// 3-point Gauss-Legendre quadrature on [0, 1].
constexpr double kQp[3] = {0.112701665379258311482073460022, 0.5, 0.887298334620741688517926539980};
constexpr double kQw[3] = {0.277777777777777777777777777779, 0.444444444444444444444444444444,
                           0.277777777777777777777777777779};
}  // namespace

// ------------------------------------------------------------------ set-up
Euler::Euler(const Deck& deck, Comm comm)
    : GridPhysics("euler", GridParams::from_deck(deck),
                  {{"rho_prime", "rho'"}, {"rho_u", "rho_u"}, {"rho_v", "rho_v"}, {"rho_w", "rho_w"},
                   {"rho_theta_prime", "rho_theta'"}},
                  EulerParams::from_deck(deck).splitting == EulerSplitting::unsplit ? std::optional(RKMethod::ssprk3)
                                                                                     : std::nullopt),
      p_(EulerParams::from_deck(deck)) {
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
  decompose(comm, 2);
}

std::string Euler::describe() const {
  std::ostringstream os;
  const bool three_d = grid_.global_n[1] > 1;
  os << "physics: compressible Euler (dry, non-hydrostatic), " << (three_d ? "3D" : "2D x-z") << ", case "
     << euler_cases()[static_cast<std::size_t>(p_.test)].name << "\n"
     << describe_grid() << "\n"
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
  // The state, the stage fields and the flux field where the run needs them or has them, the output
  // fields (6), deep_exchange's buffers.
  const bool flux = uses_flux_kernels() || flux_.extent(0) > 0;
  const bool stages = needs_stage_fields() || tmp_.extent(0) > 0;
  const double deep = static_cast<double>(std::max<long>(deep_buffer_size(), static_cast<long>(deep_send_.extent(0))));
  return grid_memory_bytes((1 + (stages ? 2 : 0) + (flux ? 1 : 0)) * kEulerVars + 6) + 2.0 * 8.0 * deep;
}

void Euler::set_line_kernels(bool on) {
  line_kernels_ = on;
  if (state_.extent(0) > 0) allocate_work();  // after the state was set; set_initial_state does it before
}

void Euler::allocate_work() {
  if (uses_flux_kernels() && flux_.extent(0) == 0) flux_ = grid_.allocate("euler::flux", kEulerVars);
  if (needs_stage_fields() && tmp_.extent(0) == 0) {
    tmp_ = grid_.allocate("euler::tmp", kEulerVars);
    tmp2_ = grid_.allocate("euler::tmp2", kEulerVars);
  }
  const long deep = deep_buffer_size();
  if (deep > static_cast<long>(deep_send_.extent(0))) {
    deep_send_ = Kokkos::View<double*, MemSpace>("euler::deep_send", deep);
    deep_recv_ = Kokkos::View<double*, MemSpace>("euler::deep_recv", deep);
  }
}

bool Euler::needs_stage_fields() const {
  if (p_.splitting != EulerSplitting::alternating) return false;
  for (int d = 0; d < 3; ++d)
    if (grid_.global_n[d] > 1 && !fused_sweep(d)) return true;
  return false;
}

long Euler::deep_buffer_size() const {
  long most = 0;
  for (int d = 1; d < 3; ++d)
    if (fused_sweep(d) && decomp_->dims()[d] > 1) {
      const int across = d == 2 ? grid_.n[1] : grid_.n[2];
      most = std::max(most, 2L * 3 * grid_.ng[d] * kEulerVars * across * grid_.n[0]);
    }
  return most;
}

std::optional<GridFields> Euler::checkpoint_fields() {
  v_active_ = -1;  // a restart fills the state through these fields
  return GridPhysics::checkpoint_fields();
}

void Euler::set_initial_state() {
  v_active_ = -1;
  tmp_ = tmp2_ = flux_ = Field4D();
  // The CPU line kernels of the split step carry their fluxes in the cache, and where a sweep is one
  // pass, its stages too.
  allocate_work();
  const EulerCaseDef& c = euler_cases()[static_cast<std::size_t>(p_.test)];

  // Background, on the host: cell averages by quadrature, and point values at the faces. The arrays run
  // kHyPad levels past the ghosts at each end (by the same formula, from the global height), which a
  // fused sweep across a cut along z reads where it takes its stages into the neighbour's levels.
  const int nk = grid_.extent(2), pad = hydrostatic_pad();
  hy_padded_ = Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>("euler::hydrostatic", 6, nk + 1 + 2 * pad);
  auto hp = Kokkos::create_mirror_view(hy_padded_);
  // Row r at array index k (-pad <= k < nk + pad, and k = nk + pad for the face arrays).
  auto hyd = [&](int r, int k) -> double& { return hp(r, k + pad); };
  const double dz = grid_.dx[2];
  auto height_of_face = [&](int k) { return (grid_.offset[2] + k - grid_.ng[2]) * dz; };
  // The background at the 3 quadrature heights of every level, kept for the initial state below: it does
  // not vary along x or y (two power laws per point, which evaluated again at every quadrature point of
  // every cell took most of the start of a 3D run).
  std::vector<double> qr(3 * static_cast<std::size_t>(nk)), qt(qr.size());
  for (int k = -pad; k < nk + pad; ++k) {
    double &hc = hyd(0, k), &htc = hyd(1, k);
    hc = htc = 0.0;
    for (int q = 0; q < 3; ++q) {
      double hr, ht;
      euler_background(c, height_of_face(k) + kQp[q] * dz, hr, ht);
      hc += hr * kQw[q];
      htc += hr * ht * kQw[q];
      if (k >= 0 && k < nk) {
        qr[3 * k + q] = hr;
        qt[3 * k + q] = ht;
      }
    }
    hyd(2, k) = euler_flux::pressure(htc);
  }
  for (int k = -pad; k <= nk + pad; ++k) {
    double hr, ht;
    euler_background(c, height_of_face(k), hr, ht);
    hyd(3, k) = hr;
    hyd(4, k) = hr * ht;
    hyd(5, k) = euler_flux::pressure(hr * ht);
  }
  Kokkos::deep_copy(hy_padded_, hp);
  // The arrays the kernels index from array index 0: views into the padded rows.
  auto row = [&](int r, int n) {
    return Kokkos::View<double*, MemSpace>(hy_padded_.data() + r * hy_padded_.stride(0) + pad, n);
  };
  hy_dens_cell_ = row(0, nk);
  hy_dens_theta_cell_ = row(1, nk);
  hy_pressure_cell_ = row(2, nk);
  hy_dens_int_ = row(3, nk + 1);
  hy_dens_theta_int_ = row(4, nk + 1);
  hy_pressure_int_ = row(5, nk + 1);

  // Initial state: cell averages by tensor Gauss-Legendre quadrature (3 points per active direction).
  const CaseDomain dom{gp_.lo, gp_.length, grid_.global_n[1] > 1};
  // Cases that do not vary along y take one y point: the quadrature is then exact, and a 3D run is the
  // 2D run repeated bit for bit in every y slice.
  const bool yq = dom.three_d && !c.y_uniform;
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
              const double hr = qr[3 * k + qz], ht = qt[3 * k + qz];
              Perturbation p;
              c.sample(dom, x, y, z, hr, ht, p);
              h(kDens, k, j, i) += p.rho * wq;
              h(kUmom, k, j, i) += (p.rho + hr) * p.u * wq;
              h(kVmom, k, j, i) += (p.rho + hr) * p.v * wq;
              h(kWmom, k, j, i) += (p.rho + hr) * p.w * wq;
              h(kRhot, k, j, i) += ((p.rho + hr) * (p.theta + ht) - hr * ht) * wq;
            }
      }
  Kokkos::deep_copy(state_, h);
}

// ------------------------------------------------------------------ boundaries
void Euler::fill_ghosts(const Field4D& s, int dir) const {
  (dir >= 0 ? direction_halo(dir) : *halo_).exchange(s);
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
  if (euler_cases()[static_cast<std::size_t>(p_.test)].inflow && g.offset[0] == 0) {
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

// ------------------------------------------------------------------ tendencies
void Euler::tendency(const Field4D& s, int dir, double hv_dt, const Field4D& tend, bool add) const {
  face_fluxes(s, dir, hv_dt);
  const Field4D F = flux_;
  const double inv_dx = 1.0 / grid_.dx[dir];
  const int di = dir == 0, dj = dir == 1, dk = dir == 2;
  for_each_cell(
      "euler::tendency", grid_, KOKKOS_LAMBDA(int i, int j, int k) {
        for (int v = 0; v < kEulerVars; ++v) {
          const double t = euler_flux::flux_divergence(F, s, v, k, j, i, di, dj, dk, inv_dx);
          tend(v, k, j, i) = add ? tend(v, k, j, i) + t : t;
        }
      });
}

void Euler::advance(const Clock& clock, double dt) {
  int dirs[3], nd = 0;
  for (int d = 0; d < 3; ++d)
    if (grid_.global_n[d] > 1) dirs[nd++] = d;
  if (p_.splitting == EulerSplitting::alternating) {
    // miniWeather's step: per direction, three stages dt/3, dt/2, dt; the direction order reverses every
    // step so that the splitting error does not accumulate one way. A stage may not write the state it
    // reads (the line kernels update cells whose neighbours other tasks still read): two registers.
    if (v_active_ < 0) v_active_ = v_momentum_zero() ? 0 : 1;
    const bool v_active = v_active_ == 1;
    for (int n = 0; n < nd; ++n) {
      const int d = clock.step % 2 == 0 ? dirs[n] : dirs[nd - 1 - n];
      split_sweep(d, dt, v_active);
    }
  } else {
    rk_->step(
        state_, clock.time, dt,
        [this, dt, dirs, nd](const Field4D& u, double, const Field4D& dudt) {
          for (int n = 0; n < nd; ++n) tendency(u, dirs[n], dt, dudt, n > 0);
        },
        [this](const Field4D& u, double) { fill_ghosts(u); });
  }
}

double Euler::stable_dt() const {
  if (p_.max_speed > 0.0) {
    return p_.cfl * min_active_dx() / p_.max_speed;
  }
  const double rate = global_max(decomp_->comm(), local_max_wave_rate());
  return rate > 0.0 ? p_.cfl / rate : 1e300;
}

}  // namespace stratus::climate
