// Compressible Euler: the line kernels of the split step on CPUs (euler_split.cpp's first form): one pass
// per stage, or one per sweep with the stages between in each task's buffers. Included by euler_split.cpp
// alone (its helpers are in an unnamed namespace).
#pragma once
#include <algorithm>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include "climate/euler.hpp"
#include "climate/euler_flux.hpp"

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

}  // namespace stratus::climate
