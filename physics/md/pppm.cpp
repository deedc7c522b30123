// PPPM (Hockney and Eastwood's particle-particle particle-mesh, in LAMMPS' formulation with ik
// differentiation): each rank assigns its atoms' charges to the grid points of its sub-domain plus ghost
// layers with the order-P weights W(x) (a P-point stencil per direction), the ghost layers are summed into
// their owners (GridHalo::scatter_add), the density is transformed (solvers/fft), multiplied by the optimal
// influence function G(k) and by -i k per direction, transformed back (three fields), the fields' ghost
// layers are filled (GridHalo::exchange), and each atom's field is interpolated with the same weights:
//   F_i = C q_i sum_grid W(x_i - x_g) E(x_g),  E = -grad phi (from i k phi(k), with the forward transform's
//   exp(-i k x); LAMMPS transforms with the opposite signs and takes -i k),
//   E_long = C [V / 2 sum_k G(k) |rho(k)|^2 / N^2 - g / sqrt(pi) sum q^2 - pi / (2 g^2 V) (sum q)^2].
// The grid, owned by the ranks in the blocks of the particle decomposition, carries ghost layers as wide
// as the stencil of an atom up to half a skin outside its sub-domain can reach.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <Kokkos_ScatterView.hpp>

#include "comm/grid_halo.hpp"
#include "comm/particle_comm.hpp"
#include "core/error.hpp"
#include "core/fixed_point_sum.hpp"
#include "core/timer.hpp"
#include "domain/cart_decomp.hpp"
#include "domain/local_grid.hpp"
#include "fft/distributed_fft.hpp"
#include "md/kspace.hpp"
#include "md/pppm_detail.hpp"

namespace stratus::md {

namespace {

using namespace pppm_detail;


/// Grid geometry as the kernels see it: global index of the stencil centre of an atom, and the array
/// index of a global grid index (ghosts included).
struct GridMap {
  double lo[3], delinv[3];
  int first[3];  // global index of array index 0 (the first ghost layer) per direction
  Stencil st;
  KOKKOS_INLINE_FUNCTION void locate(double x, int d, int& centre, double& dist) const {
    const double u = (x - lo[d]) * delinv[d];
    centre = static_cast<int>(u + st.shift) - kOffset;
    dist = centre + st.shiftone - u;
  }
  /// The stencil of the atom at x: the array index of its first point c[d] and its weights w[d][0 .. P-1]
  /// (and, with dw, their derivatives along d).
  template <class X>
  KOKKOS_INLINE_FUNCTION void stencil(const X& x, int i, int* c, double (*w)[kMaxOrder],
                                      double (*dw)[kMaxOrder] = nullptr) const {
    for (int d = 0; d < 3; ++d) {
      double dist = 0.0;
      locate(x(i, d), d, c[d], dist);
      st.weights(dist, w[d]);
      if (dw) st.dweights(dist, dw[d]);
      c[d] += st.lower - first[d];
    }
  }
};

// Kernels are free functions (CUDA: no device lambdas in private members).

using DensityScatter = decltype(Kokkos::Experimental::create_scatter_view(Field4D()));

using FixedField = Kokkos::View<unsigned long long****, Kokkos::LayoutRight, MemSpace>;

/// Each owned atom's charge onto its order^3 stencil of grid points (ghosts included), through dep
/// (a ScatterTarget or FixedTarget, core/fixed_point_sum.hpp).
template <class Deposit>
void deposit(const char* name, const Particles& atoms, const GridMap& gm, double delvolinv, const Field4D& rho,
             const Deposit& dep, const Kokkos::View<int*, MemSpace>& out_of_range) {
  const auto x = atoms.x;
  const auto q = atoms.q;
  const int nx = static_cast<int>(rho.extent(3)), ny = static_cast<int>(rho.extent(2)),
            nz = static_cast<int>(rho.extent(1));
  Kokkos::parallel_for(
      name, Kokkos::RangePolicy<ExecSpace>(0, atoms.n_local), KOKKOS_LAMBDA(int i) {
        int c[3];
        double w[3][kMaxOrder];
        gm.stencil(x, i, c, w);
        if (c[0] < 0 || c[1] < 0 || c[2] < 0 || c[0] + gm.st.order > nx || c[1] + gm.st.order > ny ||
            c[2] + gm.st.order > nz) {
          out_of_range(0) = 1;
          return;
        }
        auto t = dep.target();
        const double z0 = delvolinv * q(i);
        for (int n = 0; n < gm.st.order; ++n) {
          const double y0 = z0 * w[2][n];
          for (int m = 0; m < gm.st.order; ++m) {
            const double x0 = y0 * w[1][m];
            for (int l = 0; l < gm.st.order; ++l) dep.add(t, x0 * w[0][l], 0, c[2] + n, c[1] + m, c[0] + l);
          }
        }
      });
}

void assign_charges(const Particles& atoms, const GridMap& gm, double delvolinv, const Field4D& rho,
                    DensityScatter& sv, const Kokkos::View<int*, MemSpace>& out_of_range) {
  Kokkos::deep_copy(rho, 0.0);
  sv.reset_except(rho);
  deposit("pppm::assign_charges", atoms, gm, delvolinv, rho, ScatterTarget<DensityScatter>{sv}, out_of_range);
  Field4D dest = rho;
  Kokkos::Experimental::contribute(dest, sv);
}

/// assign_charges with order-independent sums: the same density, to rounding, in the same bits.
void assign_charges_fixed(const Particles& atoms, const GridMap& gm, double delvolinv, const Field4D& rho,
                          const FixedField& acc, const FixedPointSum& fp, const Kokkos::View<int*, MemSpace>& out_of_range) {
  Kokkos::deep_copy(acc, 0ULL);
  deposit("pppm::assign_charges_fixed", atoms, gm, delvolinv, rho, FixedTarget<FixedField>{acc, fp}, out_of_range);
  fixed_to_real("pppm::fixed_to_density", acc, fp, rho);
}

void owned_to_brick(const LocalGrid& g, const Field4D& rho, const fft::RealBrick& brick) {
  const int gx = g.ng[0], gy = g.ng[1], gz = g.ng[2];
  Kokkos::parallel_for(
      "pppm::owned_to_brick",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>({0, 0, 0}, {g.n[2], g.n[1], g.n[0]}),
      KOKKOS_LAMBDA(int k, int j, int i) { brick(k, j, i) = rho(0, gz + k, gy + j, gx + i); });
}

void brick_to_owned(const LocalGrid& g, const fft::RealBrick& brick, const Field4D& e, int var) {
  const int gx = g.ng[0], gy = g.ng[1], gz = g.ng[2];
  Kokkos::parallel_for(
      "pppm::brick_to_owned",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>({0, 0, 0}, {g.n[2], g.n[1], g.n[0]}),
      KOKKOS_LAMBDA(int k, int j, int i) { e(var, gz + k, gy + j, gx + i) = brick(k, j, i); });
}



/// Energy and virial-trace sums over this rank's half spectrum (each point weighted by how many points of
/// the full spectrum it stands for).
void spectral_energy(const Spectrum& sp, const Kokkos::View<double*, MemSpace>& greens,
                     const fft::SpectralPoints& rho_hat, double g_ewald, double& energy, double& virial) {
  const double s2 = 1.0 / (static_cast<double>(sp.n[0]) * sp.n[1] * sp.n[2]) /
                    (static_cast<double>(sp.n[0]) * sp.n[1] * sp.n[2]);
  const double inv2g2 = 0.5 / (g_ewald * g_ewald);
  Kokkos::parallel_reduce(
      "pppm::energy", Kokkos::RangePolicy<ExecSpace>(0, static_cast<long long>(rho_hat.extent(0))),
      KOKKOS_LAMBDA(long long m, double& e, double& w) {
        int kx = 0, ky = 0, kz = 0;
        sp.map.index(m, kx, ky, kz);
        const double weight = (kx == 0 || 2 * kx == sp.n[0]) ? 1.0 : 2.0;
        const double fx = sp.unitk[0] * signed_index(kx, sp.n[0]), fy = sp.unitk[1] * signed_index(ky, sp.n[1]),
                     fz = sp.unitk[2] * signed_index(kz, sp.n[2]);
        const fft::Complex r = rho_hat(m);
        const double eng = weight * s2 * greens(m) * (r.real() * r.real() + r.imag() * r.imag());
        e += eng;
        w += eng * (1.0 - (fx * fx + fy * fy + fz * fz) * inv2g2);
      },
      energy, virial);
}

/// work = rho_hat G / N (the potential's spectrum).
void potential_spectrum(const Kokkos::View<double*, MemSpace>& greens, const fft::SpectralPoints& rho_hat,
                        double scaleinv, const fft::SpectralPoints& work) {
  Kokkos::parallel_for(
      "pppm::potential", Kokkos::RangePolicy<ExecSpace>(0, static_cast<long long>(work.extent(0))),
      KOKKOS_LAMBDA(long long m) { work(m) = rho_hat(m) * (scaleinv * greens(m)); });
}

/// out = i k_d work for direction d, the spectrum of d phi / dx_d (zero at the Nyquist index, where the
/// derivative of a real field has no odd part); the interpolation takes E = -grad phi.
void gradient_spectrum(const Spectrum& sp, int d, const fft::SpectralPoints& work, const fft::SpectralPoints& out) {
  Kokkos::parallel_for(
      "pppm::gradient", Kokkos::RangePolicy<ExecSpace>(0, static_cast<long long>(work.extent(0))),
      KOKKOS_LAMBDA(long long m) {
        int k[3];
        sp.map.index(m, k[0], k[1], k[2]);
        const double fk = 2 * k[d] == sp.n[d] ? 0.0 : sp.unitk[d] * signed_index(k[d], sp.n[d]);
        const fft::Complex w = work(m);
        out(m) = fft::Complex(-fk * w.imag(), fk * w.real());
      });
}

void interpolate_forces(const Particles& atoms, const GridMap& gm, const Field4D& e, double qqrd2e,
                        const ParticleVec& f) {
  const auto x = atoms.x;
  const auto q = atoms.q;
  Kokkos::parallel_for(
      "pppm::interpolate_forces", Kokkos::RangePolicy<ExecSpace>(0, atoms.n_local), KOKKOS_LAMBDA(int i) {
        int c[3];
        double w[3][kMaxOrder];
        gm.stencil(x, i, c, w);
        double ex = 0.0, ey = 0.0, ez = 0.0;
        for (int n = 0; n < gm.st.order; ++n) {
          const double z0 = w[2][n];
          for (int m = 0; m < gm.st.order; ++m) {
            const double y0 = z0 * w[1][m];
            for (int l = 0; l < gm.st.order; ++l) {
              const double x0 = y0 * w[0][l];
              const int kk = c[2] + n, jj = c[1] + m, ii = c[0] + l;
              ex -= x0 * e(0, kk, jj, ii);
              ey -= x0 * e(1, kk, jj, ii);
              ez -= x0 * e(2, kk, jj, ii);
            }
          }
        }
        const double s = qqrd2e * q(i);
        f(i, 0) += s * ex;
        f(i, 1) += s * ey;
        f(i, 2) += s * ez;
      });
}


void interpolate_forces_ad(const Particles& atoms, const GridMap& gm, const SelfForce& sf, const Field4D& u,
                           double qqrd2e, const ParticleVec& f) {
  const auto x = atoms.x;
  const auto q = atoms.q;
  Kokkos::parallel_for(
      "pppm::interpolate_forces_ad", Kokkos::RangePolicy<ExecSpace>(0, atoms.n_local), KOKKOS_LAMBDA(int i) {
        int c[3];
        double w[3][kMaxOrder], dw[3][kMaxOrder];
        gm.stencil(x, i, c, w, dw);
        double ex = 0.0, ey = 0.0, ez = 0.0;
        for (int n = 0; n < gm.st.order; ++n)
          for (int m = 0; m < gm.st.order; ++m)
            for (int l = 0; l < gm.st.order; ++l) {
              const double v = u(0, c[2] + n, c[1] + m, c[0] + l);
              ex += dw[0][l] * w[1][m] * w[2][n] * v;
              ey += w[0][l] * dw[1][m] * w[2][n] * v;
              ez += w[0][l] * w[1][m] * dw[2][n] * v;
            }
        const double e[3] = {ex * sf.hinv[0], ey * sf.hinv[1], ez * sf.hinv[2]};
        const double qi = q(i);
        for (int d = 0; d < 3; ++d) {
          const double s1 = (x(i, d) - gm.lo[d]) * sf.hinv[d];
          const double self = 2.0 * qi * qi *
                              (sf.coeff[2 * d] * ::sin(2.0 * kPi * s1) + sf.coeff[2 * d + 1] * ::sin(4.0 * kPi * s1));
          f(i, d) += qqrd2e * (e[d] * qi - self);
        }
      });
}



class PPPM final : public KSpace {
 public:
  PPPM(const KSpaceSystem& s, const KSpaceChoice& c, const ParticleComm& pc, HaloTransport transport)
      : sys_(s),
        comm_(pc.comm()),
        rank_(pc.rank()),
        decomp_(pc.comm(), c.grid, pc.dims(), {true, true, true}, CartDecomp::Uneven{}) {
    choice_ = c;
    const Int3 n = c.grid;
    double len[3];
    for (int d = 0; d < 3; ++d) len[d] = s.hi[static_cast<std::size_t>(d)] - s.lo[static_cast<std::size_t>(d)];
    // Ghost layers: the stencil of an atom up to half a skin outside this rank's sub-domain (LAMMPS'
    // nlo_out / nhi_out), the widest over directions, sides and ranks.
    const Stencil st(c.order);
    const Real3 sub_lo = pc.sub_lo(), sub_hi = pc.sub_hi();
    int width = 1;
    for (int d = 0; d < 3; ++d) {
      const double delinv = n[d] / len[d], half = 0.5 * s.skin;
      const int nlo = static_cast<int>((sub_lo[d] - half - s.lo[static_cast<std::size_t>(d)]) * delinv + st.shift) - kOffset;
      const int nhi = static_cast<int>((sub_hi[d] + half - s.lo[static_cast<std::size_t>(d)]) * delinv + st.shift) - kOffset;
      const int in_lo = decomp_.offset()[d], in_hi = in_lo + decomp_.local_cells()[d] - 1;
      width = std::max({width, in_lo - (nlo + st.lower), (nhi + st.upper) - in_hi});
    }
    int fewest = std::numeric_limits<int>::max();
    for (int d = 0; d < 3; ++d) fewest = std::min(fewest, decomp_.local_cells()[d]);
    int in[2] = {width, -fewest}, out[2] = {0, 0};
    STRATUS_MPI_CHECK(MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, comm_));
    width = out[0];
    fewest = -out[1];
    STRATUS_INPUT_REQUIRE(fewest >= width,
                          "md.kspace pppm: the grid " << n[0] << " x " << n[1] << " x " << n[2] << " over "
                                                      << pc.dims()[0] << " x " << pc.dims()[1] << " x " << pc.dims()[2]
                                                      << " ranks leaves " << fewest << " points on some rank, fewer "
                                                      << "than the " << width << " ghost layers the stencil of order "
                                                      << c.order << " needs; use fewer ranks, a finer md.kspace_grid "
                                                      << "or a lower md.kspace_order");
    grid_.n = decomp_.local_cells();
    grid_.offset = decomp_.offset();
    grid_.global_n = n;
    for (int d = 0; d < 3; ++d) {
      grid_.ng[d] = width;
      grid_.lo[d] = s.lo[static_cast<std::size_t>(d)];
      grid_.dx[d] = len[d] / n[d];
    }
    rho_ = grid_.allocate("pppm::density", 1);
    if (c.fixed_point_sums) {
      rho_fixed_ = FixedField("pppm::density_fixed", rho_.extent(0), rho_.extent(1), rho_.extent(2), rho_.extent(3));
      // Every partial sum at a grid point is at most delvolinv sum |q_i| <= delvolinv sqrt(N sum q_i^2)
      // (the weights are non-negative and sum to 1 per atom).
      fixed_ = FixedPointSum::for_bound(static_cast<double>(n[0]) * n[1] * n[2] / sys_.volume() *
                                        std::sqrt(static_cast<double>(s.natoms) * s.qsqsum));
    } else {
      scatter_ = Kokkos::Experimental::create_scatter_view(rho_);
    }
    field_ = grid_.allocate("pppm::field", 3);
    halo_ = std::make_unique<GridHalo>(decomp_, grid_, 3, width, true, transport);
    fft::Box3 box;
    for (int d = 0; d < 3; ++d) {
      box.lo[d] = grid_.offset[d];
      box.hi[d] = grid_.offset[d] + grid_.n[d];
    }
    fft_ = std::make_unique<fft::DistributedFFT>(comm_, n, box, transport);
    brick_ = fft::RealBrick("pppm::brick", grid_.n[2], grid_.n[1], grid_.n[0]);
    const long long ns = fft_->spectral_size();
    rho_hat_ = fft::SpectralPoints("pppm::rho_hat", ns);
    work_ = fft::SpectralPoints("pppm::work", ns);
    grad_ = fft::SpectralPoints("pppm::gradient", ns);
    greens_ = Kokkos::View<double*, MemSpace>("pppm::greens", ns);
    out_of_range_ = Kokkos::View<int*, MemSpace>("pppm::out_of_range", 1);
    sp_.map = fft_->spectral_map();
    for (int d = 0; d < 3; ++d) {
      sp_.n[d] = n[d];
      sp_.unitk[d] = 2.0 * kPi / len[d];
      gm_.lo[d] = s.lo[static_cast<std::size_t>(d)];
      gm_.delinv[d] = n[d] / len[d];
      gm_.first[d] = grid_.offset[d] - width;
    }
    gm_.st = st;
    delvolinv_ = gm_.delinv[0] * gm_.delinv[1] * gm_.delinv[2];
    influence_function(sp_, c.order, c.g_ewald, len, c.ad, greens_);
    if (c.ad) {
      self_force_ = self_force_coefficients(n, c.order, c.g_ewald, len);
      potential_ = grid_.allocate("pppm::potential", 1);
    }
  }

  std::string describe() const override {
    char b[352];
    std::snprintf(b, sizeof b,
                  "pppm: g_ewald %.10g, grid %d x %d x %d, order %d, %s differentiation, %d ghost layers, "
                  "%s-point charge sums, estimated RMS force error %.3g (%.3g relative); %s",
                  choice_.g_ewald, choice_.grid[0], choice_.grid[1], choice_.grid[2], choice_.order,
                  choice_.ad ? "ad" : "ik", grid_.ng[0], choice_.fixed_point_sums ? "fixed" : "floating",
                  choice_.estimated(), choice_.estimated() / two_charge_force(sys_.qqrd2e), fft_->describe().c_str());
    return b;
  }

  KSpaceResult compute(const Particles& atoms, const ParticleVec& f, bool energy) override {
    if (choice_.fixed_point_sums)
      assign_charges_fixed(atoms, gm_, delvolinv_, rho_, rho_fixed_, fixed_, out_of_range_);
    else
      assign_charges(atoms, gm_, delvolinv_, rho_, scatter_, out_of_range_);
    halo_->scatter_add(rho_);
    owned_to_brick(grid_, rho_, brick_);
    fft_->forward(brick_, rho_hat_);
    KSpaceResult r;
    if (energy) {
      // Checked on reporting steps (a host read): an atom beyond the ghost layers would break the sums.
      auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), out_of_range_);
      STRATUS_REQUIRE(h(0) == 0, "pppm: an atom's stencil reaches beyond the ghost layers of its rank (an atom "
                                 "moved more than half the skin without a neighbor-list rebuild)");
      double e = 0.0, w = 0.0;
      spectral_energy(sp_, greens_, rho_hat_, choice_.g_ewald, e, w);
      const double vol = sys_.volume(), c = sys_.qqrd2e, g = choice_.g_ewald;
      r.energy = 0.5 * vol * e * c;
      r.virial = 0.5 * vol * w * c;
      if (rank_ == 0)
        r.energy -= c * (g * sys_.qsqsum / std::sqrt(kPi) + 0.5 * kPi * sys_.qsum * sys_.qsum / (g * g * vol));
    }
    const double scaleinv = 1.0 / (static_cast<double>(sp_.n[0]) * sp_.n[1] * sp_.n[2]);
    potential_spectrum(greens_, rho_hat_, scaleinv, work_);
    if (choice_.ad) {  // one backward transform: the potential, differentiated through the weights
      fft_->backward(work_, brick_);
      brick_to_owned(grid_, brick_, potential_, 0);
      halo_->exchange(potential_);
      interpolate_forces_ad(atoms, gm_, self_force_, potential_, sys_.qqrd2e, f);
      return r;
    }
    for (int d = 0; d < 3; ++d) {
      gradient_spectrum(sp_, d, work_, grad_);
      fft_->backward(grad_, brick_);
      brick_to_owned(grid_, brick_, field_, d);
    }
    halo_->exchange(field_);
    interpolate_forces(atoms, gm_, field_, sys_.qqrd2e, f);
    return r;
  }

 private:
  KSpaceSystem sys_;
  MPI_Comm comm_;
  int rank_ = 0;
  CartDecomp decomp_;
  LocalGrid grid_;
  std::unique_ptr<GridHalo> halo_;
  std::unique_ptr<fft::DistributedFFT> fft_;
  Field4D rho_, field_;
  Field4D potential_;  // ad
  SelfForce self_force_{};
  DensityScatter scatter_;  // per-thread copies on CPUs, atomics on GPUs
  FixedField rho_fixed_;    // instead, with choice_.fixed_point_sums
  FixedPointSum fixed_;
  fft::RealBrick brick_;
  fft::SpectralPoints rho_hat_, work_, grad_;
  Kokkos::View<double*, MemSpace> greens_;
  Kokkos::View<int*, MemSpace> out_of_range_;
  Spectrum sp_{};
  GridMap gm_{};
  double delvolinv_ = 0.0;
};

}  // namespace

std::unique_ptr<KSpace> make_pppm(const KSpaceSystem& s, const KSpaceChoice& choice, const ParticleComm& pc,
                                  HaloTransport transport) {
  return std::make_unique<PPPM>(s, choice, pc, transport);
}

}  // namespace stratus::md
