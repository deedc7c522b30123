// Advection-diffusion of a passive tracer q [tracer unit] in 1D, 2D or 3D on a periodic grid:
//   dq/dt + div(u q) = kappa lap(q),  u constant [m/s], kappa constant [m^2/s].
// Explicit finite volume on cell averages: face values by 4th-order centred or 3rd-order upwind-biased
// reconstruction, face gradients by the 4th-order formula, a Runge-Kutta stepper from solvers/time,
// halo width 2. Both initial conditions (a Gaussian, a product of sine modes) have exact solutions,
// which initialise the cell averages exactly and give the error norms in the diagnostics. This is the
// smoke test of the runtime, decomposition, halo, stepper and output; walls are not supported.
#pragma once
#include <memory>

#include "climate/advection_diffusion_options.hpp"
#include "climate/grid_physics.hpp"

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

class AdvectionDiffusion : public GridPhysics {
 public:
  AdvectionDiffusion(const Deck& deck, Comm comm);
  std::string describe() const override;
  double memory_bytes() const override;
  double stable_dt() const override;
  void advance(const Clock& clock, double dt) override;
  std::optional<GridFields> grid_fields() override;

  // Members that launch kernels are public: CUDA forbids extended lambdas in private member functions.
  /// dq/dt of q (ghosts of q must be filled) into dqdt's owned cells.
  void rhs(const Field4D& q, const Field4D& dqdt) const;
  void set_initial_state() override;
  void reduce_diagnostics(const Clock& clock, double dt, LocalReductions& local) override;

 protected:
  void declare_diagnostics(DiagnosticsPlan& plan) override;

 private:
  AdvectionParams p_;
};

}  // namespace stratus::climate
