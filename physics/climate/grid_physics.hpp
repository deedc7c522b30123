// The base of every grid physics: the decomposition, the local grid, the halo, the Runge-Kutta stepper
// (when the physics uses one) and the prognostic state with its variable names, and the defaults that
// follow from them: checkpoint fields, where a field stops being finite, work per step, the grid lines
// of describe() and memory_bytes(), the smallest active cell size. A physics derived from it keeps only
// its equations: deck checks and the initial state, ghost filling, the tendency, the time step, its
// diagnostics and output fields.
#pragma once
#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "comm/grid_halo.hpp"
#include "domain/grid_options.hpp"
#include "driver/simulation.hpp"
#include "time/runge_kutta.hpp"

namespace stratus::climate {

/// A prognostic variable: its checkpoint dataset name and its name in messages.
struct StateVar {
  std::string name;
  std::string label;
};

class GridPhysics : public Simulation {
 public:
  /// Allocates the state, halo and stepper, sets the initial state (set_initial_state) and records the
  /// reference of the relative-change diagnostics.
  void initialize() override;
  std::optional<GridFields> checkpoint_fields() override;
  std::string locate_nonfinite() override;
  /// Global cells (one update each per step).
  double work_per_step() const override;
  /// The SI units of the climate diagnostics (mass, energies, extremes, relative changes, cfl).
  std::vector<std::pair<std::string, std::string>> history_units() const override;
  /// "halo": one exchange of the whole state (all variables, the physics' ghost width); its work is the
  /// bytes this rank sends.
  std::vector<BenchKernel> bench_kernels() const override;
  double run_bench_kernel(const std::string& name) override;

  const Field4D& state() const { return state_; }
  const LocalGrid& grid() const { return grid_; }
  const CartDecomp& decomp() const { return *decomp_; }
  /// The smallest cell size over the directions with more than one global cell [m].
  double min_active_dx() const;
  /// "x = X m, y = Y m, z = Z m" for the centre of global cell (i, j, k), directions with one cell left out.
  std::string cell_position(long long i, long long j, long long k) const;

 protected:
  /// `name` prefixes kernel and allocation labels; `vars` are the prognostic variables; `rk` the stepper
  /// the physics advances with (none: the physics steps itself).
  GridPhysics(const std::string& name, const GridParams& gp, std::vector<StateVar> vars,
              std::optional<RKMethod> rk = std::nullopt);
  /// Collective: decomposes the grid with ghost width `ghost` (called by the physics after its deck checks).
  void decompose(Comm comm, int ghost);
  Comm communicator() const override { return decomp_->comm(); }
  /// Writes the initial state into state_ (owned cells) at time 0.
  virtual void set_initial_state() = 0;
  /// The grid and decomposition lines of describe().
  std::string describe_grid() const;
  /// Device memory: `fields` arrays of the state's size in doubles per cell, the halo buffers and the
  /// stepper's registers [bytes].
  double grid_memory_bytes(double fields) const;
  int nvar() const { return static_cast<int>(vars_.size()); }
  /// The halo of the face links along direction d alone (collective-free to make).
  GridHalo& direction_halo(int d) const;

  std::string name_;
  GridParams gp_;
  std::vector<StateVar> vars_;
  std::optional<RKMethod> rk_method_;
  int ghost_ = 2;
  std::unique_ptr<CartDecomp> decomp_;
  LocalGrid grid_;
  std::unique_ptr<GridHalo> halo_;
  /// The face links along one direction each (GridHalo's only_direction), made on first use by a
  /// dimensionally split step.
  mutable std::unique_ptr<GridHalo> direction_halo_[3];
  std::unique_ptr<RungeKutta> rk_;
  Field4D state_;
};

}  // namespace stratus::climate
