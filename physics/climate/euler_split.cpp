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
#include "core/error.hpp"
#include "core/reduction.hpp"
#include "core/timer.hpp"

namespace stratus::climate {

using namespace euler_const;

#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)  // line kernels: CPUs only
namespace {
// Cells per run: the face fluxes of a run (5 x 129 doubles) stay in L1 with the stencil rows.
constexpr int kChunk = 128;
using Flat = Kokkos::RangePolicy<ExecSpace>;
using Series = std::integral_constant<euler_flux::Eos, euler_flux::Eos::series>;
using Exact = std::integral_constant<euler_flux::Eos, euler_flux::Eos::exact>;
constexpr Series kSeries{};
constexpr Exact kExact{};

// Asks for the kEulerVars rows of m doubles at p (variables vs apart) to be brought into the cache: a hint
// that cannot fault and changes no result. The line kernels issue it for the rows they read or write
// next, so that the memory traffic of those rows overlaps the arithmetic of the face loop instead of
// stalling the update loop (the profile of a z sweep at 128^3 had a third of its time in that loop).
template <bool Write>
KOKKOS_FORCEINLINE_FUNCTION void prefetch_rows(const double* p, long vs, int m) {
  for (int v = 0; v < kEulerVars; ++v)
    for (int q = 0; q < m; q += 8) __builtin_prefetch(p + v * vs + q, Write ? 1 : 0, 3);
}
}  // namespace

// kw_lo / kw_hi where this rank has no wall: below any array index a sweep across a cut reaches.
constexpr int kNoWall = std::numeric_limits<int>::min();

// Everything a stage kernel captures, copied out of the Euler object (no `this` in kernels).
struct EulerStageArgs {
  Field4D init, s, out;
  Kokkos::View<double*, MemSpace> hc, htc, hpc, hi, hti, hpi;
  LocalGrid g;
  double dt, hv, nu, kappa, inv_dx;
  int kw_lo, kw_hi;  // array index of a wall face along z on this rank, or kNoWall
  // The sweep's direction is periodic within this rank: each task copies the two ghost layers it reads
  // from the owned cells they image, in place of a halo exchange.
  bool wrap;
};

// Along a direction periodic within one rank: the two ghost layers below (below) and above (above) the n
// owned cells from array index l0, from the owned cells they image; `at(l)` is the address of the first
// variable of the m cells at index l, variables vs apart.
template <class At>
KOKKOS_FORCEINLINE_FUNCTION void wrap_ghosts(At at, int l0, int n, long vs, int m, bool below, bool above) {
  for (int g = 1; g <= 2; ++g) {
    for (int side = 0; side < 2; ++side) {
      if (!(side == 0 ? below : above)) continue;
      double* to = at(side == 0 ? l0 - g : l0 + n - 1 + g);
      const double* from = at(side == 0 ? l0 + (n - g % n) % n : l0 + (g - 1) % n);
      for (int v = 0; v < kEulerVars; ++v)
        for (int q = 0; q < m; ++q) to[v * vs + q] = from[v * vs + q];
    }
  }
}

// Along x: a task per run of cells of one row, the ghosts filled by the caller (x cut across ranks, or
// an inflow; along x periodic within the rank euler_sweep_x takes the three stages). Rows are addressed
// through plain pointers so that the compiler sees unit strides and vectorises the face and update loops.
template <bool V, bool Visc>
void euler_stage_x(const EulerStageArgs& a) {
  const Field4D init = a.init, s = a.s, out = a.out;
  const auto hc = a.hc, htc = a.htc, hpc = a.hpc;
  const LocalGrid g = a.g;
  const double dt = a.dt, hv = a.hv, nu = a.nu, kappa = a.kappa, inv_dx = a.inv_dx;
  const int nx = g.n[0], ny = g.n[1], runs = (nx + kChunk - 1) / kChunk;
  Kokkos::parallel_for(
      "euler::stage_x", Flat(0, runs * ny * g.n[2]), KOKKOS_LAMBDA(int n) {
        const int c = n % runs, row = n / runs;
        const int j = g.ng[1] + row % ny, k = g.ng[2] + row / ny;
        const int i0 = g.ng[0] + c * kChunk, m = nx - c * kChunk < kChunk ? nx - c * kChunk : kChunk;
        const double hr = hc(k), hrt = htc(k), hp = hpc(k);
        const long vs = static_cast<long>(s.stride(0));
        const double* sp = &s(0, k, j, i0);
        prefetch_rows<false>(&init(0, k, j, i0), vs, m);
        prefetch_rows<true>(&out(0, k, j, i0), vs, m);
        double F[kEulerVars][kChunk + 1];
        // The faces of the run with the pressure in form E; false where one lies beyond the series.
        auto faces = [&](auto eos) {
          constexpr euler_flux::Eos E = decltype(eos)::value;
          int misses = 0;  // a sum: GCC vectorises it, not an `&=` of bools
          // No `omp simd` here: GCC then keeps the stencil struct in memory; the plain loop vectorises.
          for (int q = 0; q <= m; ++q) {
            euler_flux::FaceStencil st;
            for (int l = 0; l < 4; ++l) {
              for (int v = 0; v < kEulerVars; ++v) st.q[v][l] = V || v != kVmom ? sp[v * vs + q + l - 2] : 0.0;
              st.hc[l] = hr;
              st.htc[l] = hrt;
            }
            double f[kEulerVars];
            misses += euler_flux::face_flux<V, 0, Visc, E>(st, hr, hrt, hp, false, hv, nu, kappa, inv_dx, f) ? 0 : 1;
            for (int v = 0; v < kEulerVars; ++v)
              if (V || v != kVmom) F[v][q] = f[v];
          }
          return misses == 0;
        };
        if (!faces(kSeries)) faces(kExact);
        for (int v = 0; v < kEulerVars; ++v) {
          if (!V && v == kVmom) continue;
          double* op = &out(v, k, j, i0);
          const double* ip = &init(v, k, j, i0);
#pragma omp simd
          for (int q = 0; q < m; ++q) op[q] = ip[q] + dt * (-(F[v][q + 1] - F[v][q]) * inv_dx);
        }
      });
}

// The three stages of an x sweep along rows periodic within this rank, a task per row: the row's state
// (its ghosts wrapped in place) is read once and written once, and the two stages between live in the
// task's own buffers (a row of each variable, with two ghosts at each end wrapped from its owned cells),
// where euler_stage_x's three passes read and wrote the whole state, tmp_ and tmp2_. Each face and cell is
// evaluated from the same operands in the same order as there: the same bits.
template <bool V, bool Visc>
void euler_sweep_x(const EulerStageArgs& a, const double (&dts)[3], const double (&hvs)[3]) {
  const Field4D st = a.s;
  const auto hc = a.hc, htc = a.htc, hpc = a.hpc;
  const LocalGrid g = a.g;
  const double nu = a.nu, kappa = a.kappa, inv_dx = a.inv_dx;
  const double dt0 = dts[0], dt1 = dts[1], dt2 = dts[2], hv0 = hvs[0], hv1 = hvs[1], hv2 = hvs[2];
  const int nx = g.n[0], ny = g.n[1], runs = (nx + kChunk - 1) / kChunk;
  const long bs = nx + 4;  // a buffer's variables are bs apart; owned cells from index 2
  Kokkos::parallel_for(
      "euler::sweep_x", Flat(0, ny * g.n[2]), KOKKOS_LAMBDA(int row) {
        const int j = g.ng[1] + row % ny, k = g.ng[2] + row / ny;
        const double hr = hc(k), hrt = htc(k), hp = hpc(k);
        const long vs = static_cast<long>(st.stride(0));
        double* const srow = &st(0, k, j, g.ng[0]);  // the row's first owned cell
        wrap_ghosts([=](int i) { return srow - g.ng[0] + i; }, g.ng[0], nx, vs, 1, true, true);
        // Grown once per thread to the longest row it meets; never shared.
        thread_local std::vector<double> scratch;
        if (scratch.size() < static_cast<std::size_t>(2 * kEulerVars * bs))
          scratch.resize(static_cast<std::size_t>(2 * kEulerVars * bs));
        double* const bufs[2] = {scratch.data() + 2, scratch.data() + kEulerVars * bs + 2};
        double F[kEulerVars][kChunk + 1];
        for (int stage = 0; stage < 3; ++stage) {
          const double dt = stage == 0 ? dt0 : stage == 1 ? dt1 : dt2;
          const double hv = stage == 0 ? hv0 : stage == 1 ? hv1 : hv2;
          // s: the state, then the first and second stages' buffers; out: those buffers, then the state.
          const double* const sp0 = stage == 0 ? srow : bufs[stage - 1];
          const long svs = stage == 0 ? vs : bs;
          double* const op0 = stage == 2 ? srow : bufs[stage];
          const long ovs = stage == 2 ? vs : bs;
          for (int c = 0; c < runs; ++c) {
            const int q0 = c * kChunk, m = nx - q0 < kChunk ? nx - q0 : kChunk;
            const double* sp = sp0 + q0;
            auto faces = [&](auto eos) {
              constexpr euler_flux::Eos E = decltype(eos)::value;
              int misses = 0;
              for (int q = 0; q <= m; ++q) {
                euler_flux::FaceStencil fs;
                for (int l = 0; l < 4; ++l) {
                  for (int v = 0; v < kEulerVars; ++v) fs.q[v][l] = V || v != kVmom ? sp[v * svs + q + l - 2] : 0.0;
                  fs.hc[l] = hr;
                  fs.htc[l] = hrt;
                }
                double f[kEulerVars];
                misses +=
                    euler_flux::face_flux<V, 0, Visc, E>(fs, hr, hrt, hp, false, hv, nu, kappa, inv_dx, f) ? 0 : 1;
                for (int v = 0; v < kEulerVars; ++v)
                  if (V || v != kVmom) F[v][q] = f[v];
              }
              return misses == 0;
            };
            if (!faces(kSeries)) faces(kExact);
            // init is the state: in the last stage a run overwrites its own cells only, after its faces.
            for (int v = 0; v < kEulerVars; ++v) {
              if (!V && v == kVmom) continue;
              double* op = op0 + v * ovs + q0;
              const double* ip = srow + v * vs + q0;
#pragma omp simd
              for (int q = 0; q < m; ++q) op[q] = ip[q] + dt * (-(F[v][q + 1] - F[v][q]) * inv_dx);
            }
          }
          if (stage < 2) {
            double* const b = bufs[stage];
            wrap_ghosts([=](int i) { return b + i; }, 0, nx, bs, 1, true, true);
          }
        }
      });
}

// Along y (D = 1) or z (D = 2): the face fluxes of a run of cells along x, evaluated level by level. The
// stencil is read through a pointer with its strides (variables vs apart, levels ls apart), so that the
// same faces come from the state or from a task's own buffers (euler_sweep_line).
template <bool V, int D, bool Visc>
struct EulerLineFaces {
  // The background by array index along z; a fused sweep across a cut reads up to hydrostatic_pad()
  // levels before index 0 and past the last.
  const double *hc, *htc, *hpc, *hi, *hti, *hpi;
  double nu, kappa, inv_dx;
  int kw_lo, kw_hi;
  // Face fluxes of the m faces below the cells at sp (the first variable of the level's first cell), whose
  // array index along z is k (along y: the index along z of the line), into F.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const double* sp, long vs, long ls, int k, int m, double hv,
                                              double (*F)[kChunk]) const {
    // A wall face: a loop of its own, so that neither has a branch. The series form of the pressure
    // first; the whole run again in the exact form where a face lies beyond it.
    if (D == 2 && (k == kw_lo || k == kw_hi)) {
      if (!run<true, euler_flux::Eos::series>(sp, vs, ls, k, m, hv, F))
        run<true, euler_flux::Eos::exact>(sp, vs, ls, k, m, hv, F);
    } else if (!run<false, euler_flux::Eos::series>(sp, vs, ls, k, m, hv, F)) {
      run<false, euler_flux::Eos::exact>(sp, vs, ls, k, m, hv, F);
    }
  }
  template <bool Wall, euler_flux::Eos E>
  KOKKOS_FORCEINLINE_FUNCTION bool run(const double* sp, long vs, long ls, int k, int m, double hv,
                                       double (*F)[kChunk]) const {
    double hcs[4], htcs[4];
    for (int b = 0; b < 4; ++b) {
      hcs[b] = D == 2 ? hc[k + b - 2] : hc[k];
      htcs[b] = D == 2 ? htc[k + b - 2] : htc[k];
    }
    const double hr = D == 2 ? hi[k] : hc[k], hrt = D == 2 ? hti[k] : htc[k], hp = D == 2 ? hpi[k] : hpc[k];
    int misses = 0;  // a sum: GCC vectorises it, not an `&=` of bools
    for (int q = 0; q < m; ++q) {
      euler_flux::FaceStencil st;
      for (int b = 0; b < 4; ++b) {
        for (int v = 0; v < kEulerVars; ++v) st.q[v][b] = V || v != kVmom ? sp[v * vs + (b - 2) * ls + q] : 0.0;
        st.hc[b] = hcs[b];
        st.htc[b] = htcs[b];
      }
      double f[kEulerVars];
      misses += euler_flux::face_flux<V, D, Visc, E>(st, hr, hrt, hp, Wall, hv, nu, kappa, inv_dx, f) ? 0 : 1;
      for (int v = 0; v < kEulerVars; ++v)
        if (V || v != kVmom) F[v][q] = f[v];
    }
    return misses == 0;
  }
};

template <bool V, int D, bool Visc>
EulerLineFaces<V, D, Visc> line_faces(const EulerStageArgs& a) {
  return {a.hc.data(), a.htc.data(), a.hpc.data(), a.hi.data(), a.hti.data(), a.hpi.data(),
          a.nu,        a.kappa,      a.inv_dx,     a.kw_lo,     a.kw_hi};
}

// The update of one level of a run along y or z from the faces below and above it: out = init + dt L(s),
// with gravity on the w momentum along z; rho: the stage state's density at the level.
template <bool V, int D>
KOKKOS_FORCEINLINE_FUNCTION void line_update(double* op, long ovs, const double* ip, long ivs, const double* rho,
                                             const double (*below)[kChunk], const double (*above)[kChunk], int m,
                                             double dt, double inv_dx) {
  for (int v = 0; v < kEulerVars; ++v) {
    if (!V && v == kVmom) continue;
    double* o = op + v * ovs;
    const double* in = ip + v * ivs;
    if (D == 2 && v == kWmom) {
#pragma omp simd
      for (int q = 0; q < m; ++q) o[q] = in[q] + dt * (-(above[v][q] - below[v][q]) * inv_dx - rho[q] * kGrav);
    } else {
#pragma omp simd
      for (int q = 0; q < m; ++q) o[q] = in[q] + dt * (-(above[v][q] - below[v][q]) * inv_dx);
    }
  }
}

// Along y (D = 1) or z (D = 2), one stage: a task per run of cells along x, walking up the line level by
// level and carrying the fluxes of the face below.
template <bool V, int D, bool Visc>
void euler_stage_line(const EulerStageArgs& a) {
  const Field4D init = a.init, s = a.s, out = a.out;
  const LocalGrid g = a.g;
  const double dt = a.dt, hv = a.hv, inv_dx = a.inv_dx;
  const bool wrap = a.wrap;
  const EulerLineFaces<V, D, Visc> faces = line_faces<V, D, Visc>(a);
  const int nx = g.n[0], runs = (nx + kChunk - 1) / kChunk;
  const int across = D == 2 ? g.n[1] : g.n[2];  // the other transverse direction
  Kokkos::parallel_for(
      D == 2 ? "euler::stage_z" : "euler::stage_y", Flat(0, runs * across), KOKKOS_LAMBDA(int n) {
        const int c = n % runs;
        const int t = (D == 2 ? g.ng[1] : g.ng[2]) + n / runs;
        const int i0 = g.ng[0] + c * kChunk, m = nx - c * kChunk < kChunk ? nx - c * kChunk : kChunk;
        double buf[2][kEulerVars][kChunk];
        const int l0 = g.ng[D], nl = g.n[D];
        const long vs = static_cast<long>(s.stride(0)), ls = static_cast<long>(D == 2 ? s.stride(1) : s.stride(2));
        // The run's first cell at level l (array index along D) of a field.
        auto at = [=](const Field4D& f, int l) { return D == 2 ? &f(0, l, t, i0) : &f(0, t, l, i0); };
        if (D == 1 && wrap) {  // the ghost rows of this run, which no other task reads
          double* first = at(s, 0);
          wrap_ghosts([=](int l) { return first + l * ls; }, l0, nl, vs, m, true, true);
        }
        faces(at(s, l0), vs, ls, D == 2 ? l0 : t, m, hv, buf[0]);
        for (int l = l0; l < l0 + nl; ++l) {
          const double(*below)[kChunk] = buf[(l - l0) % 2];
          double(*above)[kChunk] = buf[(l - l0 + 1) % 2];
          prefetch_rows<false>(at(init, l), vs, m);  // updated after the faces above
          prefetch_rows<true>(at(out, l), vs, m);
          if (l + 3 < l0 + nl + g.ng[D]) prefetch_rows<false>(at(s, l + 3), vs, m);  // the faces after these
          faces(at(s, l + 1), vs, ls, D == 2 ? l + 1 : t, m, hv, above);
          line_update<V, D>(at(out, l), vs, at(init, l), vs, at(s, l) + kDens * vs, below, above, m, dt, inv_dx);
        }
      });
}

// The wall ghosts along z of a run of m cells (level l at p + l ls, variables vs apart), below (lo) and
// above (hi) the owned levels, as Euler::fill_ghosts makes them: w = 0, the horizontal momenta rescaled
// by the background density, rho and rho theta continued from the first owned level. With !V the v
// momentum is left alone.
template <bool V>
KOKKOS_FORCEINLINE_FUNCTION void wall_ghosts(double* p, long vs, long ls, int m, int l0, int nl,
                                             const Kokkos::View<double*, MemSpace>& hc, bool lo, bool hi) {
  for (int side = 0; side < 2; ++side) {
    if (!(side == 0 ? lo : hi)) continue;
    const int src = side == 0 ? l0 : l0 + nl - 1, step = side == 0 ? -1 : 1;
    for (int g = 1; g <= l0; ++g) {
      const int k = src + step * g;
      const double hs = hc(src), hk = hc(k);
      double* to = p + k * ls;
      const double* from = p + src * ls;
      for (int q = 0; q < m; ++q) {
        to[kWmom * vs + q] = 0.0;
        to[kUmom * vs + q] = from[kUmom * vs + q] / hs * hk;
        if (V) to[kVmom * vs + q] = from[kVmom * vs + q] / hs * hk;
        to[kDens * vs + q] = from[kDens * vs + q];
        to[kRhot * vs + q] = from[kRhot * vs + q];
      }
    }
  }
}

// The three stages of a y sweep or a z sweep, a task per run of `chunk` cells along x and line across:
// the run's state is read once and written once, the two stages between live in the task's own buffers,
// where euler_stage_line's three passes read and wrote the whole state, tmp_ and tmp2_. Each face and cell
// is evaluated from the same operands in the same order as there: the same bits.
//  - Not cut (y periodic within this rank, z between walls on one rank; deep = nullptr): the stages
//    between carry two ghost levels at each end, wrapped from the owned levels along y, the walls' along z.
//  - Cut across ranks (deep: Euler::deep_exchange's levels): the task copies its line of the state with
//    the 3 ng levels beyond each cut face into a buffer; the first stage is taken 2 ng levels into the
//    neighbour's cells, the second ng, the last on the owned cells, which is what the neighbour computes
//    for those cells, bit for bit (the background beyond the ghosts is hydrostatic_pad()'s). A wall side
//    gets its ghosts as above.
// chunk (at most kChunk) keeps a task's state and buffers within a core's L2.
template <bool V, int D, bool Visc>
void euler_sweep_line(const EulerStageArgs& a, const double (&dts)[3], const double (&hvs)[3], int chunk,
                      const double* deep) {
  const Field4D st = a.s;
  const LocalGrid g = a.g;
  const auto hc = a.hc;
  const EulerLineFaces<V, D, Visc> faces = line_faces<V, D, Visc>(a);
  const double inv_dx = a.inv_dx;
  const double dt0 = dts[0], dt1 = dts[1], dt2 = dts[2], hv0 = hvs[0], hv1 = hvs[1], hv2 = hvs[2];
  const int nx = g.n[0], runs = (nx + chunk - 1) / chunk;
  const int across = D == 2 ? g.n[1] : g.n[2];
  const int l0 = g.ng[D], nl = g.n[D], deep_levels = 3 * l0;
  // Which faces are cut: along y both, along z those without a wall.
  const bool cut_lo = deep && (D == 1 || a.kw_lo == kNoWall), cut_hi = deep && (D == 1 || a.kw_hi == kNoWall);
  // A buffer holds a run's line of each variable from array level l0 - deep_levels to l0 + nl + deep_levels.
  const long bls = chunk, bvs = static_cast<long>(nl + 2 * deep_levels) * chunk;
  const long deep_side = static_cast<long>(deep_levels) * kEulerVars * across * nx;  // deep_exchange's layout
  Kokkos::parallel_for(
      D == 2 ? "euler::sweep_z" : "euler::sweep_y", Flat(0, runs * across), KOKKOS_LAMBDA(int n) {
        const int c = n % runs, line = n / runs;
        const int t = (D == 2 ? g.ng[1] : g.ng[2]) + line;
        const int i0 = g.ng[0] + c * chunk, m = nx - c * chunk < chunk ? nx - c * chunk : chunk;
        const long vs = static_cast<long>(st.stride(0)), ls = static_cast<long>(D == 2 ? st.stride(1) : st.stride(2));
        double* const s0 = D == 2 ? &st(0, 0, t, i0) : &st(0, t, 0, i0);  // the run at array level 0
        auto ghosts = [&](double* p, long pvs, long pls) {
          if (D == 1 && !deep)
            wrap_ghosts([=](int l) { return p + l * pls; }, l0, nl, pvs, m, true, true);
          else if (D == 2)
            wall_ghosts<V>(p, pvs, pls, m, l0, nl, hc, !cut_lo, !cut_hi);
        };
        // Grown once per thread to the longest line it meets; never shared. Level l (array index) of a
        // buffer at bufs[b] + l * bls: the stages between, and (a cut sweep) the state with its deep levels.
        thread_local std::vector<double> scratch;
        if (scratch.size() < static_cast<std::size_t>(3 * kEulerVars * bvs))
          scratch.resize(static_cast<std::size_t>(3 * kEulerVars * bvs));
        double* const bufs[3] = {scratch.data() + (deep_levels - l0) * bls,
                                 scratch.data() + kEulerVars * bvs + (deep_levels - l0) * bls,
                                 scratch.data() + 2 * kEulerVars * bvs + (deep_levels - l0) * bls};
        // The state's line: the first stage's s and every stage's init.
        const double* in = s0;
        long ivs = vs, ils = ls;
        if (deep) {
          double* const b = bufs[2];
          for (int l = l0; l < l0 + nl; ++l)
            for (int v = 0; v < kEulerVars; ++v) {
              const double* from = s0 + v * vs + l * ls;
              double* to = b + v * bvs + l * bls;
              for (int q = 0; q < m; ++q) to[q] = from[q];
            }
          for (int side = 0; side < 2; ++side) {
            if (!(side == 0 ? cut_lo : cut_hi)) continue;
            for (int e = 0; e < deep_levels; ++e) {
              const int l = side == 0 ? l0 - deep_levels + e : l0 + nl + e;
              for (int v = 0; v < kEulerVars; ++v) {
                const double* from = deep + side * deep_side +
                                     ((static_cast<long>(e) * kEulerVars + v) * across + line) * nx + c * chunk;
                double* to = b + v * bvs + l * bls;
                for (int q = 0; q < m; ++q) to[q] = from[q];
              }
            }
          }
          ghosts(b, bvs, bls);
          in = b;
          ivs = bvs;
          ils = bls;
        } else {
          ghosts(s0, vs, ls);
        }
        double F[2][kEulerVars][kChunk];
        for (int stage = 0; stage < 3; ++stage) {
          const double dt = stage == 0 ? dt0 : stage == 1 ? dt1 : dt2;
          const double hv = stage == 0 ? hv0 : stage == 1 ? hv1 : hv2;
          // s: the state, then the first and second stages' buffers; out: those buffers, then the state.
          const double* const sp = stage == 0 ? in : bufs[stage - 1];
          const long svs = stage == 0 ? ivs : bvs, sls = stage == 0 ? ils : bls;
          double* const op = stage == 2 ? s0 : bufs[stage];
          const long ovs = stage == 2 ? vs : bvs, ols = stage == 2 ? ls : bls;
          // The levels this stage updates: ng more beyond a cut face for each stage after it.
          const int lo = cut_lo ? l0 - l0 * (2 - stage) : l0, hi = cut_hi ? l0 + nl + l0 * (2 - stage) : l0 + nl;
          faces(sp + lo * sls, svs, sls, D == 2 ? lo : t, m, hv, F[0]);
          for (int l = lo; l < hi; ++l) {
            if (!deep && stage == 0 && l + 3 < l0 + nl + l0) prefetch_rows<false>(s0 + (l + 3) * ls, vs, m);
            faces(sp + (l + 1) * sls, svs, sls, D == 2 ? l + 1 : t, m, hv, F[(l - lo + 1) % 2]);
            // init is the state: in the last stage a level is overwritten after the faces above it.
            line_update<V, D>(op + l * ols, ovs, in + l * ils, ivs, sp + l * sls + kDens * svs, F[(l - lo) % 2],
                              F[(l - lo + 1) % 2], m, dt, inv_dx);
          }
          if (stage < 2) ghosts(bufs[stage], bvs, bls);
        }
      });
}

template <bool Visc>
void line_stage(const EulerStageArgs& a, int dir, bool v_active) {
  if (dir == 0) {
    if (v_active)
      euler_stage_x<true, Visc>(a);
    else
      euler_stage_x<false, Visc>(a);
  } else if (dir == 1) {
    euler_stage_line<true, 1, Visc>(a);  // a y sweep only exists in 3D, where v is prognostic
  } else if (v_active) {
    euler_stage_line<true, 2, Visc>(a);
  } else {
    euler_stage_line<false, 2, Visc>(a);
  }
}

#endif

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
