// The grid-physics base: set-up of the decomposition, state, halo and stepper, and its defaults.
#include "climate/grid_physics.hpp"

#include <algorithm>
#include <sstream>

#include "core/error.hpp"
#include "domain/field_check.hpp"

namespace stratus::climate {

GridPhysics::GridPhysics(const std::string& name, const GridParams& gp, std::vector<StateVar> vars,
                         std::optional<RKMethod> rk)
    : name_(name), gp_(gp), vars_(std::move(vars)), rk_method_(rk) {}

void GridPhysics::decompose(Comm comm, int ghost) {
  ghost_ = ghost;
  decomp_ = gp_.decompose(comm);
  grid_ = make_local_grid(*decomp_, gp_.lo, gp_.length, ghost);
}

void GridPhysics::initialize() {
  state_ = grid_.allocate(name_ + "::state", nvar());
  halo_ = std::make_unique<GridHalo>(*decomp_, grid_, nvar(), ghost_, false, gp_.transport);
  if (rk_method_) rk_ = std::make_unique<RungeKutta>(*rk_method_, grid_, nvar());
  set_initial_state();
  set_diagnostics_reference();
}

GridHalo& GridPhysics::direction_halo(int d) const {
  auto& h = direction_halo_[static_cast<std::size_t>(d)];
  if (!h) h = std::make_unique<GridHalo>(*decomp_, grid_, nvar(), ghost_, false, gp_.transport, d);
  return *h;
}

std::optional<GridFields> GridPhysics::checkpoint_fields() {
  GridFields f{decomp_.get(), grid_, state_, {}};
  for (int v = 0; v < nvar(); ++v) f.vars.push_back(GridVariable{vars_[static_cast<std::size_t>(v)].name, "", v});
  return f;
}

std::string GridPhysics::cell_position(long long i, long long j, long long k) const {
  const long long idx[3] = {i, j, k};
  const char* axis[3] = {"x", "y", "z"};
  std::ostringstream os;
  bool first = true;
  for (int d = 0; d < 3; ++d) {
    if (grid_.global_n[d] == 1) continue;
    os << (first ? "" : ", ") << axis[d] << " = " << gp_.lo[d] + (idx[d] + 0.5) * grid_.dx[d] << " m";
    first = false;
  }
  return os.str();
}

std::string GridPhysics::locate_nonfinite() {
  const CellLocation c = first_nonfinite(state_, grid_, decomp_->comm());
  if (!c.found) return {};
  std::ostringstream os;
  os << "field '" << vars_[static_cast<std::size_t>(c.var)].label << "' at cell (" << c.global[0] << ", "
     << c.global[1] << ", " << c.global[2] << "), " << cell_position(c.global[0], c.global[1], c.global[2]);
  return os.str();
}

std::vector<std::pair<std::string, std::string>> GridPhysics::history_units() const {
  return {{"d_mass", "1"},  {"d_te", "1"},    {"cfl", "1"},   {"theta_min", "K"}, {"theta_max", "K"},
          {"u_max", "m/s"}, {"w_max", "m/s"}, {"h_min", "m"}, {"h_max", "m"}};
}

double GridPhysics::work_per_step() const {
  return double(grid_.global_n[0]) * grid_.global_n[1] * grid_.global_n[2];
}

std::vector<Simulation::BenchKernel> GridPhysics::bench_kernels() const {
  return {{"halo", "bytes", "one halo exchange of the state"}};
}

double GridPhysics::run_bench_kernel(const std::string& name) {
  STRATUS_REQUIRE(name == "halo", "grid physics has no bench kernel '" << name << "'");
  halo_->exchange(state_);
  return 8.0 * static_cast<double>(nvar()) * static_cast<double>(halo_->cells_per_exchange());
}

double GridPhysics::min_active_dx() const {
  double h = 1e300;
  for (int d = 0; d < 3; ++d)
    if (grid_.global_n[d] > 1) h = std::min(h, grid_.dx[d]);
  return h;
}

std::string GridPhysics::describe_grid() const {
  std::ostringstream os;
  os << "grid: " << grid_.global_n[0] << " x " << grid_.global_n[1] << " x " << grid_.global_n[2]
     << " cells, dx = " << grid_.dx[0] << " " << grid_.dx[1] << " " << grid_.dx[2] << " m, boundaries x "
     << (gp_.periodic[0] ? "periodic" : "wall") << ", y " << (gp_.periodic[1] ? "periodic" : "wall") << ", z "
     << (gp_.periodic[2] ? "periodic" : "wall") << "\n"
     << "decomposition: " << decomp_->describe();
  return os.str();
}

double GridPhysics::grid_memory_bytes(double fields) const {
  const double cells = double(grid_.extent(0)) * grid_.extent(1) * grid_.extent(2);
  // send + receive, an upper bound; twice for the per-direction halos of a split step
  const double halo = 4.0 * 8.0 * nvar() * (cells - double(grid_.owned_cells()));
  const double rk = rk_method_ ? RungeKutta::register_bytes(*rk_method_, grid_, nvar()) : 0.0;
  return 8.0 * cells * fields + halo + rk;
}

}  // namespace stratus::climate
