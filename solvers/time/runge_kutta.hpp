// Explicit Runge-Kutta time steppers for grid fields, knowing no physics: the caller supplies the
// right-hand side L(u) over owned cells and a ghost-filling callback (halo exchange + boundary
// conditions), called before every stage. Two methods, each a short coefficient table:
//   ssprk3 - Shu-Osher strong-stability-preserving RK3 (3 stages, 3rd order, registers u, u0, k);
//   lsrk4  - Carpenter-Kennedy (1994) low-storage RK4 (5 stages, 4th order, registers u, du, k).
// Updates touch owned cells only, one pointwise kernel per stage, so results do not depend on the
// decomposition.
#pragma once
#include <functional>
#include <string>

#include "core/types.hpp"
#include "domain/local_grid.hpp"

namespace stratus {

enum class RKMethod { ssprk3, lsrk4 };

const char* rk_name(RKMethod m);
int rk_order(RKMethod m);
int rk_stages(RKMethod m);

class RungeKutta {
 public:
  /// rhs(u, t, dudt): writes dudt on owned cells; u's ghosts are valid when it is called.
  using Rhs = std::function<void(const Field4D& u, double t, const Field4D& dudt)>;
  /// fill(u, t): fills u's ghost cells (halo exchange, boundary conditions).
  using FillGhosts = std::function<void(const Field4D& u, double t)>;

  /// Allocates the stage registers for fields of `nvar` variables on `grid`.
  RungeKutta(RKMethod method, const LocalGrid& grid, int nvar);

  /// Advances u (owned cells) from t to t + dt [time unit of the rhs].
  void step(const Field4D& u, double t, double dt, const Rhs& rhs, const FillGhosts& fill);

  RKMethod method() const { return method_; }
  /// Bytes of stage registers held (memory estimate).
  static double register_bytes(RKMethod method, const LocalGrid& grid, int nvar);

 private:
  RKMethod method_;
  LocalGrid grid_;
  Field4D k_;   // rhs L(u) of the current stage
  Field4D u0_;  // start-of-step copy (ssprk3) or the du accumulator (lsrk4)
};

}  // namespace stratus
