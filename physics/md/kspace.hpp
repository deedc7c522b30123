// Long-range electrostatics: the k-space part of an Ewald-split Coulomb sum, whose real-space part is the
// coul/long pair term (pair_lj.hpp). Two solvers behind one interface: Ewald summation (a direct sum over
// wave vectors, the reference) and PPPM (Hockney-Eastwood particle-particle particle-mesh on a distributed
// FFT). Both follow LAMMPS' kspace_style ewald and pppm: the same splitting, energies (elong includes the
// self energy and, for a net charge, the neutralising background), virial and, from a requested relative
// force accuracy, the same choice of the splitting parameter g_ewald, the PPPM grid and the Ewald k-vectors
// (docs/electrostatics.md).
#pragma once
#include <array>
#include <memory>
#include <string>

#include "comm/staging.hpp"
#include "core/types.hpp"
#include "domain/particles.hpp"

namespace stratus {
class ParticleComm;
}

namespace stratus::md {

/// What the solvers need to know about the system (global values, the same on every rank).
struct KSpaceSystem {
  std::array<double, 3> lo{}, hi{};  ///< periodic box
  long long natoms = 0;
  double qsum = 0.0, qsqsum = 0.0;  ///< sum of q and of q^2 over all atoms
  double cutoff = 0.0;              ///< real-space Coulomb cutoff (length)
  double qqrd2e = 1.0;              ///< energy * length / charge^2
  double skin = 0.0;                ///< neighbor skin: how far an owned atom may stray from its sub-domain
  double volume() const { return (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]); }
  /// q^2 scaled as LAMMPS' q2: sum q^2 * qqrd2e.
  double q2() const { return qsqsum * qqrd2e; }
};

/// The parameters a solver runs with, given or chosen from the accuracy.
struct KSpaceChoice {
  double g_ewald = 0.0;
  Int3 grid{};    ///< PPPM
  int order = 5;  ///< PPPM
  Int3 kmax{};    ///< Ewald
  bool ad = false;  ///< PPPM: analytic differentiation (else ik)
  /// Charges (PPPM) and structure factors (Ewald) summed in fixed point (core/fixed_point_sum.hpp): the
  /// same bits whatever order the atomic adds of a GPU land in; else a ScatterView in floating point.
  bool fixed_point_sums = false;
  double accuracy_abs = 0.0;       ///< the requested absolute RMS force accuracy (force units)
  double estimated_kspace = 0.0;   ///< estimated RMS force error of the k-space part (force units)
  double estimated_rspace = 0.0;   ///< ... of the real-space cutoff
  double estimated() const;        ///< both combined
};

/// Force between two unit charges one length unit apart (LAMMPS' two_charge_force): the scale of a
/// relative accuracy. qqr2e in real and metal units (charges in e, lengths in Angstrom), 1 in lj units.
double two_charge_force(double qqrd2e);
/// LAMMPS' first estimate of g_ewald from the absolute accuracy (kspace.cpp / pppm.cpp).
double estimate_g_ewald(const KSpaceSystem& s, double accuracy_abs);
/// Ewald: g_ewald (given when > 0) and the largest wave-vector index per direction (given when all > 0).
KSpaceChoice choose_ewald(const KSpaceSystem& s, double accuracy_rel, double g_ewald, Int3 kmax);
/// PPPM: g_ewald and the grid, each given (> 0) or chosen as LAMMPS does. ik differentiation: the grid
/// from the analytic ik error estimate (Deserno and Holm 1998) grown until it meets the accuracy; ad: the
/// spacing 4 / g_ewald shrunk by 5 % until the optimal-influence-function error estimate (Q_opt) meets it.
/// Then sizes with only factors 2, 3 and 5, and g_ewald adjusted so that the real- and k-space errors are
/// equal.
KSpaceChoice choose_pppm(const KSpaceSystem& s, double accuracy_rel, double g_ewald, Int3 grid, int order,
                         bool ad = false);
/// Estimated RMS k-space force error of PPPM (ik or ad) with this grid, order and g_ewald.
double pppm_kspace_error(const KSpaceSystem& s, double g_ewald, Int3 grid, int order, bool ad = false);
/// Estimated RMS real-space force error of the cutoff at this g_ewald.
double rspace_error(const KSpaceSystem& s, double g_ewald);

struct KSpaceResult {
  double energy = 0.0;  ///< this rank's share of the k-space energy (self energy included on rank 0)
  double virial = 0.0;  ///< this rank's share of the trace of the k-space virial
};

class KSpace {
 public:
  virtual ~KSpace() = default;
  /// Collective. Adds the long-range forces on the owned atoms (rows 0 .. n_local - 1) into f; with
  /// energy, also returns this rank's share of the energy and virial (the sums over ranks are the totals).
  virtual KSpaceResult compute(const Particles& atoms, const ParticleVec& f, bool energy) = 0;
  /// One line: method, g_ewald, grid or k-vectors, estimated accuracy.
  virtual std::string describe() const = 0;
  const KSpaceChoice& choice() const { return choice_; }

 protected:
  KSpaceChoice choice_;
};

/// Ewald summation over the wave vectors of choice.kmax (half space, |k|^2 within the largest axis
/// vector's): structure factors by one reduction per k-vector and one MPI_Allreduce, forces by a sum over
/// the k-vectors per atom. O(N K): the reference, and fine for small systems.
std::unique_ptr<KSpace> make_ewald(const KSpaceSystem& s, const KSpaceChoice& choice, MPI_Comm comm);

/// PPPM on the particle decomposition of pc: charges assigned to a grid with ghost cells (order^3 points
/// each), ghost sums to the owners, a distributed r2c FFT, the optimal influence function of
/// Hockney-Eastwood, ik differentiation (three backward FFTs), ghost fields from the owners, and the field
/// interpolated back to the atoms with the same weights.
std::unique_ptr<KSpace> make_pppm(const KSpaceSystem& s, const KSpaceChoice& choice, const ParticleComm& pc,
                                  HaloTransport transport);

}  // namespace stratus::md
