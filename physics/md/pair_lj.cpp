// lj/cut coefficients and the generic pair compute (full and half neighbor lists).
#include "md/pair_lj.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

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
  Kokkos::deep_copy(c.lj1, h1);
  Kokkos::deep_copy(c.lj2, h2);
  Kokkos::deep_copy(c.lj3, h3);
  Kokkos::deep_copy(c.lj4, h4);
  Kokkos::deep_copy(c.cutsq, hc);
  Kokkos::deep_copy(c.offset, ho);
  return c;
}

namespace {

// The neighbor loop of one owned atom i, shared by the full- and half-list kernels: calls
// add_partner(j, fx, fy, fz) for each Newton partner (half list, owned j) and returns i's force.
template <class AddPartner>
KOKKOS_INLINE_FUNCTION void pair_row(const LJCoeffs& c, const ParticleVec& x, const ParticleInt& type,
                                     const Kokkos::View<const int*, MemSpace>& off,
                                     const Kokkos::View<const int*, MemSpace>& nbr, bool half, int n_local, int i,
                                     double fi[3], double& esum, double& wsum, const AddPartner& add_partner) {
  const double xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
  const int ti = type(i);
  double fx = 0.0, fy = 0.0, fz = 0.0;
  for (int p = off(i); p < off(i + 1); ++p) {
    const int j = nbr(p);
    const double dx = xi - x(j, 0), dy = yi - x(j, 1), dz = zi - x(j, 2);
    const double rsq = dx * dx + dy * dy + dz * dz;
    const int tj = type(j);
    if (rsq < c.cutsq(ti * c.stride + tj)) {
      const double fp = c.fpair(ti, tj, rsq);
      fx += dx * fp;
      fy += dy * fp;
      fz += dz * fp;
      const bool newton = half && j < n_local;
      const double weight = newton ? 1.0 : 0.5;
      if (newton) add_partner(j, -dx * fp, -dy * fp, -dz * fp);
      esum += weight * c.energy(ti, tj, rsq);
      wsum += weight * rsq * fp;
    }
  }
  fi[0] = fx;
  fi[1] = fy;
  fi[2] = fz;
}

}  // namespace

PairResult compute_pair(const LJCoeffs& c, const ParticleVec& x, const ParticleInt& type, const NeighborList& list,
                        const ParticleVec& f, PairScratch* scratch) {
  const int n_local = list.n_local();
  STRATUS_REQUIRE(static_cast<int>(f.extent(0)) >= n_local + list.n_ghost(), "pair compute: the force array holds "
                                                                                 << f.extent(0) << " atoms, the list "
                                                                                 << n_local << " + " << list.n_ghost());
  Kokkos::deep_copy(f, 0.0);
  const auto off = list.offsets();
  const auto nbr = list.neighbors();
  const bool half = list.params().half;
  using Policy = Kokkos::RangePolicy<ExecSpace>;
  double e = 0.0, w = 0.0;
  // Full list: each atom owns its force (no atomics, the GPU choice); every pair is seen from both sides,
  // so energy and virial count half. Half list: Newton's third law among owned atoms, each such pair once,
  // forces accumulated through a ScatterView (per-thread copies on CPUs, atomics on GPUs); a ghost
  // partner's pair is also listed, from the other side, by the rank (or image) that owns it, so the ghost
  // gets no force and the pair counts half: no reverse communication is needed.
  if (!half) {
    Kokkos::parallel_reduce(
        "lj::compute_full", Policy(0, n_local),
        KOKKOS_LAMBDA(int i, double& esum, double& wsum) {
          double fi[3];
          pair_row(c, x, type, off, nbr, false, n_local, i, fi, esum, wsum, [](int, double, double, double) {});
          f(i, 0) = fi[0];
          f(i, 1) = fi[1];
          f(i, 2) = fi[2];
        },
        e, w);
    return PairResult{e, w};
  }
  PairScratch local;
  PairScratch& s = scratch ? *scratch : local;
  if (s.target != f.data() || s.rows != f.extent(0)) {
    s.forces = Kokkos::Experimental::create_scatter_view(f);
    s.target = f.data();
    s.rows = f.extent(0);
  } else {
    s.forces.reset_except(f);
  }
  const auto sv = s.forces;
  Kokkos::parallel_reduce(
      "lj::compute_half", Policy(0, n_local),
      KOKKOS_LAMBDA(int i, double& esum, double& wsum) {
        auto acc = sv.access();
        double fi[3];
        pair_row(c, x, type, off, nbr, true, n_local, i, fi, esum, wsum, [&](int j, double gx, double gy, double gz) {
          acc(j, 0) += gx;
          acc(j, 1) += gy;
          acc(j, 2) += gz;
        });
        acc(i, 0) += fi[0];
        acc(i, 1) += fi[1];
        acc(i, 2) += fi[2];
      },
      e, w);
  ParticleVec dest = f;
  Kokkos::Experimental::contribute(dest, s.forces);
  return PairResult{e, w};
}

}  // namespace stratus::md
