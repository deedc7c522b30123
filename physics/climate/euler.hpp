// Dry compressible non-hydrostatic Euler equations in 2D (x-z, grid.ny = 1) and 3D (x-y-z) on one code
// path, for dynamical-core test cases (miniWeather's numerics, extended to 3D):
//   state (per cell average): rho' [kg/m^3], rho u, rho v, rho w [kg/m^2/s], (rho theta)' [kg K/m^3],
//   perturbations from a hydrostatic background rho_h(z), (rho theta)_h(z) (neutral theta or constant
//   Brunt-Vaisala frequency); p = C0 (rho theta)^gamma; gravity along z.
// Numerics: 4th-order finite-volume face values, hyperviscosity (a 4th-derivative flux scaled so that its
// strength per step does not depend on dt), optional constant viscosity nu and diffusivity kappa
// (Straka's density current), and either miniWeather's dimensionally split 3-stage Runge-Kutta with the
// direction order reversed every step, or an unsplit SSP-RK3. Lateral boundaries periodic, top and bottom
// free-slip walls. Every cell's arithmetic is independent of the decomposition, so fields are bitwise
// identical for any rank count and split.
#pragma once
#include <memory>
#include <string>

#include "comm/grid_halo.hpp"
#include "climate/euler_options.hpp"
#include "domain/grid_options.hpp"
#include "driver/simulation.hpp"
#include "time/runge_kutta.hpp"

namespace stratus::climate {

/// Thermodynamic constants (dry air, miniWeather's values).
namespace euler_const {
constexpr double kGrav = 9.8;                               // [m/s^2]
constexpr double kCp = 1004.0;                              // [J/kg/K]
constexpr double kCv = 717.0;                               // [J/kg/K]
constexpr double kRd = 287.0;                               // [J/kg/K]
constexpr double kP0 = 1.0e5;                               // reference pressure [Pa]
constexpr double kGamma = 1.40027894002789400278940027894;  // cp / cv
constexpr double kC0 = 27.5629410929725921310572974482;     // p = C0 (rho theta)^gamma
}  // namespace euler_const



/// Fields of the state.
enum EulerVar { kDens = 0, kUmom = 1, kVmom = 2, kWmom = 3, kRhot = 4, kEulerVars = 5 };

class Euler : public Simulation {
 public:
  Euler(const Deck& deck, MPI_Comm comm);
  std::string describe() const override;
  double memory_bytes() const override;
  void initialize() override;
  double stable_dt() const override;
  void advance(double dt) override;
  double time() const override { return time_; }
  long step() const override { return step_; }
  Diagnostics diagnostics(double dt) override;
  std::optional<GridFields> grid_fields() override;
  std::optional<GridFields> checkpoint_fields() override;
  void set_clock(long step, double time) override {
    step_ = step;
    time_ = time;
  }
  double work_per_step() const override;
  double bytes_per_update() const override;
  std::string locate_nonfinite() override;
  std::string divergence(const Diagnostics& d) override;

  const Field4D& state() const { return state_; }
  const LocalGrid& grid() const { return grid_; }
  const CartDecomp& decomp() const { return *decomp_; }
  const EulerParams& params() const { return p_; }

  // Members that launch kernels are public: CUDA forbids extended lambdas in private member functions.
  /// Fills the ghost cells of s: halo exchange, then the walls (and the injection inflow).
  void fill_ghosts(const Field4D& s) const;
  /// Tendency of s along direction dir (0 x, 1 y, 2 z) into tend (owned cells); hv_dt is the dt that
  /// scales the hyperviscosity. With add, adds to tend instead of overwriting it.
  void tendency(const Field4D& s, int dir, double hv_dt, const Field4D& tend, bool add) const;
  /// out = init + dt * tend on owned cells.
  void update(const Field4D& init, const Field4D& tend, double dt, const Field4D& out) const;
  /// Collective: total mass [kg] and total energy (kinetic + internal + potential) [J].
  std::array<double, 2> mass_energy() const;
  /// Collective: the largest (|u_d| + c) / dx_d over owned cells and directions [1/s].
  double max_wave_rate() const;
  /// Collective: where the largest (|u_d| + c) / dx_d is (the lowest global index if several), as text.
  std::string fastest_cell() const;
  /// Collective: min and max of theta' [K], and max |w| [m/s].
  std::array<double, 3> theta_w_extremes() const;
  /// Physical fields (rho, u, v, w, theta', p') for output.
  void compute_output(const Field4D& out) const;

 private:
  void semi_discrete_step(const Field4D& init, const Field4D& forcing, const Field4D& out, double dt, int dir);

  GridParams gp_;
  EulerParams p_;
  std::unique_ptr<CartDecomp> decomp_;
  LocalGrid grid_;
  std::unique_ptr<GridHalo> halo_;
  std::unique_ptr<RungeKutta> rk_;
  Field4D state_, tmp_, tend_, flux_, out_;  // flux_: face fluxes of one direction, at the face below/left
  // Hydrostatic background, by array index along z (ghosts included): cell averages, and at the face
  // below cell k (index k; the face above the last cell is index extent(2)).
  Kokkos::View<double*, MemSpace> hy_dens_cell_, hy_dens_theta_cell_, hy_dens_int_, hy_dens_theta_int_,
      hy_pressure_int_;
  double time_ = 0.0;
  long step_ = 0;
  double mass0_ = 0.0, te0_ = 0.0;
};

}  // namespace stratus::climate
