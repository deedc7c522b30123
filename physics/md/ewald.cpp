// Ewald summation (the k-space part): for the half space of wave vectors k = 2 pi (kx / Lx, ky / Ly, kz / Lz),
// |k_i| <= kmax_i and |k|^2 <= the largest axis vector's |k|^2 (LAMMPS' set),
//   E = C (4 pi / V) sum_k exp(-k^2 / 4 g^2) / k^2 |S(k)|^2 - C g / sqrt(pi) sum q^2 - C pi / (2 g^2 V) (sum q)^2
//   F_i = C q_i (8 pi / V) sum_k exp(-k^2 / 4 g^2) / k^2 k [Re S sin(k.r_i) - Im S cos(k.r_i)],
// S(k) = sum_j q_j exp(i k.r_j), C = qqrd2e; the virial of a k-vector is its energy times
// (1 - k^2 / (2 g^2)) in the trace. exp(i k.r) is the product of per-direction phases built by repeated
// multiplication (LAMMPS' cs/sn tables): one sine and cosine per atom and direction, not per k-vector.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include <Kokkos_Complex.hpp>
#include <Kokkos_ScatterView.hpp>

#include "core/error.hpp"
#include "core/fixed_point_sum.hpp"
#include "core/timer.hpp"
#include "md/kspace.hpp"

namespace stratus::md {

namespace {

constexpr double kPi = 3.14159265358979323846;

constexpr int kMaxK = 64;  // the largest kmax per direction (the phase tables live on each thread's stack)
using C = Kokkos::complex<double>;
using KInt = Kokkos::View<int* [3], Kokkos::LayoutRight, MemSpace>;
using KVec = Kokkos::View<double* [3], Kokkos::LayoutRight, MemSpace>;
using SF = Kokkos::View<double* [2], Kokkos::LayoutRight, MemSpace>;
using SfScatter = decltype(Kokkos::Experimental::create_scatter_view(SF()));

/// What the kernels need to form exp(i k.r) from the per-direction phases.
struct Geometry {
  double lo[3];
  double u[3];  // 2 pi / L
  int kmax[3];
};

/// exp(i n u_d (x_d - lo_d)) for n = 0 .. kmax (ex) and n = -kmax .. kmax (ey, ez, at index n + kmax), by
/// repeated multiplication (one sine and cosine per direction and atom).
struct PhaseTable {
  C ex[kMaxK + 1], ey[2 * kMaxK + 1], ez[2 * kMaxK + 1];
  KOKKOS_INLINE_FUNCTION void fill(const Geometry& g, double x, double y, double z) {
    const double a[3] = {g.u[0] * (x - g.lo[0]), g.u[1] * (y - g.lo[1]), g.u[2] * (z - g.lo[2])};
    ex[0] = C(1.0, 0.0);
    const C bx(::cos(a[0]), ::sin(a[0]));
    for (int n = 1; n <= g.kmax[0]; ++n) ex[n] = ex[n - 1] * bx;
    C* t[2] = {ey, ez};
    for (int d = 1; d < 3; ++d) {
      const int km = g.kmax[d];
      const C b(::cos(a[d]), ::sin(a[d]));
      t[d - 1][km] = C(1.0, 0.0);
      for (int n = 1; n <= km; ++n) {
        t[d - 1][km + n] = t[d - 1][km + n - 1] * b;
        t[d - 1][km - n] = Kokkos::conj(t[d - 1][km + n]);
      }
    }
  }
  template <class X>
  KOKKOS_INLINE_FUNCTION PhaseTable(const Geometry& g, const X& x, int i) {
    fill(g, x(i, 0), x(i, 1), x(i, 2));
  }
  KOKKOS_INLINE_FUNCTION C at(const Geometry& g, int kx, int ky, int kz) const {
    return ex[kx] * ey[ky + g.kmax[1]] * ez[kz + g.kmax[2]];
  }
};

// Kernels are free functions (CUDA: no device lambdas in private members).

using SfFixed = Kokkos::View<unsigned long long* [2], Kokkos::LayoutRight, MemSpace>;

/// S(k) = sum over this rank's atoms of q exp(i k.r), for every k-vector, through sum (a ScatterTarget or
/// FixedTarget, core/fixed_point_sum.hpp).
template <class Sum>
void add_structure_factors(const char* name, const Particles& atoms, const Geometry& geo, const KInt& kint,
                           const Sum& sum) {
  const auto x = atoms.x;
  const auto q = atoms.q;
  const int nk = static_cast<int>(kint.extent(0));
  Kokkos::parallel_for(
      name, Kokkos::RangePolicy<ExecSpace>(0, atoms.n_local), KOKKOS_LAMBDA(int i) {
        const PhaseTable p(geo, x, i);
        auto t = sum.target();
        const double qi = q(i);
        for (int m = 0; m < nk; ++m) {
          const C e = p.at(geo, kint(m, 0), kint(m, 1), kint(m, 2));
          sum.add(t, qi * e.real(), m, 0);
          sum.add(t, qi * e.imag(), m, 1);
        }
      });
}

void structure_factors(const Particles& atoms, const Geometry& geo, const KInt& kint, const SF& sf, SfScatter& sv) {
  Kokkos::deep_copy(sf, 0.0);
  sv.reset_except(sf);
  add_structure_factors("ewald::structure_factors", atoms, geo, kint, ScatterTarget<SfScatter>{sv});
  SF dest = sf;
  Kokkos::Experimental::contribute(dest, sv);
}

/// structure_factors with order-independent sums.
void structure_factors_fixed(const Particles& atoms, const Geometry& geo, const KInt& kint, const SF& sf,
                             const SfFixed& acc, const FixedPointSum& fp) {
  Kokkos::deep_copy(acc, 0ULL);
  add_structure_factors("ewald::structure_factors_fixed", atoms, geo, kint, FixedTarget<SfFixed>{acc, fp});
  fixed_to_real("ewald::fixed_to_sf", acc, fp, sf);
}

void ewald_forces(const Particles& atoms, const Geometry& geo, const KInt& kint, const KVec& kv,
                  const Kokkos::View<double*, MemSpace>& ug, const SF& sf, double pre, const ParticleVec& f) {
  const auto x = atoms.x;
  const auto q = atoms.q;
  const int nk = static_cast<int>(kint.extent(0));
  Kokkos::parallel_for(
      "ewald::forces", Kokkos::RangePolicy<ExecSpace>(0, atoms.n_local), KOKKOS_LAMBDA(int i) {
        const PhaseTable p(geo, x, i);
        double fx = 0.0, fy = 0.0, fz = 0.0;
        for (int m = 0; m < nk; ++m) {
          const C e = p.at(geo, kint(m, 0), kint(m, 1), kint(m, 2));  // cos(k.r) + i sin(k.r)
          const double w = ug(m) * (sf(m, 0) * e.imag() - sf(m, 1) * e.real());
          fx += w * kv(m, 0);
          fy += w * kv(m, 1);
          fz += w * kv(m, 2);
        }
        const double s = pre * q(i);
        f(i, 0) += s * fx;
        f(i, 1) += s * fy;
        f(i, 2) += s * fz;
      });
}

class Ewald final : public KSpace {
 public:
  Ewald(const KSpaceSystem& s, const KSpaceChoice& c, MPI_Comm comm) : sys_(s), comm_(comm) {
    choice_ = c;
    MPI_Comm_rank(comm, &rank_);
    const double g = c.g_ewald, vol = s.volume();
    double unit[3];
    for (int d = 0; d < 3; ++d)
      unit[d] = 2.0 * kPi / (s.hi[static_cast<std::size_t>(d)] - s.lo[static_cast<std::size_t>(d)]);
    double gsqmx = 0.0;
    for (int d = 0; d < 3; ++d) gsqmx = std::max(gsqmx, unit[d] * unit[d] * c.kmax[d] * c.kmax[d]);
    gsqmx *= 1.00001;
    for (int d = 0; d < 3; ++d)
      STRATUS_INPUT_REQUIRE(c.kmax[d] <= kMaxK, "md.kspace ewald: kmax " << c.kmax[d] << " in " << "xyz"[d]
                                                                       << " exceeds " << kMaxK
                                                                       << " (a large system or a tight accuracy): "
                                                                          "use md.kspace = pppm");
    std::vector<double> k, coef;
    std::vector<int> ki;
    for (int kx = 0; kx <= c.kmax[0]; ++kx)
      for (int ky = -c.kmax[1]; ky <= c.kmax[1]; ++ky)
        for (int kz = -c.kmax[2]; kz <= c.kmax[2]; ++kz) {
          const bool half = kx > 0 || (kx == 0 && ky > 0) || (kx == 0 && ky == 0 && kz > 0);
          if (!half) continue;
          const double v[3] = {unit[0] * kx, unit[1] * ky, unit[2] * kz};
          const double sqk = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
          if (sqk > gsqmx) continue;
          k.insert(k.end(), v, v + 3);
          ki.insert(ki.end(), {kx, ky, kz});
          coef.push_back(4.0 * kPi / vol * std::exp(-0.25 * sqk / (g * g)) / sqk);
        }
    nk_ = static_cast<int>(coef.size());
    kvec_ = Kokkos::View<double* [3], Kokkos::LayoutRight, MemSpace>("ewald::k", nk_);
    ug_ = Kokkos::View<double*, MemSpace>("ewald::ug", nk_);
    sf_ = Kokkos::View<double* [2], Kokkos::LayoutRight, MemSpace>("ewald::sf", nk_);
    sf_host_ = Kokkos::create_mirror_view(sf_);
    if (c.fixed_point_sums) {
      sf_fixed_ = SfFixed("ewald::sf_fixed", nk_);
      // |partial sums| <= sum |q_i| <= sqrt(N sum q_i^2)
      fixed_ = FixedPointSum::for_bound(std::sqrt(static_cast<double>(s.natoms) * s.qsqsum));
    } else {
      sf_scatter_ = Kokkos::Experimental::create_scatter_view(sf_);
    }
    kint_ = Kokkos::View<int* [3], Kokkos::LayoutRight, MemSpace>("ewald::kint", nk_);
    kvec_host_ = Kokkos::create_mirror_view(kvec_);
    ug_host_ = Kokkos::create_mirror_view(ug_);
    auto& hk = kvec_host_;
    auto& hu = ug_host_;
    auto hi = Kokkos::create_mirror_view(kint_);
    for (int n = 0; n < nk_; ++n) {
      for (int d = 0; d < 3; ++d) {
        hk(n, d) = k[static_cast<std::size_t>(3 * n + d)];
        hi(n, d) = ki[static_cast<std::size_t>(3 * n + d)];
      }
      hu(n) = coef[static_cast<std::size_t>(n)];
    }
    Kokkos::deep_copy(kvec_, hk);
    Kokkos::deep_copy(kint_, hi);
    Kokkos::deep_copy(ug_, hu);
    for (int d = 0; d < 3; ++d) {
      geo_.lo[d] = s.lo[static_cast<std::size_t>(d)];
      geo_.u[d] = unit[d];
      geo_.kmax[d] = c.kmax[d];
    }
  }

  std::string describe() const override {
    char b[256];
    std::snprintf(b, sizeof b,
                  "ewald: g_ewald %.10g, kmax %d %d %d (%d k-vectors), estimated RMS force error %.3g (%.3g relative)",
                  choice_.g_ewald, choice_.kmax[0], choice_.kmax[1], choice_.kmax[2], nk_, choice_.estimated(),
                  choice_.estimated() / two_charge_force(sys_.qqrd2e));
    return b;
  }

  KSpaceResult compute(const Particles& atoms, const ParticleVec& f, bool energy) override {
    // Structure factors of this rank's atoms, summed over the ranks, then the forces.
    if (choice_.fixed_point_sums)
      structure_factors_fixed(atoms, geo_, kint_, sf_, sf_fixed_, fixed_);
    else
      structure_factors(atoms, geo_, kint_, sf_, sf_scatter_);
    Kokkos::deep_copy(sf_host_, sf_);
    {
      ScopedPhase phase(Phase::communication);
      STRATUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sf_host_.data(), 2 * nk_, MPI_DOUBLE, MPI_SUM, comm_));
    }
    Kokkos::deep_copy(sf_, sf_host_);
    ewald_forces(atoms, geo_, kint_, kvec_, ug_, sf_, 2.0 * sys_.qqrd2e, f);  // 8 pi / V = 2 x ug's 4 pi / V
    const int nk = nk_;
    KSpaceResult r;
    if (!energy || rank_ != 0) return r;
    // The sums over k on rank 0 only (the structure factors are global).
    const double g = choice_.g_ewald, vol = sys_.volume();
    const auto& hk = kvec_host_;
    const auto& hu = ug_host_;
    double e = 0.0, w = 0.0;
    for (int m = 0; m < nk; ++m) {
      const double sqk = hk(m, 0) * hk(m, 0) + hk(m, 1) * hk(m, 1) + hk(m, 2) * hk(m, 2);
      const double em = hu(m) * (sf_host_(m, 0) * sf_host_(m, 0) + sf_host_(m, 1) * sf_host_(m, 1));
      e += em;
      w += em * (1.0 - 0.5 * sqk / (g * g));
    }
    const double c = sys_.qqrd2e;
    r.energy = c * (e - g * sys_.qsqsum / std::sqrt(kPi) - 0.5 * kPi * sys_.qsum * sys_.qsum / (g * g * vol));
    r.virial = c * w;
    return r;
  }

 private:
  KSpaceSystem sys_;
  MPI_Comm comm_;
  int rank_ = 0;
  int nk_ = 0;
  Kokkos::View<double* [3], Kokkos::LayoutRight, MemSpace> kvec_;
  Kokkos::View<double*, MemSpace> ug_;
  Kokkos::View<double* [2], Kokkos::LayoutRight, MemSpace> sf_;
  Kokkos::View<double* [2], Kokkos::LayoutRight, MemSpace>::HostMirror sf_host_;
  SfScatter sf_scatter_;  // per-thread copies on CPUs, atomics on GPUs
  SfFixed sf_fixed_;      // instead, with choice_.fixed_point_sums
  FixedPointSum fixed_;
  Kokkos::View<int* [3], Kokkos::LayoutRight, MemSpace> kint_;
  Geometry geo_{};
  KVec::HostMirror kvec_host_;                          // the k-vectors and coefficients, for the energy
  Kokkos::View<double*, MemSpace>::HostMirror ug_host_;
};

}  // namespace

std::unique_ptr<KSpace> make_ewald(const KSpaceSystem& s, const KSpaceChoice& choice, MPI_Comm comm) {
  return std::make_unique<Ewald>(s, choice, comm);
}

}  // namespace stratus::md
