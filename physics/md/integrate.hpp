// Time integration of the owned atoms: velocity Verlet (NVE), Langevin dynamics (BAOAB splitting, noise
// from a counter-based generator keyed on (seed, atom id, step, component), so that a trajectory does not
// depend on the decomposition), the Nose-Hoover chain thermostat (Martyna-Tuckerman-Klein), velocity
// rescaling and removal of the centre-of-mass motion, plus the kinetic reductions thermo needs.
// Units follow LAMMPS: a = ftm2v f / m, kinetic energy = mvv2e * m v^2 / 2, kB T in energy units.
// All kernels run on the device over rows 0 .. n_local - 1; reductions over ranks are collective.
#pragma once
#include <mpi.h>

#include <array>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "domain/particles.hpp"

namespace stratus::md {

/// Conversion factors of a LAMMPS unit system (values of LAMMPS' update.cpp).
struct Units {
  const char* name = "lj";
  double boltz = 1.0;   ///< kB (energy / temperature)
  double mvv2e = 1.0;   ///< mass * velocity^2 -> energy
  double ftm2v = 1.0;   ///< force / mass * time -> velocity
  double nktv2p = 1.0;  ///< energy / volume -> pressure
  double qqr2e = 1.0;   ///< charge^2 / length -> energy (Coulomb's constant)
  const char* length = "sigma";
  const char* time = "tau";
  const char* energy = "epsilon";
  const char* pressure = "epsilon/sigma^3";
  bool per_atom_thermo = true;  ///< thermo energies per atom (LAMMPS' thermo_modify norm default)
  /// "lj", "real" (Angstrom, fs, kcal/mol, atm) or "metal" (Angstrom, ps, eV, bar); InputError otherwise.
  static Units named(const std::string& name);
};

using TypeMass = Kokkos::View<double*, MemSpace>;  // mass by type (index 0 unused)

/// Counter-based normal deviates: splitmix64 of (seed, id, step, component) and Box-Muller.
KOKKOS_INLINE_FUNCTION unsigned long long rng_mix(unsigned long long z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
KOKKOS_INLINE_FUNCTION void normal3(unsigned long long seed, long long id, long long step, double g[3]) {
  const unsigned long long key =
      rng_mix(rng_mix(rng_mix(seed) ^ static_cast<unsigned long long>(id)) ^ static_cast<unsigned long long>(step));
  double u[4];
  for (int k = 0; k < 4; ++k)
    u[k] = static_cast<double>(rng_mix(key + static_cast<unsigned long long>(k + 1) * 0x9E3779B97F4A7C15ULL) >> 11) *
           0x1.0p-53;
  const double two_pi = 6.283185307179586;
  const double r0 = ::sqrt(-2.0 * ::log(1.0 - u[0])), r1 = ::sqrt(-2.0 * ::log(1.0 - u[2]));
  g[0] = r0 * ::cos(two_pi * u[1]);
  g[1] = r0 * ::sin(two_pi * u[1]);
  g[2] = r1 * ::cos(two_pi * u[3]);
}

/// Velocity Verlet first half: v += dt/2 a, x += dt v.
void verlet_initial(Particles& p, const TypeMass& mass, double dt, double ftm2v);
/// Velocity Verlet second half: v += dt/2 a.
void verlet_final(Particles& p, const TypeMass& mass, double dt, double ftm2v);

struct LangevinParams {
  double temperature = 1.0;  ///< target (temperature units)
  double damp = 1.0;         ///< relaxation time 1 / gamma (time units)
  unsigned long long seed = 1;
  bool zero_noise_momentum = true;  ///< remove the net momentum of the noise (keeps total momentum)
};
/// Langevin BAOAB first part for step `step` (the step being taken): half kick, half drift, exact
/// Ornstein-Uhlenbeck update of the velocities, half drift. Collective when zero_noise_momentum.
/// verlet_final() completes the step after the force computation.
void langevin_initial(Particles& p, const TypeMass& mass, double dt, const Units& u, const LangevinParams& lp,
                      long long step, MPI_Comm comm);

/// Collective. Sum over all atoms of m v^2 (mass * velocity^2 units, without mvv2e).
double sum_mv2(const Particles& p, const TypeMass& mass, MPI_Comm comm);
/// Sum of m v^2 over the owned atoms of this rank (no communication).
double local_mv2(const Particles& p, const TypeMass& mass);
/// This rank's sum over its atoms of |x + image * len - x0|^2: squared displacements from the origins x0,
/// through the periodic images (not a collective).
double local_dr2(const Particles& p, const std::array<double, 3>& len);
/// Collective. Total momentum (3) and total mass (index 3).
std::array<double, 4> momentum(const Particles& p, const TypeMass& mass, MPI_Comm comm);
/// Collective. Removes the centre-of-mass velocity.
void zero_momentum(Particles& p, const TypeMass& mass, MPI_Comm comm);
/// Multiplies every owned velocity by s.
void scale_velocities(Particles& p, double s);

/// Nose-Hoover chain (MTK, one Trotter stage): half-step updates of the chain that scale the velocities.
/// dof: degrees of freedom (3N - 3); Q_1 = dof kB T tau^2, Q_k = kB T tau^2.
class NoseHooverChain {
 public:
  NoseHooverChain(int length, double temperature, double tau, double dof, const Units& u);
  /// Collective. Advances the chain by dt / 2 and scales the velocities.
  void half_step(Particles& p, const TypeMass& mass, double dt, MPI_Comm comm);
  /// Energy of the chain (added to E to form the conserved quantity).
  double energy() const;
  /// The chain's positions and velocities (eta..., veta...), for checkpoints.
  std::vector<double> state() const;
  /// Restores state(); false when the length does not match this chain.
  bool set_state(const std::vector<double>& s);

 private:
  std::vector<double> eta_, veta_, q_;
  double kt_, dof_;
  Units u_;
};

}  // namespace stratus::md
