// Ewald summation (the k-space part): for the half space of wave vectors k = 2 pi (kx / Lx, ky / Ly, kz / Lz),
// |k_i| <= kmax_i and |k|^2 <= the largest axis vector's |k|^2 (LAMMPS' set),
//   E = C (4 pi / V) sum_k exp(-k^2 / 4 g^2) / k^2 |S(k)|^2 - C g / sqrt(pi) sum q^2 - C pi / (2 g^2 V) (sum q)^2
//   F_i = C q_i (8 pi / V) sum_k exp(-k^2 / 4 g^2) / k^2 k [Re S sin(k.r_i) - Im S cos(k.r_i)],
// S(k) = sum_j q_j exp(i k.r_j), C = qqrd2e; the virial of a k-vector is its energy times
// (1 - k^2 / (2 g^2)) in the trace.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include <Kokkos_Complex.hpp>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "md/kspace.hpp"

namespace stratus::md {

namespace {

constexpr double kPi = 3.14159265358979323846;

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
    std::vector<double> k, coef;
    for (int kx = 0; kx <= c.kmax[0]; ++kx)
      for (int ky = -c.kmax[1]; ky <= c.kmax[1]; ++ky)
        for (int kz = -c.kmax[2]; kz <= c.kmax[2]; ++kz) {
          const bool half = kx > 0 || (kx == 0 && ky > 0) || (kx == 0 && ky == 0 && kz > 0);
          if (!half) continue;
          const double v[3] = {unit[0] * kx, unit[1] * ky, unit[2] * kz};
          const double sqk = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
          if (sqk > gsqmx) continue;
          k.insert(k.end(), v, v + 3);
          coef.push_back(4.0 * kPi / vol * std::exp(-0.25 * sqk / (g * g)) / sqk);
        }
    nk_ = static_cast<int>(coef.size());
    kvec_ = Kokkos::View<double* [3], Kokkos::LayoutRight, MemSpace>("ewald::k", nk_);
    ug_ = Kokkos::View<double*, MemSpace>("ewald::ug", nk_);
    sf_ = Kokkos::View<double* [2], Kokkos::LayoutRight, MemSpace>("ewald::sf", nk_);
    sf_host_ = Kokkos::create_mirror_view(sf_);
    auto hk = Kokkos::create_mirror_view(kvec_);
    auto hu = Kokkos::create_mirror_view(ug_);
    for (int n = 0; n < nk_; ++n) {
      for (int d = 0; d < 3; ++d) hk(n, d) = k[static_cast<std::size_t>(3 * n + d)];
      hu(n) = coef[static_cast<std::size_t>(n)];
    }
    Kokkos::deep_copy(kvec_, hk);
    Kokkos::deep_copy(ug_, hu);
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
    const int n = atoms.n_local, nk = nk_;
    const auto x = atoms.x;
    const auto q = atoms.q;
    const auto kv = kvec_;
    const auto sf = sf_;
    const double lo0 = sys_.lo[0], lo1 = sys_.lo[1], lo2 = sys_.lo[2];
    // Structure factors of this rank's atoms: one team per k-vector.
    using Team = Kokkos::TeamPolicy<ExecSpace>;
    Kokkos::parallel_for(
        "ewald::structure_factors", Team(nk, Kokkos::AUTO), KOKKOS_LAMBDA(const Team::member_type& t) {
          const int m = t.league_rank();
          const double kx = kv(m, 0), ky = kv(m, 1), kz = kv(m, 2);
          Kokkos::complex<double> sum(0.0, 0.0);
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(t, n),
              [&](int i, Kokkos::complex<double>& acc) {
                const double arg = kx * (x(i, 0) - lo0) + ky * (x(i, 1) - lo1) + kz * (x(i, 2) - lo2);
                acc += Kokkos::complex<double>(q(i) * ::cos(arg), q(i) * ::sin(arg));
              },
              sum);
          Kokkos::single(Kokkos::PerTeam(t), [&]() {
            sf(m, 0) = sum.real();
            sf(m, 1) = sum.imag();
          });
        });
    Kokkos::deep_copy(sf_host_, sf_);
    {
      ScopedPhase phase(Phase::communication);
      STRATUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sf_host_.data(), 2 * nk, MPI_DOUBLE, MPI_SUM, comm_));
    }
    Kokkos::deep_copy(sf_, sf_host_);
    const auto ug = ug_;
    const double pre = 2.0 * sys_.qqrd2e;  // 8 pi / V is 2 ug / exp / k^2 folded in ug (4 pi / V)
    Kokkos::parallel_for(
        "ewald::forces", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(int i) {
          const double xi = x(i, 0) - lo0, yi = x(i, 1) - lo1, zi = x(i, 2) - lo2;
          double fx = 0.0, fy = 0.0, fz = 0.0;
          for (int m = 0; m < nk; ++m) {
            const double arg = kv(m, 0) * xi + kv(m, 1) * yi + kv(m, 2) * zi;
            const double w = ug(m) * (sf(m, 0) * ::sin(arg) - sf(m, 1) * ::cos(arg));
            fx += w * kv(m, 0);
            fy += w * kv(m, 1);
            fz += w * kv(m, 2);
          }
          const double s = pre * q(i);
          f(i, 0) += s * fx;
          f(i, 1) += s * fy;
          f(i, 2) += s * fz;
        });
    KSpaceResult r;
    if (!energy || rank_ != 0) return r;
    // The sums over k on rank 0 only (the structure factors are global).
    const double g = choice_.g_ewald, vol = sys_.volume();
    auto hk = Kokkos::create_mirror_view_and_copy(HostSpace(), kvec_);
    auto hu = Kokkos::create_mirror_view_and_copy(HostSpace(), ug_);
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
};

}  // namespace

std::unique_ptr<KSpace> make_ewald(const KSpaceSystem& s, const KSpaceChoice& choice, MPI_Comm comm) {
  return std::make_unique<Ewald>(s, choice, comm);
}

}  // namespace stratus::md
