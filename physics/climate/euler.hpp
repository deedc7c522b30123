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
#include <string>

#include "climate/euler_options.hpp"
#include "climate/grid_physics.hpp"
#include "core/gpu_paths.hpp"

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

struct EulerStageArgs;  // what a line kernel captures (euler_split.cpp)

class Euler : public GridPhysics {
 public:
  Euler(const Deck& deck, Comm comm);
  std::string describe() const override;
  double memory_bytes() const override;
  double stable_dt() const override;
  void advance(const Clock& clock, double dt) override;
  std::optional<GridFields> grid_fields() override;
  std::optional<GridFields> checkpoint_fields() override;
  double bytes_per_update() const override;
  std::string divergence(const Diagnostics& d) override;

  const EulerParams& params() const { return p_; }

  // Members that launch kernels are public: CUDA forbids extended lambdas in private member functions.
  /// The hydrostatic background and the initial state of the case (euler_cases.cpp).
  void set_initial_state() override;
  /// Fills the ghost cells of s: halo exchange (dir >= 0: only the ghosts along dir, a split sweep's),
  /// then the walls (and the injection inflow).
  void fill_ghosts(const Field4D& s, int dir = -1) const;
  /// Tendency of s along direction dir (0 x, 1 y, 2 z) into tend (owned cells); hv_dt is the dt that
  /// scales the hyperviscosity. With add, adds to tend instead of overwriting it.
  void tendency(const Field4D& s, int dir, double hv_dt, const Field4D& tend, bool add) const;
  /// One stage of the split step along dir: fills s's ghosts along dir (along x or y periodic within the
  /// rank the line kernels copy those they read themselves), then out = init + dt L_dir(s) on owned cells
  /// (euler_split.cpp). out may be init but not s. v_active false: the v momentum is 0 everywhere (x-z
  /// runs) and is neither read nor written.
  void split_stage(const Field4D& init, const Field4D& s, const Field4D& out, double dt, int dir, bool v_active);
  /// The three stages of the split step along dir (dt / 3, dt / 2, dt from the state, into the state):
  /// split_stage three times, or where fused_sweep(dir), with the line kernels, one pass that keeps the
  /// stages between in each task's buffers (the same bits).
  void split_sweep(int dir, double dt, bool v_active);
  /// Whether split_sweep takes the stages along dir in one pass: line kernels, split stepping, no inflow,
  /// and dir not cut across ranks (x and y are periodic, z between walls: each task makes the ghosts it
  /// reads) or y or z cut into blocks of at least 3 ng cells (deep_exchange).
  bool fused_sweep(int dir) const;
  /// Whether some active direction's split sweep takes its stages one at a time, through two state-size
  /// fields (allocated only then).
  bool needs_stage_fields() const;
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
  /// For a fused sweep across a cut along dir (1 or 2): the 3 ng owned levels next to each cut face of
  /// the state, from the neighbours into deep_recv_ (levels below, then above). Collective along dir.
  void deep_exchange(int dir);
#endif
  /// The face fluxes of s along dir into flux_ (the faces below/left of the owned cells and one past).
  void face_fluxes(const Field4D& s, int dir, double hv_dt) const;
  /// Collective: whether the run is x-z and rho_v is 0 in every owned cell of every rank.
  bool v_momentum_zero() const;
  /// Line kernels (one pass per stage, the default on CPUs) or flux kernels (the default on GPUs) for
  /// the split stages; both give the same bits.
  void set_line_kernels(bool on);
  /// This rank's largest (|u_d| + c) / dx_d over owned cells and directions [1/s] (no communication).
  double local_max_wave_rate() const;
  /// Collective: where the largest (|u_d| + c) / dx_d, `top`, is (the lowest global index if several), as text.
  std::string fastest_cell(double top) const;
  /// One fused reduction: mass, total energy, theta' and |w| extremes, the largest wave rate.
  void reduce_diagnostics(const Clock& clock, double dt, LocalReductions& local) override;
  /// Physical fields (rho, u, v, w, theta', p') for output.
  void compute_output(const Field4D& out) const;
  /// GridPhysics' units and the integrals: mass [kg], total energy te [J].
  std::vector<std::pair<std::string, std::string>> history_units() const override {
    auto u = GridPhysics::history_units();
    u.insert(u.end(), {{"mass", "kg"}, {"te", "J"}});
    return u;
  }

 protected:
  void declare_diagnostics(DiagnosticsPlan& plan) override;

 private:
  EulerParams p_;
  // tmp_, tmp2_: the stages between of a sweep taken a stage at a time; allocated only where a split
  // sweep is (needs_stage_fields). flux_: face fluxes of one direction, at the face below/left; allocated
  // only for the flux kernels.
  Field4D tmp_, tmp2_, flux_, out_;
  bool uses_flux_kernels() const {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    return true;  // the line kernels are compiled on CPUs only
#else
    return !line_kernels_ || p_.splitting == EulerSplitting::unsplit;
#endif
  }
  /// Allocates what the kernels the run now takes need and are not there yet: flux_, tmp_ and tmp2_, the
  /// buffers of deep_exchange. Before the step loop (set_initial_state, set_line_kernels), not in it.
  void allocate_work();
  /// Doubles per buffer of deep_exchange (its sends or its receives); 0 where no sweep crosses a cut.
  long deep_buffer_size() const;
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
  /// What a line kernel captures for a stage along dir (euler_split.cpp).
  EulerStageArgs stage_args(const Field4D& init, const Field4D& s, const Field4D& out, double dt, int dir,
                            bool wrap) const;
#endif
  bool line_kernels_ = !gpu_paths();  // compiled on CPUs only
  // Whether the v momentum may be non-zero (-1: not yet known). Found once, at the first split step after
  // the state was set (initial state, restart): in an x-z run a v that is 0 everywhere stays exactly 0
  // (no y fluxes, no source), so the check need not run (a reduction and a host wait) every step.
  int v_active_ = -1;
  // Hydrostatic background, by array index along z (ghosts included): cell averages (and the pressure
  // of the cell-average rho theta, which the horizontal fluxes subtract), and at the face below cell k
  // (index k; the face above the last cell is index extent(2)).
  // They are views into hy_padded_'s rows, which run hydrostatic_pad() levels further at each end.
  Kokkos::View<double*, MemSpace> hy_dens_cell_, hy_dens_theta_cell_, hy_pressure_cell_, hy_dens_int_,
      hy_dens_theta_int_, hy_pressure_int_;
  Kokkos::View<double**, Kokkos::LayoutRight, MemSpace> hy_padded_;
  /// Levels a fused sweep across a cut takes its first stage beyond the ghosts: 2 per later stage, the
  /// ghost width each.
  int hydrostatic_pad() const { return 2 * grid_.ng[2]; }
  // A fused sweep across a cut (deep_exchange): the 3 ng owned levels next to each cut face, sent and
  // received, [side][level][variable][line across][x].
  Kokkos::View<double*, MemSpace> deep_send_, deep_recv_;
};

}  // namespace stratus::climate
