// lj/cut coefficients, coul/long, and the generic pair compute (full and half neighbor lists).
#include "md/pair_lj.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/error.hpp"
#include "core/gpu_paths.hpp"
#include "md/pair_simd.hpp"

namespace stratus::md {

LJSpec::LJSpec(int n, double global_cutoff) : ntypes(n) {
  STRATUS_INPUT_REQUIRE(n >= 1, "lj/cut: need at least one atom type, got " << n);
  STRATUS_INPUT_REQUIRE(global_cutoff > 0.0, "lj/cut: the cutoff must be positive, got " << global_cutoff);
  const std::size_t m = static_cast<std::size_t>((n + 1) * (n + 1));
  epsilon.assign(m, 1.0);
  sigma.assign(m, 1.0);
  cutoff.assign(m, global_cutoff);
  explicit_.assign(m, 0);
}

void LJSpec::set_type(int t, double e, double s) {
  STRATUS_INPUT_REQUIRE(t >= 1 && t <= ntypes, "lj/cut: atom type " << t << " out of range 1.." << ntypes);
  STRATUS_INPUT_REQUIRE(e >= 0.0 && s > 0.0, "lj/cut: type " << t << " needs epsilon >= 0 and sigma > 0");
  eps(t, t) = e;
  sig(t, t) = s;
}

void LJSpec::set_pair(int i, int j, double e, double s, double r) {
  STRATUS_INPUT_REQUIRE(i >= 1 && i <= ntypes && j >= 1 && j <= ntypes,
                        "lj/cut: pair " << i << " " << j << " out of range 1.." << ntypes);
  STRATUS_INPUT_REQUIRE(e >= 0.0 && s > 0.0, "lj/cut: pair " << i << " " << j << " needs epsilon >= 0 and sigma > 0");
  for (auto [a, b] : {std::pair<int, int>{i, j}, std::pair<int, int>{j, i}}) {
    eps(a, b) = e;
    sig(a, b) = s;
    if (r > 0.0) rc(a, b) = r;
    explicit_[static_cast<std::size_t>(a * (ntypes + 1) + b)] = 1;
  }
}

void LJSpec::mix(Mixing rule) {
  for (int i = 1; i <= ntypes; ++i)
    for (int j = 1; j <= ntypes; ++j) {
      if (i == j || explicit_[static_cast<std::size_t>(i * (ntypes + 1) + j)]) continue;
      eps(i, j) = std::sqrt(eps(i, i) * eps(j, j));
      sig(i, j) = rule == Mixing::geometric ? std::sqrt(sig(i, i) * sig(j, j)) : 0.5 * (sig(i, i) + sig(j, j));
    }
}

double LJSpec::max_cutoff() const {
  double m = 0.0;
  for (int i = 1; i <= ntypes; ++i)
    for (int j = 1; j <= ntypes; ++j) m = std::max(m, cutoff[static_cast<std::size_t>(i * (ntypes + 1) + j)]);
  return m;
}

LJCoeffs LJCoeffs::from_spec(const LJSpec& s) {
  LJCoeffs c;
  c.stride = s.ntypes + 1;
  const int m = c.stride * c.stride;
  c.lj1 = Kokkos::View<double*, MemSpace>("lj::lj1", m);
  c.lj2 = Kokkos::View<double*, MemSpace>("lj::lj2", m);
  c.lj3 = Kokkos::View<double*, MemSpace>("lj::lj3", m);
  c.lj4 = Kokkos::View<double*, MemSpace>("lj::lj4", m);
  c.cutsq = Kokkos::View<double*, MemSpace>("lj::cutsq", m);
  c.offset = Kokkos::View<double*, MemSpace>("lj::offset", m);
  auto h1 = Kokkos::create_mirror_view(c.lj1), h2 = Kokkos::create_mirror_view(c.lj2);
  auto h3 = Kokkos::create_mirror_view(c.lj3), h4 = Kokkos::create_mirror_view(c.lj4);
  auto hc = Kokkos::create_mirror_view(c.cutsq), ho = Kokkos::create_mirror_view(c.offset);
  for (int p = 0; p < m; ++p) {
    const double e = s.epsilon[p], sg = s.sigma[p], r = s.cutoff[p];
    h1(p) = 48.0 * e * std::pow(sg, 12.0);
    h2(p) = 24.0 * e * std::pow(sg, 6.0);
    h3(p) = 4.0 * e * std::pow(sg, 12.0);
    h4(p) = 4.0 * e * std::pow(sg, 6.0);
    hc(p) = r * r;
    const double ratio = std::pow(sg / r, 6.0);
    ho(p) = s.shift ? 4.0 * e * (ratio * ratio - ratio) : 0.0;
  }
  for (int i = 1; i < c.stride; ++i)  // row and column 0 are no type
    for (int j = 1; j < c.stride; ++j) {
      const int p = i * c.stride + j, q = c.stride + 1;
      c.uniform = c.uniform && h1(p) == h1(q) && h2(p) == h2(q) && h3(p) == h3(q) && h4(p) == h4(q) &&
                  hc(p) == hc(q) && ho(p) == ho(q);
    }
  Kokkos::deep_copy(c.lj1, h1);
  Kokkos::deep_copy(c.lj2, h2);
  Kokkos::deep_copy(c.lj3, h3);
  Kokkos::deep_copy(c.lj4, h4);
  Kokkos::deep_copy(c.cutsq, hc);
  Kokkos::deep_copy(c.offset, ho);
  return c;
}

namespace {

// The potentials as the kernel sees them: pair() gives F / r and, with EV, the energy split into the
// Lennard-Jones and Coulomb parts, for a pair within its cutoff (false outside every cutoff).
struct LJPair {
  static constexpr bool kMasked = true;  // has masked(): the full-list loop vectorises
  LJCoeffs c;
  /// pair() without a branch: F / r and the energy evaluated for every rsq and zeroed outside the cutoff
  /// or where !valid (padding lanes; the same bits as pair() inside the cutoff).
  template <bool EV>
  KOKKOS_FORCEINLINE_FUNCTION void masked(int ti, int tj, double rsq, bool valid, double& fp, double& evdwl) const {
    const int p = ti * c.stride + tj;
    const bool in = valid & (rsq < c.cutsq.data()[p]);
    const double r2i = 1.0 / rsq, r6i = r2i * r2i * r2i;
    fp = in ? r6i * (c.lj1.data()[p] * r6i - c.lj2.data()[p]) * r2i : 0.0;
    if (EV) evdwl = in ? r6i * (c.lj3.data()[p] * r6i - c.lj4.data()[p]) - c.offset.data()[p] : 0.0;
  }
  template <bool EV>
  KOKKOS_INLINE_FUNCTION bool pair(int, int, int ti, int tj, double rsq, double& fp, double& evdwl,
                                   double&) const {
    if (!(rsq < c.cutsq(ti * c.stride + tj))) return false;
    fp = c.fpair(ti, tj, rsq);
    if (EV) evdwl = c.energy(ti, tj, rsq);
    return true;
  }
};

struct LJCoulPair {
  static constexpr bool kMasked = false;
  LJCoulLong p;
  template <bool EV>
  KOKKOS_INLINE_FUNCTION bool pair(int i, int j, int ti, int tj, double rsq, double& fp, double& evdwl,
                                   double& ecoul) const {
    bool any = false;
    fp = 0.0;
    if (p.lj && rsq < p.ljc.cutsq(ti * p.ljc.stride + tj)) {
      fp = p.ljc.fpair(ti, tj, rsq);
      if (EV) evdwl = p.ljc.energy(ti, tj, rsq);
      any = true;
    }
    if (rsq < p.coul.cut_coulsq) {
      double fc = 0.0, ec = 0.0;
      p.coul.eval(p.q(i) * p.q(j), rsq, fc, ec);
      fp += fc;
      if (EV) ecoul = ec;
      any = true;
    }
    return any;
  }
};

// The neighbor loop of one owned atom i. HALF: Newton's third law for partners below newton_limit (owned
// atoms, or every atom when ghost forces are summed back), the partner's share through the ScatterView;
// other pairs count half. EV: also the energies and virial (only on steps that report them).
template <class Pot, bool HALF, bool EV, class Scatter = PairScratch::Scatter>
struct PairKernel {
  Pot pot;
  ParticleVec x;
  ParticleInt type;
  NeighborRows list;
  int newton_limit;
  ParticleVec f;
  Scatter sv;
  // Half lists with one thread on the host: f itself, written directly (no ScatterView indexing per
  // partner); null otherwise.
  double* direct = nullptr;
  bool simd = false;  // lj/cut on an AVX-512 or AVX2 CPU: the explicit SIMD row (md/pair_simd.hpp)

  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    double e = 0.0, ec = 0.0, w = 0.0;
    row(i, e, ec, w);
  }
  KOKKOS_INLINE_FUNCTION void operator()(int i, double& esum, double& ecsum, double& wsum) const {
    row(i, esum, ecsum, wsum);
  }

  KOKKOS_INLINE_FUNCTION void row(int i, double& esum, double& ecsum, double& wsum) const {
    if constexpr (Pot::kMasked) {
      masked_row(i, esum, wsum);
      return;
    }
    const double xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
    const int ti = type(i);
    double fx = 0.0, fy = 0.0, fz = 0.0;
    [[maybe_unused]] auto acc = sv.access();  // unused by full lists
    const int t = list.count(i);
    for (int p = 0; p < t; ++p) {
      const int j = list(i, p);
      const double dx = xi - x(j, 0), dy = yi - x(j, 1), dz = zi - x(j, 2);
      const double rsq = dx * dx + dy * dy + dz * dz;
      const int tj = type(j);
      double fp = 0.0, evdwl = 0.0, ecoul = 0.0;
      if (pot.template pair<EV>(i, j, ti, tj, rsq, fp, evdwl, ecoul)) {
        fx += dx * fp;
        fy += dy * fp;
        fz += dz * fp;
        bool newton = false;
        if constexpr (HALF) {
          newton = j < newton_limit;
          if (newton) {
            acc(j, 0) -= dx * fp;
            acc(j, 1) -= dy * fp;
            acc(j, 2) -= dz * fp;
          }
        }
        if constexpr (EV) {
          const double weight = newton ? 1.0 : 0.5;
          esum += weight * (evdwl + ecoul);
          ecsum += weight * ecoul;
          wsum += weight * rsq * fp;
        }
      }
    }
    own_force(acc, i, fx, fy, fz);
  }
  // i's own force: added through the ScatterView (half lists, whose partners add theirs too) or stored.
  template <class Access>
  KOKKOS_FORCEINLINE_FUNCTION void own_force(Access& acc, int i, double fx, double fy, double fz) const {
    if constexpr (HALF) {
      if (direct) {
        direct[3 * i] += fx;
        direct[3 * i + 1] += fy;
        direct[3 * i + 2] += fz;
        return;
      }
      acc(i, 0) += fx;
      acc(i, 1) += fy;
      acc(i, 2) += fz;
    } else {
      f(i, 0) = fx;
      f(i, 1) = fy;
      f(i, 2) = fz;
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION void masked_row(int i, double& esum, double& wsum) const;
  // A half list's partners js[0], js[ss], .. js[(m - 1) ss] take minus the pair forces gx, gy, gz (those
  // below newton_limit): into f directly, or through the ScatterView.
  template <class Access>
  KOKKOS_FORCEINLINE_FUNCTION void give_shares(Access& acc, const int* js, long long ss, int m, const double* gx,
                                               const double* gy, const double* gz) const {
    const int nl = newton_limit;
    if (double* __restrict fd = direct) {
      for (int q = 0; q < m; ++q) {
        const int j = js[q * ss];
        if (j < nl) {
          fd[3 * j] -= gx[q];
          fd[3 * j + 1] -= gy[q];
          fd[3 * j + 2] -= gz[q];
        }
      }
      return;
    }
    for (int q = 0; q < m; ++q) {
      const int j = js[q * ss];
      if (j < nl) {
        acc(j, 0) -= gx[q];
        acc(j, 1) -= gy[q];
        acc(j, 2) -= gz[q];
      }
    }
  }
#ifdef STRATUS_PAIR_SIMD
  void simd_row(int i, double& esum, double& wsum) const;
#endif
};

// The row of a potential with a masked() form, in blocks of partners: the forces of a block in a loop
// without branches or writes to other atoms, which vectorises (gathers of the partners' positions and
// types; which pairs lie inside the cutoff is no branch to mispredict), then, for a half list, the
// partners' shares added through the ScatterView in a scalar loop. The sums run in the vector lanes'
// order: the same bits on every run, rank count and thread count of one build. The loops are padded to
// whole vectors of kLanes (8 doubles: AVX-512; a multiple of narrower vectors such as AVX2's 4): the padding lanes take
// i itself as partner and are masked out, so no scalar remainder loop runs.
constexpr int kLanes = 8;

template <class Pot, bool HALF, bool EV, class Scatter>
KOKKOS_FORCEINLINE_FUNCTION void PairKernel<Pot, HALF, EV, Scatter>::masked_row(int i, double& esum,
                                                                                double& wsum) const {
#ifdef STRATUS_PAIR_SIMD
  if constexpr (std::is_same_v<Pot, LJPair>) {
    if (simd) {
      simd_row(i, esum, wsum);
      return;
    }
  }
#endif
  constexpr int kBlock = 64;
  const double xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
  const int ti = type(i);
  // Plain pointers: the compiler then sees that nothing in the loop writes what it reads.
  const double* __restrict xs = x.data();
  const int* __restrict ts = type.data();
  const int t = list.count(i);  // the row: js[0], js[ss], .. js[(t - 1) ss]
  const int* __restrict js = list.row(i);
  const long long ss = list.slot_stride;
  const Pot pt = pot;  // a copy: the compiler then knows the loop writes none of its coefficients
  const int nl = newton_limit;
  [[maybe_unused]] auto acc = sv.access();  // unused by full lists
  double fx = 0.0, fy = 0.0, fz = 0.0, e = 0.0, w = 0.0;
  double gx[kBlock], gy[kBlock], gz[kBlock];
  for (int p0 = 0; p0 < t; p0 += kBlock) {
    const int m = t - p0 < kBlock ? t - p0 : kBlock;
    const int padded = ((m + kLanes - 1) / kLanes) * kLanes;  // <= kBlock
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP)
#pragma omp simd reduction(+ : fx, fy, fz, e, w)
#endif
    for (int q = 0; q < padded; ++q) {
      const bool valid = q < m;
      const int j = valid ? js[(p0 + q) * ss] : i;
      const double dx = xi - xs[3 * j], dy = yi - xs[3 * j + 1], dz = zi - xs[3 * j + 2];
      const double rsq = dx * dx + dy * dy + dz * dz;
      double fp = 0.0, evdwl = 0.0;
      pt.template masked<EV>(ti, ts[j], rsq, valid, fp, evdwl);
      const double ax = dx * fp, ay = dy * fp, az = dz * fp;
      fx += ax;
      fy += ay;
      fz += az;
      if constexpr (HALF) {
        gx[q] = ax;
        gy[q] = ay;
        gz[q] = az;
      }
      if (EV) {  // a pair counts half when it is listed from both sides (full lists, pairs with a ghost)
        const double weight = HALF && j < nl ? 1.0 : 0.5;
        e += weight * evdwl;
        w += weight * rsq * fp;
      }
    }
    if constexpr (HALF) give_shares(acc, js + p0 * ss, ss, m, gx, gy, gz);
  }
  own_force(acc, i, fx, fy, fz);
  esum += e;
  wsum += w;
}

#ifdef STRATUS_PAIR_SIMD
template <class Pot, bool HALF, bool EV, class Scatter>
void PairKernel<Pot, HALF, EV, Scatter>::simd_row(int i, double& esum, double& wsum) const {
  const LJCoeffs& c = pot.c;
  const simd::LJTable tab{c.lj1.data(), c.lj2.data(), c.lj3.data(), c.lj4.data(), c.cutsq.data(), c.offset.data(),
                          c.stride};
  const int t = list.count(i);  // the row: js[0 .. t) (consecutive partners only)
  const int* js = list.row(i);
  const int nl = newton_limit;
  [[maybe_unused]] auto acc = sv.access();  // the partners' shares when f is not written directly
  auto flush = [&](int p0, int m, const double* gx, const double* gy, const double* gz) {
    give_shares(acc, js + p0, 1, m, gx, gy, gz);
  };
  const simd::RowSums r =
      c.uniform ? simd::lj_row<HALF, EV, true>(i, x.data(), type.data(), js, 0, t, nl, tab, direct, flush)
                : simd::lj_row<HALF, EV, false>(i, x.data(), type.data(), js, 0, t, nl, tab, direct, flush);
  own_force(acc, i, r.fx, r.fy, r.fz);
  esum += r.e;
  wsum += r.w;
}
#endif

template <class Pot, bool HALF, class Scatter>
PairResult run_pair(const PairKernel<Pot, HALF, true, Scatter>& k, int n, bool energy) {
  using Policy = Kokkos::RangePolicy<ExecSpace>;
  PairResult r;
  if (energy) {
    Kokkos::parallel_reduce(HALF ? "pair::compute_half_ev" : "pair::compute_full_ev", Policy(0, n), k, r.energy,
                            r.ecoul, r.virial);
  } else {
    const PairKernel<Pot, HALF, false, Scatter> kf{k.pot, k.x,  k.type,   k.list, k.newton_limit,
                                                   k.f,   k.sv, k.direct, k.simd};
    Kokkos::parallel_for(HALF ? "pair::compute_half" : "pair::compute_full", Policy(0, n), kf);
  }
  return r;
}

// A half list's forces through the ScatterView sv (made for f when fresh, else reset).
template <class Pot, class Scatter>
PairResult scattered(const Pot& pot, const ParticleVec& x, const ParticleInt& type, const NeighborRows& rows,
                     int newton_limit, const ParticleVec& f, Scatter& sv, bool fresh, bool energy, bool simd) {
  if (fresh)
    sv = Scatter(f);
  else
    sv.reset_except(f);
  const PairKernel<Pot, true, true, Scatter> k{pot, x, type, rows, newton_limit, f, sv, nullptr, simd};
  const PairResult r = run_pair<Pot, true>(k, static_cast<int>(rows.counts.extent(0)), energy);
  ParticleVec dest = f;
  Kokkos::Experimental::contribute(dest, sv);
  return r;
}

template <class Pot>
PairResult compute(const Pot& pot, const ParticleVec& x, const ParticleInt& type, const NeighborList& list,
                   const ParticleVec& f, PairScratch* scratch, bool energy, bool simd) {
  const int n_local = list.n_local();
  STRATUS_REQUIRE(static_cast<int>(f.extent(0)) >= n_local + list.n_ghost(), "pair compute: the force array holds "
                                                                                 << f.extent(0) << " atoms, the list "
                                                                                 << n_local << " + " << list.n_ghost());
  Kokkos::deep_copy(f, 0.0);
  const bool half = list.params().half;
  const NeighborRows rows = list.rows();
  simd = simd && rows.slot_stride == 1;  // the SIMD row reads a row's partners as consecutive ints
  const int newton_limit = list.params().newton_ghost ? n_local + list.n_ghost() : n_local;
  // Full list: each atom owns its force (no atomics, the GPU choice); every pair is seen from both sides,
  // so energy and virial count half. Half list: Newton's third law among owned atoms, each such pair once,
  // forces accumulated through a ScatterView (per-thread copies on CPUs, atomics on GPUs). A pair with a
  // ghost is either listed from both sides (the ghost gets no force and the pair counts half: no reverse
  // communication needed) or, with the list's newton_ghost, once, with the ghost's force left in its row
  // for the caller to sum back to the owner.
  if (!half) {
    const PairKernel<Pot, false, true> k{pot, x, type, rows, n_local, f, {}, nullptr, simd};
    return run_pair<Pot, false>(k, n_local, energy);
  }
  if (!gpu_paths() && ExecSpace().concurrency() == 1 && Pot::kMasked) {  // one thread: no accumulator needed
    const PairKernel<Pot, true, true> k{pot, x, type, rows, newton_limit, f, {}, f.data(), simd};
    return run_pair<Pot, true>(k, n_local, energy);
  }
  PairScratch local;
  PairScratch& s = scratch ? *scratch : local;
  const bool fresh = s.target != f.data() || s.rows != f.extent(0);
  s.target = f.data();
  s.rows = f.extent(0);
  if constexpr (!std::is_same_v<PairScratch::Scatter, PairScratch::AtomicScatter>) {
    if (gpu_paths()) return scattered(pot, x, type, rows, newton_limit, f, s.atomic_forces, fresh, energy, simd);
  }
  return scattered(pot, x, type, rows, newton_limit, f, s.forces, fresh, energy, simd);
}

}  // namespace

PairResult compute_pair(const LJCoeffs& c, const ParticleVec& x, const ParticleInt& type, const NeighborList& list,
                        const ParticleVec& f, PairScratch* scratch, bool energy, PairPath path) {
#ifdef STRATUS_PAIR_SIMD
  const bool simd = path == PairPath::best;
#else
  const bool simd = false;
  (void)path;
#endif
  return compute(LJPair{c}, x, type, list, f, scratch, energy, simd);
}

PairResult compute_pair(const LJCoulLong& c, const ParticleVec& x, const ParticleInt& type, const NeighborList& list,
                        const ParticleVec& f, PairScratch* scratch, bool energy) {
  STRATUS_REQUIRE(static_cast<int>(c.q.extent(0)) >= list.n_local() + list.n_ghost(),
                  "pair compute: the charge array holds " << c.q.extent(0) << " atoms");
  return compute(LJCoulPair{c}, x, type, list, f, scratch, energy, false);
}

}  // namespace stratus::md
