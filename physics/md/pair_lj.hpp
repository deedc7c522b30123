// The pair styles and the generic pair compute that owns the neighbor loop. A potential holds physics
// only (per-pair coefficients, energy and force of one pair at r^2); compute_pair() walks a NeighborList,
// sums forces, the potential energy and the virial. Styles:
//   lj/cut: E(r) = 4 eps [(sigma/r)^12 - (sigma/r)^6] - offset    for r < rc (offset = E(rc) with shift on)
//           F(r) = 24 eps [2 (sigma/r)^12 - (sigma/r)^6] / r^2 * r_vec   (force on i from j, r_vec = x_i - x_j)
//   coul/long (the real-space part of an Ewald-split Coulomb sum, with Ewald or PPPM for the rest):
//           E(r) = C qi qj erfc(g r) / r,  F(r) = C qi qj [erfc(g r) + 2 g r exp(-g^2 r^2) / sqrt(pi)] / r^3 * r_vec
//           for r < rc_coul, C = qqrd2e (1 in lj units, 332.06371 in real, 14.399645 in metal)
//   lj/cut/coul/long: both, each within its own cutoff.
// Coefficients are LAMMPS' lj1..lj4 (48 eps s^12, 24 eps s^6, 4 eps s^12, 4 eps s^6); mixed pairs use
// geometric (eps, sigma) or Lorentz-Berthelot (sigma arithmetic) rules unless set explicitly.
// Full lists: each owned atom sums its own force (no atomics; the GPU choice), energy and virial count
// half of each pair. Half lists: Newton's third law among owned atoms (each pair once, the partner's
// force through a ScatterView); a pair with a ghost is listed from both sides (the ghost gets no force and
// the pair counts half: no reverse communication), or once with a newton_ghost list (the ghost's force is
// summed back to its owner by the caller, as LAMMPS' newton on).
#pragma once
#include <Kokkos_ScatterView.hpp>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "neighbor/neighbor_list.hpp"

namespace stratus::md {

enum class Mixing { geometric, arithmetic };

/// Host-side description: per type pair (1-based, symmetric) epsilon, sigma and cutoff.
struct LJSpec {
  int ntypes = 1;
  std::vector<double> epsilon, sigma, cutoff;  // (ntypes + 1)^2, index [i * (ntypes + 1) + j]
  bool shift = false;                          // subtract E(rc) so that the energy is continuous
  /// Every pair: from the diagonal by `mix` where not set explicitly (set_pair), cutoff the global one.
  LJSpec(int ntypes, double global_cutoff);
  void set_type(int t, double eps, double sig);
  void set_pair(int i, int j, double eps, double sig, double rc = -1.0);
  void mix(Mixing rule);
  double& eps(int i, int j) { return epsilon[i * (ntypes + 1) + j]; }
  double& sig(int i, int j) { return sigma[i * (ntypes + 1) + j]; }
  double& rc(int i, int j) { return cutoff[i * (ntypes + 1) + j]; }
  double max_cutoff() const;

 private:
  std::vector<char> explicit_;  // pairs set by set_pair, kept by mix()
};

/// Device coefficients, copyable into kernels.
struct LJCoeffs {
  int stride = 2;  // ntypes + 1
  bool uniform = true;  // every type pair has the same coefficients (one type, or all alike)
  Kokkos::View<double*, MemSpace> lj1, lj2, lj3, lj4, cutsq, offset;
  static LJCoeffs from_spec(const LJSpec& s);
  KOKKOS_INLINE_FUNCTION double fpair(int ti, int tj, double rsq) const {  // F / r
    const int p = ti * stride + tj;
    const double r2i = 1.0 / rsq, r6i = r2i * r2i * r2i;
    return r6i * (lj1(p) * r6i - lj2(p)) * r2i;
  }
  KOKKOS_INLINE_FUNCTION double energy(int ti, int tj, double rsq) const {
    const int p = ti * stride + tj;
    const double r2i = 1.0 / rsq, r6i = r2i * r2i * r2i;
    return r6i * (lj3(p) * r6i - lj4(p)) - offset(p);
  }
};

/// The real-space Coulomb term of coul/long. erfc is exact, or (exact = false) the Abramowitz-Stegun
/// 7.1.26 polynomial that LAMMPS' coul/long styles evaluate without tables (pair_modify table 0), with
/// LAMMPS' constants, so that a comparison with LAMMPS can be made at round-off level.
struct CoulLong {
  double cut_coulsq = 0.0;  // squared cutoff
  double g_ewald = 0.0;     // splitting parameter (1/length)
  double qqrd2e = 1.0;      // energy * length / charge^2
  bool exact = true;
  /// F / r (fpair) and the energy of charges qi qj at squared distance rsq < cut_coulsq.
  KOKKOS_INLINE_FUNCTION void eval(double qiqj, double rsq, double& fpair, double& e) const {
    const double r = ::sqrt(rsq), gr = g_ewald * r, expm2 = ::exp(-gr * gr);
    const double pre = qqrd2e * qiqj / r;
    double erfc_gr, two_over_sqrtpi;
    if (exact) {
      erfc_gr = ::erfc(gr);
      two_over_sqrtpi = 1.1283791670955126;  // 2 / sqrt(pi)
    } else {  // LAMMPS' EWALD_P, A1..A5 and EWALD_F
      const double t = 1.0 / (1.0 + 0.3275911 * gr);
      erfc_gr = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * expm2;
      two_over_sqrtpi = 1.12837917;
    }
    e = pre * erfc_gr;
    fpair = pre * (erfc_gr + two_over_sqrtpi * gr * expm2) / rsq;
  }
};

/// lj/cut/coul/long (or coul/long alone when !lj): Lennard-Jones within its per-pair cutoffs plus coul/long
/// within the Coulomb cutoff. q holds the charges of owned and ghost atoms.
struct LJCoulLong {
  bool lj = true;
  LJCoeffs ljc;
  CoulLong coul;
  ParticleScalar q;
};

struct PairResult {
  double energy = 0.0;  // potential energy of the owned atoms' pairs (energy units), Coulomb included
  double ecoul = 0.0;   // its real-space Coulomb part
  double virial = 0.0;  // sum over pairs of r_ij . f_ij (energy units)
};

/// Scratch of the half-list compute kept between calls: the force accumulator of Kokkos' ScatterView
/// (per-thread copies on CPU threads, atomics on GPUs; where the GPU paths are taken on a CPU, atomics
/// there too: core/gpu_paths.hpp).
struct PairScratch {
  using Scatter = decltype(Kokkos::Experimental::create_scatter_view(ParticleVec()));
  /// The GPUs' accumulator: atomic adds into the force array itself (on a GPU build the same type).
  using AtomicScatter =
      Kokkos::Experimental::ScatterView<double* [3], ParticleVec::array_layout, ExecSpace,
                                        Kokkos::Experimental::ScatterSum, Kokkos::Experimental::ScatterNonDuplicated,
                                        Kokkos::Experimental::ScatterAtomic>;
  Scatter forces;
  AtomicScatter atomic_forces;     // used only where Scatter is another type and the GPU paths are taken
  const double* target = nullptr;  // the force array the accumulator was made for, and its rows
  std::size_t rows = 0;
};

/// Which lj/cut row runs on a CPU with AVX-512 or AVX2: the explicit SIMD one (md/pair_simd.hpp), or the
/// portable loop that GPUs and other CPUs run (tests compare the two). Elsewhere both mean the portable loop.
/// `stratus info` says which the build has.
enum class PairPath { best, portable };

/// Forces on the owned atoms 0 .. n_local - 1 of f (all of f is zeroed first), and this rank's share of the
/// energy and virial (when `energy`; zeros otherwise). The list must have been built on x with the same
/// n_local. With a newton_ghost list, the ghost rows of f hold forces to be summed back to their owners
/// (ParticleComm::reverse). Pass scratch to reuse the half-list accumulator across calls.
PairResult compute_pair(const LJCoeffs& c, const ParticleVec& x, const ParticleInt& type, const NeighborList& list,
                        const ParticleVec& f, PairScratch* scratch = nullptr, bool energy = true,
                        PairPath path = PairPath::best);
/// The same for lj/cut/coul/long or coul/long.
PairResult compute_pair(const LJCoulLong& c, const ParticleVec& x, const ParticleInt& type, const NeighborList& list,
                        const ParticleVec& f, PairScratch* scratch = nullptr, bool energy = true);

}  // namespace stratus::md
