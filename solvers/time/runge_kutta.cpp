// Runge-Kutta coefficient tables and the per-stage update kernels.
#include "time/runge_kutta.hpp"

#include "core/error.hpp"

namespace stratus {

namespace {
// Carpenter & Kennedy (1994), NASA TM-109112, five-stage fourth-order 2N-storage scheme.
constexpr double kA[5] = {0.0, -567301805773.0 / 1357537059087.0, -2404267990393.0 / 2016746695238.0,
                          -3550918686646.0 / 2091501179385.0, -1275806237668.0 / 842570457699.0};
constexpr double kB[5] = {1432997174477.0 / 9575080441755.0, 5161836677717.0 / 13612068292357.0,
                          1720146321549.0 / 2090206949498.0, 3134564353537.0 / 4481467310338.0,
                          2277821191437.0 / 14882151754819.0};
constexpr double kC[5] = {0.0, 1432997174477.0 / 9575080441755.0, 2526269341429.0 / 6820363266100.0,
                          2006345519317.0 / 3224310063776.0, 2802321613138.0 / 2924317926251.0};
// Shu & Osher (1988): u <- a u0 + b (u + dt L(u)), stage times t + c dt.
constexpr double kSspA[3] = {0.0, 0.75, 1.0 / 3.0};
constexpr double kSspB[3] = {1.0, 0.25, 2.0 / 3.0};
constexpr double kSspC[3] = {0.0, 1.0, 0.5};

}  // namespace

const char* rk_name(RKMethod m) { return m == RKMethod::ssprk3 ? "ssprk3" : "lsrk4"; }
int rk_order(RKMethod m) { return m == RKMethod::ssprk3 ? 3 : 4; }
int rk_stages(RKMethod m) { return m == RKMethod::ssprk3 ? 3 : 5; }

RungeKutta::RungeKutta(RKMethod method, const LocalGrid& grid, int nvar) : method_(method), grid_(grid) {
  k_ = grid.allocate("rk::k", nvar);
  u0_ = grid.allocate(method == RKMethod::ssprk3 ? "rk::u0" : "rk::du", nvar);
}

double RungeKutta::register_bytes(RKMethod method, const LocalGrid& grid, int nvar) {
  const double cells = double(grid.extent(0)) * grid.extent(1) * grid.extent(2);
  (void)method;  // both methods hold two registers besides the state
  return 8.0 * nvar * cells * 2;
}

void RungeKutta::step(const Field4D& u, double t, double dt, const Rhs& rhs, const FillGhosts& fill) {
  const int nv = static_cast<int>(u.extent(0));
  STRATUS_REQUIRE(nv <= static_cast<int>(k_.extent(0)),
                  "RK registers hold " << k_.extent(0) << " variables, field has " << nv);
  auto k = k_;
  if (method_ == RKMethod::ssprk3) {
    auto u0 = u0_;
    Kokkos::deep_copy(u0, u);
    for (int s = 0; s < 3; ++s) {
      fill(u, t + kSspC[s] * dt);
      rhs(u, t + kSspC[s] * dt, k);
      const double a = kSspA[s], b = kSspB[s];
      for_each_cell(
          "rk::ssprk3_stage", grid_, KOKKOS_LAMBDA(int i, int j, int kk) {
            for (int v = 0; v < nv; ++v) {
              const double un = u(v, kk, j, i) + dt * k(v, kk, j, i);
              u(v, kk, j, i) = a == 0.0 ? un : a * u0(v, kk, j, i) + b * un;
            }
          });
    }
  } else {
    auto du = u0_;
    auto l = k_;
    for (int s = 0; s < 5; ++s) {
      fill(u, t + kC[s] * dt);
      rhs(u, t + kC[s] * dt, l);
      const double a = kA[s], b = kB[s];
      for_each_cell(
          "rk::lsrk4_stage", grid_, KOKKOS_LAMBDA(int i, int j, int kk) {
            for (int v = 0; v < nv; ++v) {
              // The first stage has a = 0: do not multiply the previous step's du (it may be anything).
              const double d = (a == 0.0 ? 0.0 : a * du(v, kk, j, i)) + dt * l(v, kk, j, i);
              du(v, kk, j, i) = d;
              u(v, kk, j, i) += b * d;
            }
          });
    }
  }
}

}  // namespace stratus
