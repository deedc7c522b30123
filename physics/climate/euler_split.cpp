// Compressible Euler: one stage of the dimensionally split step, out = init + dt L_dir(s), in two forms
// that give the same bits.
//  - Line kernels (CPUs): one pass over memory per stage. A task owns a run of up to kChunk cells along
//    x; along x it evaluates the kChunk + 1 face fluxes of its run into a local buffer and updates the run,
//    along y and z it walks the line of runs, carrying the face below from one level to the next, so that
//    every face flux (the costly part: the equation of state) is evaluated once and no flux or tendency
//    array goes through memory. The face loops and the update loops vectorise.
//    The face loops take the pressure perturbation from its series (euler_flux::Eos::series) and evaluate
//    a run again in the exact form where a face lies beyond the series' bound (the same bits as exact).
//  - Flux kernels (GPUs, one thread per face or cell): the face fluxes into flux_, then a fused update.
// Both evaluate every face from the same operands in the same order as Euler::tendency, so the update is
// conservative to the last bit and the two forms agree bit for bit (tested).
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include "climate/euler.hpp"
#include "climate/euler_cases.hpp"
#include "climate/euler_flux.hpp"
#include "climate/euler_line_kernels.hpp"
#include "core/error.hpp"
#include "core/reduction.hpp"
#include "core/timer.hpp"

namespace stratus::climate {

using namespace euler_const;

void Euler::face_fluxes(const Field4D& s, int dir, double hv_dt) const {
  STRATUS_REQUIRE(flux_.extent(0) > 0, "Euler::face_fluxes before the flux field was allocated (set_line_kernels)");
  const LocalGrid g = grid_;
  const double inv_dx = 1.0 / g.dx[dir];
  const double hv = fv::hyperviscosity(p_.hv_beta, g.dx[dir], hv_dt);
  const double nu = p_.nu, kappa = p_.kappa;
  const auto hc = hy_dens_cell_, htc = hy_dens_theta_cell_, hpc = hy_pressure_cell_;
  const Field4D F = flux_;
  // The faces below/left of every owned cell and the one past the last: the owned cells of a grid one
  // cell longer along dir.
  LocalGrid faces = g;
  faces.n[dir] += 1;
  if (dir < 2) {
    const int di = dir == 0, dj = dir == 1;
    for_each_cell(
        dir == 0 ? "euler::flux_x" : "euler::flux_y", faces, KOKKOS_LAMBDA(int i, int j, int k) {
          double f[kEulerVars];
          euler_flux::horizontal_flux(s, k, j, i, di, dj, hc(k), htc(k), hpc(k), hv, nu, kappa, inv_dx, f);
          for (int v = 0; v < kEulerVars; ++v) F(v, k, j, i) = f[v];
        });
  } else {
    const auto hi = hy_dens_int_, hti = hy_dens_theta_int_, hpi = hy_pressure_int_;
    const int kw_lo = g.offset[2] == 0 ? g.ng[2] : -1;  // array index of a wall face, if this rank has one
    const int kw_hi = g.offset[2] + g.n[2] == g.global_n[2] ? g.ng[2] + g.n[2] : -1;
    for_each_cell(
        "euler::flux_z", faces, KOKKOS_LAMBDA(int i, int j, int k) {
          double f[kEulerVars];
          euler_flux::vertical_flux(s, k, j, i, hi(k), hti(k), hpi(k), k == kw_lo || k == kw_hi, hv, nu, kappa,
                                    inv_dx, hc, htc, f);
          for (int v = 0; v < kEulerVars; ++v) F(v, k, j, i) = f[v];
        });
  }
}

bool Euler::fused_sweep(int dir) const {
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
  if (!line_kernels_ || p_.splitting != EulerSplitting::alternating || grid_.global_n[dir] <= 1 ||
      euler_cases()[static_cast<std::size_t>(p_.test)].inflow)
    return false;
  // Not cut: x and y periodic within the rank (each task wraps its ghosts), z between the walls (the
  // constructor requires both).
  if (decomp_->dims()[dir] == 1) return dir < 2 ? decomp_->periodic(dir) : !decomp_->periodic(2);
  // Cut along y or z: deep_exchange's 3 ng levels must come from the neighbour's owned cells, so every
  // rank holds at least that many (a block has global_n / dims cells or one more).
  return dir > 0 && grid_.global_n[dir] / decomp_->dims()[dir] >= 3 * grid_.ng[dir];
#else
  (void)dir;
  return false;
#endif
}

#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
void Euler::deep_exchange(int dir) {
  ScopedPhase phase(Phase::communication);  // the run report's phase of the halo exchanges it replaces
  const LocalGrid g = grid_;
  const int levels = 3 * g.ng[dir], nx = g.n[0], nl = g.n[dir], l0 = g.ng[dir];
  const int across = dir == 2 ? g.n[1] : g.n[2];
  const long side = static_cast<long>(levels) * kEulerVars * across * nx;
  STRATUS_REQUIRE(static_cast<long>(deep_send_.extent(0)) >= 2 * side,
                  "Euler::deep_exchange before its buffers were allocated (allocate_work)");
  const int below = decomp_->neighbor(0, dir == 1 ? -1 : 0, dir == 2 ? -1 : 0);  // MPI_PROC_NULL at a wall
  const int above = decomp_->neighbor(0, dir == 1 ? 1 : 0, dir == 2 ? 1 : 0);
  constexpr int kDownTag = 7201, kUpTag = 7202;  // the direction the levels travel
  const MPI_Comm comm = decomp_->comm();
  double* const send = deep_send_.data();
  double* const recv = deep_recv_.data();
  MPI_Request reqs[4];
  STRATUS_MPI_CHECK(MPI_Irecv(recv, static_cast<int>(side), MPI_DOUBLE, below, kUpTag, comm, &reqs[0]));
  STRATUS_MPI_CHECK(MPI_Irecv(recv + side, static_cast<int>(side), MPI_DOUBLE, above, kDownTag, comm, &reqs[1]));
  // The lowest `levels` owned levels go down, the highest up: [side][level][variable][line across][x].
  const Field4D s = state_;
  Kokkos::parallel_for(
      "euler::deep_pack", Flat(0, 2 * levels * kEulerVars * across), KOKKOS_LAMBDA(int n) {
        const int line = n % across, v = n / across % kEulerVars, e = n / across / kEulerVars % levels;
        const int up = n / across / kEulerVars / levels;
        const int l = up ? l0 + nl - levels + e : l0 + e;
        const int t = (dir == 2 ? g.ng[1] : g.ng[2]) + line;
        const double* from = dir == 2 ? &s(v, l, t, g.ng[0]) : &s(v, t, l, g.ng[0]);
        double* to = send + static_cast<long>(n) * nx;
        for (int q = 0; q < nx; ++q) to[q] = from[q];
      });
  Kokkos::fence();
  STRATUS_MPI_CHECK(MPI_Isend(send, static_cast<int>(side), MPI_DOUBLE, below, kDownTag, comm, &reqs[2]));
  STRATUS_MPI_CHECK(MPI_Isend(send + side, static_cast<int>(side), MPI_DOUBLE, above, kUpTag, comm, &reqs[3]));
  STRATUS_MPI_CHECK(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
}
#endif

#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
namespace {
// Cells along x per task of a fused y or z sweep: its run of the state and `lines` buffers (2 for the
// stages between, and across a cut the state's copy), lines of nl levels (and ghosts) of nv variables,
// within about 5 MiB; a multiple of 16 doubles, 16 to kChunk.
// On the development machine (AMD Zen 4, 1 MiB L2 a core, 1 thread per rank), in cell-updates/s: 3D
// 128^3 1.61e7 / 1.78e7 / 1.84e7 at 32 / 64 / 128 cells; 2D 400 x 200 3.3e7 / 3.5e7 / 3.6e7; 2D
// 2048 x 1024 (1024 levels) 2.57e7 / 2.75e7 / 2.57e7 / 2.37e7 at 32 / 48 / 64 / 96, and 2.2-2.5e7 at
// 40 and 56 (rows not a multiple of 128 bytes).
int fused_line_chunk(int nl, int nv, int lines) {
  const double per_cell = 8.0 * nv * ((lines + 1.0) * nl + 8.0);
  const int c = static_cast<int>(5.0 * 1024.0 * 1024.0 / per_cell) / 16 * 16;
  return std::max(16, std::min(kChunk, c));
}

template <bool V, bool Visc>
void fused_sweep_kernel(int dir, const EulerStageArgs& a, const double (&dts)[3], const double (&hvs)[3], int chunk,
                        const double* deep) {
  if (dir == 0)
    euler_sweep_x<V, Visc>(a, dts, hvs);
  else if (dir == 1)
    euler_sweep_line<V, 1, Visc>(a, dts, hvs, chunk, deep);
  else
    euler_sweep_line<V, 2, Visc>(a, dts, hvs, chunk, deep);
}
}  // namespace
#endif

void Euler::split_sweep(int dir, double dt, bool v_active) {
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
  // Along x or y periodic within this rank, z between walls on one rank, or y or z cut across ranks with
  // the levels of deep_exchange (no inflow): the three stages in one pass over the rows or lines.
  if (fused_sweep(dir)) {
    const bool cut = decomp_->dims()[dir] > 1;
    if (cut) deep_exchange(dir);
    const double dts[3] = {dt / 3.0, dt / 2.0, dt};
    const double hvs[3] = {fv::hyperviscosity(p_.hv_beta, grid_.dx[dir], dts[0]),
                           fv::hyperviscosity(p_.hv_beta, grid_.dx[dir], dts[1]),
                           fv::hyperviscosity(p_.hv_beta, grid_.dx[dir], dts[2])};
    const EulerStageArgs a = stage_args(state_, state_, state_, dt, dir, true);
    const bool visc = p_.nu > 0.0 || p_.kappa > 0.0;
    const int chunk = fused_line_chunk(grid_.n[dir], v_active ? kEulerVars : kEulerVars - 1, cut ? 3 : 2);
    const double* deep = cut ? deep_recv_.data() : nullptr;
    if (v_active)
      visc ? fused_sweep_kernel<true, true>(dir, a, dts, hvs, chunk, deep)
           : fused_sweep_kernel<true, false>(dir, a, dts, hvs, chunk, deep);
    else
      visc ? fused_sweep_kernel<false, true>(dir, a, dts, hvs, chunk, deep)
           : fused_sweep_kernel<false, false>(dir, a, dts, hvs, chunk, deep);
    return;
  }
#endif
  STRATUS_REQUIRE(tmp_.extent(0) > 0, "Euler::split_sweep a stage at a time without its stage fields (allocate_work)");
  split_stage(state_, state_, tmp_, dt / 3.0, dir, v_active);
  split_stage(state_, tmp_, tmp2_, dt / 2.0, dir, v_active);
  split_stage(state_, tmp2_, state_, dt, dir, v_active);
}

#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
EulerStageArgs Euler::stage_args(const Field4D& init, const Field4D& s, const Field4D& out, double dt, int dir,
                                 bool wrap) const {
  const LocalGrid g = grid_;
  return EulerStageArgs{init,
                        s,
                        out,
                        hy_dens_cell_,
                        hy_dens_theta_cell_,
                        hy_pressure_cell_,
                        hy_dens_int_,
                        hy_dens_theta_int_,
                        hy_pressure_int_,
                        g,
                        dt,
                        fv::hyperviscosity(p_.hv_beta, g.dx[dir], dt),
                        p_.nu,
                        p_.kappa,
                        1.0 / g.dx[dir],
                        g.offset[2] == 0 ? g.ng[2] : kNoWall,
                        g.offset[2] + g.n[2] == g.global_n[2] ? g.ng[2] + g.n[2] : kNoWall,
                        wrap};
}
#endif

void Euler::split_stage(const Field4D& init, const Field4D& s, const Field4D& out, double dt, int dir, bool v_active) {
  const LocalGrid g = grid_;
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
  if (line_kernels_) {
    // Along y periodic within this rank, the stage kernel copies the ghosts it reads: the exchange's
    // copies of two cells per row cost 9 % of a 3D step at 128^3 (their rows went through the cache once
    // more). Along x periodic within the rank split_sweep never comes here (euler_sweep_x wraps its rows).
    const bool wrap = dir == 1 && decomp_->dims()[1] == 1 && decomp_->periodic(1);
    if (!wrap) fill_ghosts(s, dir);  // a sweep along dir reads no other ghosts
    const EulerStageArgs a = stage_args(init, s, out, dt, dir, wrap);
    // Without viscosity and diffusivity (the common case) the kernels carry no viscous terms.
    if (p_.nu > 0.0 || p_.kappa > 0.0)
      line_stage<true>(a, dir, v_active);
    else
      line_stage<false>(a, dir, v_active);
    return;
  }
#endif
  fill_ghosts(s, dir);  // a sweep along dir reads no other ghosts
  (void)v_active;  // the flux kernels carry v along in every run
  face_fluxes(s, dir, dt);
  const Field4D F = flux_;
  const double inv_dx = 1.0 / g.dx[dir];
  const int di = dir == 0, dj = dir == 1, dk = dir == 2;
  for_each_cell(
      "euler::flux_update", g, KOKKOS_LAMBDA(int i, int j, int k) {
        for (int v = 0; v < kEulerVars; ++v)
          out(v, k, j, i) = init(v, k, j, i) + dt * euler_flux::flux_divergence(F, s, v, k, j, i, di, dj, dk, inv_dx);
      });
}

bool Euler::v_momentum_zero() const {
  if (grid_.global_n[1] > 1) return false;
  const Field4D s = state_;
  double m = 0.0;
  reduce_cells(
      "euler::v_zero", grid_,
      KOKKOS_LAMBDA(int i, int j, int k, double& count) { count += s(kVmom, k, j, i) != 0.0 ? 1.0 : 0.0; }, m);
  return global_max(decomp_->comm(), m) == 0.0;
}

}  // namespace stratus::climate
