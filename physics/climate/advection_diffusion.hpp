// Advection-diffusion of a passive tracer q [tracer unit] in 1D, 2D or 3D on a periodic grid:
//   dq/dt + div(u q) = kappa lap(q),  u constant [m/s], kappa constant [m^2/s].
// Explicit finite volume on cell averages: face values by 4th-order centred or 3rd-order upwind-biased
// reconstruction, face gradients by the 4th-order formula, a Runge-Kutta stepper from solvers/time,
// halo width 2. Both initial conditions (a Gaussian, a product of sine modes) have exact solutions,
// which initialise the cell averages exactly and give the error norms in the diagnostics. This is the
// smoke test of the runtime, decomposition, halo, stepper and output; walls are not supported.
#pragma once
#include <memory>

#include "comm/grid_halo.hpp"
#include "climate/advection_diffusion_options.hpp"
#include "domain/grid_options.hpp"
#include "driver/simulation.hpp"
#include "time/runge_kutta.hpp"

namespace stratus::climate {



/// The exact cell average of the solution at time t over the cell [a, b] (per direction), evaluated on
/// the host. Directions with one global cell do not vary.
class AdvectionExact {
 public:
  AdvectionExact(const AdvectionParams& p, const LocalGrid& g) : p_(p), g_(g) {}
  /// Cell average of the owned cell with array indices (i, j, k) at time t.
  double cell_average(int i, int j, int k, double t) const;
  /// The solution is amplitude * factor(0, i) * factor(1, j) * factor(2, k): the factor of direction d for
  /// array index idx (ghosts included) at time t; 1 in a direction with one global cell.
  double factor(int d, int idx, double t) const;

 private:
  AdvectionParams p_;
  LocalGrid g_;
};

class AdvectionDiffusion : public Simulation {
 public:
  AdvectionDiffusion(const Deck& deck, MPI_Comm comm);
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

  /// The tracer field (var 0), ghosts included (tests).
  const Field4D& state() const { return q_; }
  const LocalGrid& grid() const { return grid_; }
  /// L1, L2 and max-norm errors of the owned cell averages against the exact solution (collective).
  std::array<double, 3> error_norms() const;

  // Members that launch kernels are public: CUDA forbids extended lambdas in private member functions.
  /// dq/dt of q (ghosts of q must be filled) into dqdt's owned cells.
  void rhs(const Field4D& q, const Field4D& dqdt) const;
  /// Collective: signed and absolute tracer mass, sum of q dV over owned cells.
  std::array<double, 2> tracer_mass() const;

 private:
  GridParams gp_;
  AdvectionParams p_;
  std::unique_ptr<CartDecomp> decomp_;
  LocalGrid grid_;
  std::unique_ptr<GridHalo> halo_;
  std::unique_ptr<RungeKutta> rk_;
  Field4D q_;
  double time_ = 0.0;
  long step_ = 0;
  double mass_initial_ = 0.0;  // signed tracer mass at t = 0
  double mass0_ = 0.0;         // absolute tracer mass at t = 0: the scale of d_mass (the sine's mass is 0)
};

}  // namespace stratus::climate
