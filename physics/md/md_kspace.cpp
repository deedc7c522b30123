// The MD engine's electrostatics set-up: the pair styles' cutoff and the k-space solver (Ewald or PPPM)
// with the coul/long pair term that goes with it. The time step is in md_simulation.cpp.
#include <algorithm>

#include "core/gpu_paths.hpp"
#include "core/log.hpp"
#include "md/md_simulation.hpp"

namespace stratus::md {

double MDSimulation::pair_cutoff(const LJSpec& spec) const {
  if (!p_.coulomb()) return spec.max_cutoff();
  return p_.lj() ? std::max(spec.max_cutoff(), p_.coul_cutoff) : p_.coul_cutoff;
}

void MDSimulation::make_kspace() {
  KSpaceSystem sys;
  sys.lo = lo_;
  sys.hi = hi_;
  sys.natoms = natoms_;
  sys.qsum = header_.qsum;  // id order, on rank 0 (preflight())
  sys.qsqsum = header_.qsqsum;
  sys.cutoff = p_.coul_cutoff;
  sys.qqrd2e = units_.qqr2e;
  sys.skin = p_.skin;
  // A GPU adds by atomics, in an order that varies from run to run: fixed-point sums keep runs and
  // restarts bit for bit there.
  const bool fixed = p_.kspace_sums == KSpaceSums::fixed || (p_.kspace_sums == KSpaceSums::automatic && gpu_paths());
  if (p_.kspace == KSpaceStyle::ewald) {
    KSpaceChoice c = choose_ewald(sys, p_.kspace_accuracy, p_.kspace_gewald, p_.ewald_kmax);
    c.fixed_point_sums = fixed;
    kspace_ = make_ewald(sys, c, pc_->comm());
  } else {
    KSpaceChoice c = choose_pppm(sys, p_.kspace_accuracy, p_.kspace_gewald, p_.kspace_grid, p_.kspace_order, p_.kspace_ad);
    c.fixed_point_sums = fixed;
    kspace_ = make_pppm(sys, c, *pc_, transport_);
  }
  coul_.lj = p_.lj();
  coul_.ljc = coeffs_;
  coul_.coul.cut_coulsq = p_.coul_cutoff * p_.coul_cutoff;
  coul_.coul.g_ewald = kspace_->choice().g_ewald;
  coul_.coul.qqrd2e = units_.qqr2e;
  coul_.coul.exact = p_.erfc_exact;
  log::info("md: " + kspace_->describe());
}

}  // namespace stratus::md
