// Rotating shallow-water equations in conservative finite-volume form on an x-y grid (nz = 1):
//   h_t  + (hu)_x + (hv)_y = 0
//   hu_t + (hu^2/h + g h^2/2)_x + (huv/h)_y = +f hv
//   hv_t + (huv/h)_x + (hv^2/h + g h^2/2)_y = -f hu,    f = f0 + beta (y - y_ref)
// with h the fluid depth [m] over a flat bottom. Face values of (h, hu, hv) by the 4th-order centred
// formula with a centred flux plus miniWeather's hyperviscosity (flux -= hv_coef d3, hv_coef =
// -hv_beta dx / (16 dt)), or a Rusanov (local Lax-Friedrichs) flux on 3rd-order upwind-biased left and
// right states; unsplit Runge-Kutta in time (solvers/time), halo width 2. Boundaries: periodic, or free-slip
// walls (ghosts mirror h and the tangential momentum and negate the normal momentum), so a channel is
// bc_y = wall. Formal order 3 (the hyperviscosity is O(dx^3) at a fixed Courant number; SSP-RK3 is 3rd order).
// Test cases: a linear inertia-gravity wave (exact solution), a geostrophically balanced jet (exact steady
// state) and a dam break.
#pragma once
#include <memory>

#include "climate/grid_physics.hpp"
#include "climate/shallow_water_options.hpp"

namespace stratus::climate {



/// The linear f-plane inertia-gravity wave on a doubly periodic domain, as exact cell averages (host).
/// For k along s with |k| = K and w^2 = f^2 + g H K^2, the linearised equations give
///   eta = A cos(theta), u_s = (A w / (H K)) cos(theta), u_n = (A f / (H K)) sin(theta),
/// theta = k.x - w t, u_s along k and u_n along z x k (the cross-k velocity driven by f).
class ShallowWaterWave {
 public:
  ShallowWaterWave(const ShallowWaterParams& p, const LocalGrid& g);
  double omega() const { return omega_; }
  /// Cell averages of cos(theta) and sin(theta) over the cell with array indices (i, j) at time t.
  void cell_average(int i, int j, double t, double& c, double& s) const;
  /// Cell averages of (eta, H u, H v) (the linear momenta).
  void state(int i, int j, double t, double& eta, double& mu, double& mv) const;
  /// The cell averages of cos(kx x) and sin(kx x) (d = 0, idx = i) or of cos(ky y - w t) and sin(ky y - w t)
  /// (d = 1, idx = j): cos(theta) = cx cy - sx sy and sin(theta) = sx cy + cx sy cell by cell.
  void factor(int d, int idx, double t, double& c, double& s) const;

 private:
  ShallowWaterParams p_;
  LocalGrid g_;
  double k_[2] = {0.0, 0.0};
  double omega_ = 0.0;
};

class ShallowWater : public GridPhysics {
 public:
  ShallowWater(const Deck& deck, Comm comm);
  std::string describe() const override;
  double memory_bytes() const override;
  double stable_dt() const override;
  void advance(const Clock& clock, double dt) override;
  std::optional<GridFields> grid_fields() override;
  std::string divergence(const Diagnostics& d) override;

  const ShallowWaterParams& params() const { return p_; }
  /// Whether the case has an exact solution (wave: the linear wave; jet: its initial state).
  bool has_exact() const { return p_.test != SwCase::dam_break; }

  // Members that launch kernels are public: CUDA forbids extended lambdas in private member functions.
  void set_initial_state() override;
  /// dq/dt of q (ghosts of q filled) into dqdt's owned cells; dt scales the hyperviscosity.
  void rhs(const Field4D& q, const Field4D& dqdt, double dt) const;
  /// Fills the ghost cells of q: halo exchange, then the mirror images at walls.
  void fill_ghosts(const Field4D& q) const;
  /// Collective: max over cells of |u| + sqrt(g h) [m/s].
  double max_wave_speed() const;
  /// One fused reduction: mass, energy, extremes, the wave speed and (wave, jet) the error norms of h.
  void reduce_diagnostics(const Clock& clock, double dt, LocalReductions& local) override;
  /// Derived output fields (h, u, v, eta) into out_.
  void compute_output() const;

 protected:
  void declare_diagnostics(DiagnosticsPlan& plan) override;

 private:
  ShallowWaterParams p_;
  Field4D href_;  // jet: the initial h (its exact steady state)
  Field4D out_;   // h, u, v, eta for snapshots
};

}  // namespace stratus::climate
