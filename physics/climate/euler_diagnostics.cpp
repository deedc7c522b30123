// Compressible Euler: diagnostics (one fused reduction), the Courant check, and output fields.
#include <limits>
#include <sstream>

#include "climate/euler.hpp"
#include "climate/euler_flux.hpp"

namespace stratus::climate {

using namespace euler_const;

void Euler::declare_diagnostics(DiagnosticsPlan& plan) {
  const double vol = grid_.cell_volume();
  auto volume = [vol](double s, double) { return s * vol; };
  plan.sum("mass", volume);  // [kg]
  plan.relative_change("d_mass", "mass");
  plan.sum("te", volume);  // kinetic + internal + potential [J]
  plan.relative_change("d_te", "te");
  plan.min("theta_min");  // theta' [K]
  plan.max("theta_max");
  plan.max("w_max");                                                  // max |w| [m/s]
  plan.max("cfl", [](double rate, double dt) { return dt * rate; });  // dt max (|u_d| + c) / dx_d
}

namespace {
/// A cell's contributions to the diagnostics' six slots (mass and total energy densities, theta' twice, |w|,
/// the wave rate) from its state (d, mu, mv, mw, drt) at height z on a level of background hc, htc.
KOKKOS_FORCEINLINE_FUNCTION void diagnostics_cell(double d, double mu, double mv, double mw, double drt, double hc,
                                                  double htc, double z, const euler_flux::WaveRate& rate_of,
                                                  double (&c)[6]) {
  const double rho = d + hc;
  const double u = mu / rho, v = mv / rho, w = mw / rho;
  const double rt = drt + htc;
  // The internal energy rho cv T is cv p / R for this gas (p = rho R T; C0 = R^gamma p0^(-R / cv)): no
  // temperature, and no second power law, per cell.
  const double p = euler_flux::pressure(rt);
  c[0] = rho;
  c[1] = 0.5 * rho * (u * u + v * v + w * w) + (kCv / kRd) * p + rho * kGrav * z;
  c[2] = c[3] = (drt + htc) / (d + hc) - htc / hc;
  c[4] = w < 0 ? -w : w;
  c[5] = rate_of(d, mu, mv, mw, drt, hc, htc);
}

/// Slots 0 .. 5 (each a double&, from slot(s)) take a cell's contributions c by their operations: sums, the
/// minimum and the maxima.
template <class Slot>
KOKKOS_FORCEINLINE_FUNCTION void take_cell(const double (&c)[6], Slot&& slot) {
  slot(0) += c[0];
  slot(1) += c[1];
  slot(2) = c[2] < slot(2) ? c[2] : slot(2);
  for (int s = 3; s < 6; ++s) slot(s) = c[s] > slot(s) ? c[s] : slot(s);
}
}  // namespace

void Euler::reduce_diagnostics(const Clock&, double, LocalReductions& local) {
  const LocalGrid g = grid_;
  const auto s = state_;
  const auto hc = hy_dens_cell_, htc = hy_dens_theta_cell_;
  const double z0 = (g.offset[2] - g.ng[2] + 0.5) * g.dx[2], dz = g.dx[2];
  const euler_flux::WaveRate rate_of(g, p_.splitting == EulerSplitting::unsplit);
  Slots<6> r;
  const SlotReducer<6> reducer(local.ops, r);
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
  if (!gpu_paths()) {
    // A task per row, in chunks: the cells' contributions into a buffer in a loop that vectorises (the
    // power law, the square root and the divisions), then into lanes of partial values. Through
    // reduce_cells the cell loop did not vectorise (GCC unrolls its 8 lanes first), 37 ns a cell. The
    // lanes and their order are reduce_cells' (CellRowsReduce): cell i0 + 8 b + l into lane l, the cells
    // after the last whole block into lane i % 8, each lane in cell order, the lanes joined in order; the
    // same sums to the last bit.
    constexpr int kLanes = 8, kCells = 128;
    const long vs = static_cast<long>(s.stride(0));
    const int nj = g.n[1], i0 = g.ng[0], i1 = g.ng[0] + g.n[0], blocks_end = i0 + g.n[0] / kLanes * kLanes;
    Kokkos::parallel_reduce(
        "euler::diagnostics", Kokkos::RangePolicy<ExecSpace>(0, g.n[1] * g.n[2]),
        KOKKOS_LAMBDA(int row, Slots<6>& a) {
          const int j = g.ng[1] + row % nj, k = g.ng[2] + row / nj;
          const double hck = hc(k), htck = htc(k), z = z0 + k * dz;
          Slots<6> id;
          reducer.init(id);
          double part[6][kLanes];
          for (int t = 0; t < 6; ++t)
            for (int l = 0; l < kLanes; ++l) part[t][l] = id.v[t];
          double buf[6][kCells];
          for (int c0 = i0; c0 < i1; c0 += kCells) {
            const int m = i1 - c0 < kCells ? i1 - c0 : kCells;
            const double* q = &s(0, k, j, c0);
#pragma omp simd
            for (int l = 0; l < m; ++l) {
              double c[6];
              diagnostics_cell(q[l], q[kUmom * vs + l], q[kVmom * vs + l], q[kWmom * vs + l], q[kRhot * vs + l], hck,
                               htck, z, rate_of, c);
              for (int t = 0; t < 6; ++t) buf[t][l] = c[t];
            }
            for (int l = 0; l < m; ++l) {
              const int cell = c0 + l, lane = cell < blocks_end ? (cell - i0) % kLanes : cell % kLanes;
              double c[6];
              for (int t = 0; t < 6; ++t) c[t] = buf[t][l];
              take_cell(c, [&](int slot) -> double& { return part[slot][lane]; });
            }
          }
          for (int l = 0; l < kLanes; ++l) {
            Slots<6> lane;
            for (int t = 0; t < 6; ++t) lane.v[t] = part[t][l];
            reducer.join(a, lane);
          }
        },
        reducer);
    local.assign(r);
    return;
  }
#endif
  reduce_cells(
      "euler::diagnostics", g,
      KOKKOS_LAMBDA(int i, int j, int k, Slots<6>& a) {
        double c[6];
        diagnostics_cell(s(kDens, k, j, i), s(kUmom, k, j, i), s(kVmom, k, j, i), s(kWmom, k, j, i), s(kRhot, k, j, i),
                         hc(k), htc(k), z0 + k * dz, rate_of, c);
        take_cell(c, [&](int slot) -> double& { return a.v[slot]; });
      },
      reducer);
  local.assign(r);
}

double Euler::local_max_wave_rate() const {
  const LocalGrid g = grid_;
  const auto s = state_;
  const auto hc = hy_dens_cell_, htc = hy_dens_theta_cell_;
  const euler_flux::WaveRate rate_of(g, p_.splitting == EulerSplitting::unsplit);
  double rate = 0.0;
  reduce_cells(
      "euler::max_wave_rate", g,
      KOKKOS_LAMBDA(int i, int j, int k, double& m) {
        const double a = rate_of(s, hc(k), htc(k), k, j, i);
        m = a > m ? a : m;
      },
      Kokkos::Max<double>(rate));
  return rate;
}

std::string Euler::fastest_cell(double top) const {
  const LocalGrid g = grid_;
  const auto s = state_;
  const auto hc = hy_dens_cell_, htc = hy_dens_theta_cell_;
  const euler_flux::WaveRate rate_of(g, p_.splitting == EulerSplitting::unsplit);
  const long long nx = g.global_n[0], ny = g.global_n[1];
  const long long none = std::numeric_limits<long long>::max();
  long long first = none;
  reduce_cells(
      "euler::fastest_cell", g,
      KOKKOS_LAMBDA(int i, int j, int k, long long& m) {
        if (rate_of(s, hc(k), htc(k), k, j, i) == top) {  // the same arithmetic: exact
          const long long idx =
              ((g.offset[2] + k - g.ng[2]) * ny + g.offset[1] + j - g.ng[1]) * nx + g.offset[0] + i - g.ng[0];
          m = idx < m ? idx : m;
        }
      },
      Kokkos::Min<long long>(first));
  const long long global = global_min(decomp_->comm(), first);
  if (global == none) return {};
  const long long gi = global % nx, gj = global / nx % ny, gk = global / (nx * ny);
  std::ostringstream os;
  os << "cell (" << gi << ", " << gj << ", " << gk << "), " << cell_position(gi, gj, gk);
  return os.str();
}

std::string Euler::divergence(const Diagnostics& d) {
  const double cfl = d.get("cfl");
  if (cfl > p_.courant_limit) {
      std::ostringstream os;
      // empty only if the two reductions rounded differently
      const std::string where = fastest_cell(global_max(decomp_->comm(), local_max_wave_rate()));
      os << "the Courant number " << cfl << " exceeds euler.courant_limit = " << p_.courant_limit
         << (where.empty() ? "" : " at " + where)
         << " (the flow outran the time step: lower euler.cfl, or raise euler.max_speed)";
      return os.str();
    }
  return {};
}

// ------------------------------------------------------------------ output
namespace {
/// The output fields of one cell (rho, u, v, w, theta', p') from its state (density and rho theta as
/// perturbations of the level's background hc, htc, of pressure hp).
KOKKOS_FORCEINLINE_FUNCTION void output_cell(double d, double mu, double mv, double mw, double drt, double hc,
                                             double htc, double hp, double (&o)[6]) {
  const double r = d + hc;
  const double rt = drt + htc;
  o[0] = r;
  o[1] = mu / r;
  o[2] = mv / r;
  o[3] = mw / r;
  o[4] = rt / r - htc / hc;
  // From the perturbation itself: the difference of two pressures would lose its last digits.
  o[5] = euler_flux::pressure_perturbation(drt, htc, hp);
}
}  // namespace

void Euler::compute_output(const Field4D& out) const {
  const auto s = state_;
  const auto hc = hy_dens_cell_, htc = hy_dens_theta_cell_, hp = hy_pressure_cell_;
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
  if (!gpu_paths()) {
    // A task per row, the row through plain pointers: through the Views' per-cell indexing the compiler
    // gathered and scattered every value (perf), 12 ns a cell, a fifth of a 4 MB snapshot at 2 ranks.
    const LocalGrid g = grid_;
    const int nx = g.n[0], nj = g.n[1];
    const long vs = static_cast<long>(s.stride(0)), os = static_cast<long>(out.stride(0));
    Kokkos::parallel_for(
        "euler::output", Kokkos::RangePolicy<ExecSpace>(0, g.n[1] * g.n[2]), KOKKOS_LAMBDA(int row) {
          const int j = g.ng[1] + row % nj, k = g.ng[2] + row / nj;
          const double* q = &s(0, k, j, g.ng[0]);
          double* o = &out(0, k, j, g.ng[0]);
          const double hck = hc(k), htck = htc(k), hpk = hp(k);
#pragma omp simd
          for (int i = 0; i < nx; ++i) {
            double v[6];
            output_cell(q[kDens * vs + i], q[kUmom * vs + i], q[kVmom * vs + i], q[kWmom * vs + i], q[kRhot * vs + i],
                        hck, htck, hpk, v);
            for (int c = 0; c < 6; ++c) o[c * os + i] = v[c];
          }
        });
    return;
  }
#endif
  for_each_cell(
      "euler::output", grid_, KOKKOS_LAMBDA(int i, int j, int k) {
        double v[6];
        output_cell(s(kDens, k, j, i), s(kUmom, k, j, i), s(kVmom, k, j, i), s(kWmom, k, j, i), s(kRhot, k, j, i),
                    hc(k), htc(k), hp(k), v);
        for (int c = 0; c < 6; ++c) out(c, k, j, i) = v[c];
      });
}

std::optional<GridFields> Euler::grid_fields() {
  if (out_.extent(0) == 0) out_ = grid_.allocate("euler::output", 6);
  compute_output(out_);
  return GridFields{
      decomp_.get(),
      grid_,
      out_,
      {GridVariable{"rho", "kg/m^3", 0}, GridVariable{"u", "m/s", 1}, GridVariable{"v", "m/s", 2},
       GridVariable{"w", "m/s", 3}, GridVariable{"theta_prime", "K", 4}, GridVariable{"p_prime", "Pa", 5}},
      true};  // out_ is written only here
}

double Euler::bytes_per_update() const {
  // What the algorithm must move at least, per cell. Split stepping (line kernels): per stage and active
  // direction, read the stage's state and init and write out, 3 doubles per prognostic variable (4 in
  // x-z runs, whose v momentum is 0 and skipped; 5 in 3D); the face fluxes stay in cache. A sweep that
  // keeps its stages in cache (fused_sweep: along x or y periodic, along z between walls, the direction
  // not cut, or y or z cut into blocks of 6 cells or more) reads the state and writes it once: 2 doubles
  // per variable for its three stages. Unsplit
  // SSP-RK3 (flux kernels): per stage and direction the flux kernel reads the state and writes the fluxes
  // (10), the tendency kernel reads them and writes or adds to the tendency (10, 15), plus the RK update
  // (about 20). Halo traffic and boundary kernels are left out.
  int nd = 0;
  for (int d = 0; d < 3; ++d) nd += grid_.global_n[d] > 1;
  const int nv = grid_.global_n[1] > 1 ? kEulerVars : kEulerVars - 1;
  if (p_.splitting == EulerSplitting::alternating) {
    int fused = 0;
    for (int d = 0; d < 3; ++d) fused += grid_.global_n[d] > 1 && fused_sweep(d);
    return 8.0 * nv * (3 * 3 * (nd - fused) + 2 * fused);
  }
  return 8.0 * 3 * (20 * nd + 5 * (nd - 1) + 20);
}

}  // namespace stratus::climate
