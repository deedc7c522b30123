// The MD engine's diagnostics (the fused reduction, the derived thermo columns and their units) and its
// thermo table in the log. Set-up and the time step are in md_simulation.cpp.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/log.hpp"
#include "md/md_simulation.hpp"

namespace stratus::md {

std::vector<std::pair<std::string, std::string>> MDSimulation::history_units() const {
  const bool lj = std::string(units_.name) == "lj";
  const std::string e = std::string(units_.energy) + (units_.per_atom_thermo ? "/atom" : "");
  const std::string len = units_.length;
  std::vector<std::pair<std::string, std::string>> u{
      {"temp", lj ? "epsilon/k_B" : "K"}, {"pe", e},          {"ke", e}, {"etotal", e},
      {"press", units_.pressure},         {"msd", len + "^2"}};
  for (const char* k : {"evdwl", "ecoul", "elong", "econserve"}) u.emplace_back(k, e);
  return u;
}

void MDSimulation::declare_diagnostics(DiagnosticsPlan& plan) {
  plan.hidden_sum("mv2");     // sum m v^2 [mass velocity^2]
  plan.hidden_sum("pe_sum");  // pair energy
  plan.hidden_sum("virial");  // sum r.f
  plan.hidden_sum("dr2_sum");  // sum |x - x0|^2 through the images
  if (kspace_) {
    plan.hidden_sum("ecoul_sum");  // real-space Coulomb energy
    plan.hidden_sum("elong_sum");  // k-space energy
  }
  const double vol = volume(), dof = 3.0 * static_cast<double>(natoms_) - 3.0;
  const double norm = units_.per_atom_thermo ? 1.0 / static_cast<double>(natoms_) : 1.0;
  const Units u = units_;
  plan.derived("temp", [u, dof](const Diagnostics& d, double) { return d.get("mv2") * u.mvv2e / (dof * u.boltz); });
  plan.derived("pe", [norm](const Diagnostics& d, double) { return d.get("pe_sum") * norm; });
  plan.derived("ke", [u, norm](const Diagnostics& d, double) { return 0.5 * (d.get("mv2") * u.mvv2e) * norm; });
  plan.derived("etotal", [](const Diagnostics& d, double) { return d.get("pe") + d.get("ke"); });
  if (kspace_) {  // LAMMPS' evdwl, ecoul and elong (normalised as pe)
    plan.derived("evdwl", [norm](const Diagnostics& d, double) {
      return (d.get("pe_sum") - d.get("ecoul_sum") - d.get("elong_sum")) * norm;
    });
    plan.derived("ecoul", [norm](const Diagnostics& d, double) { return d.get("ecoul_sum") * norm; });
    plan.derived("elong", [norm](const Diagnostics& d, double) { return d.get("elong_sum") * norm; });
  }
  plan.derived("press", [u, vol](const Diagnostics& d, double) {
    return (d.get("mv2") * u.mvv2e + d.get("virial")) / (3.0 * vol) * u.nktv2p;
  });
  if (nhc_)
    plan.derived("econserve",
                 [this, norm](const Diagnostics& d, double) { return d.get("etotal") + nhc_->energy() * norm; });
  // LAMMPS' compute msd (its total): the mean squared displacement of the unwrapped positions from the
  // run's start (length^2).
  const double n_atoms = static_cast<double>(natoms_);
  plan.derived("msd", [n_atoms](const Diagnostics& d, double) { return d.get("dr2_sum") / n_atoms; });
}

void MDSimulation::reduce_diagnostics(const Clock&, double, LocalReductions& local) {
  if (!ev_current_) compute_forces(true);  // a step that skipped the energy: same forces, plus energies
  local.values = {local_mv2(atoms_, mass_), pe_local_, virial_local_,
                  local_dr2(atoms_, {hi_[0] - lo_[0], hi_[1] - lo_[1], hi_[2] - lo_[2]})};
  if (kspace_) {
    local.values.push_back(ecoul_local_);
    local.values.push_back(elong_local_);
  }
}

Thermo MDSimulation::thermo() {
  const Diagnostics d = diagnostics(Clock{}, 0.0);
  Thermo t;
  t.natoms = natoms_;
  t.temp = d.get("temp");
  t.pe = d.get("pe");
  t.ke = d.get("ke");
  t.etotal = d.get("etotal");
  t.press = d.get("press");
  t.econserve = nhc_ ? d.get("econserve") : t.etotal;
  t.evdwl = kspace_ ? d.get("evdwl") : t.pe;
  if (kspace_) {
    t.ecoul = d.get("ecoul");
    t.elong = d.get("elong");
  }
  return t;
}

void MDSimulation::report(const Clock& clock, const Diagnostics& d, const Progress& progress) {
  if (!thermo_header_) {
    log::info("thermo (" + std::string(units_.per_atom_thermo ? "energies per atom" : "total energies") + " in " +
              units_.energy + ", pressure in " + units_.pressure + "):\n" +
              "        Step            Temp          E_pair          KinEng          TotEng           Press" +
              (kspace_ ? "          E_vdwl          E_coul          E_long" : "") + (nhc_ ? "        Econserve" : "") +
              "   Done%  Remain[s]");
    thermo_header_ = true;
  }
  char line[256];
  std::snprintf(line, sizeof line, "%12ld %15.8g %15.8g %15.8g %15.8g %15.8g", clock.step, d.get("temp"), d.get("pe"),
                d.get("ke"), d.get("etotal"), d.get("press"));
  std::string s = line;
  if (kspace_) {
    std::snprintf(line, sizeof line, " %15.8g %15.8g %15.8g", d.get("evdwl"), d.get("ecoul"), d.get("elong"));
    s += line;
  }
  if (nhc_) s += " " + fmtg(d.get("econserve"), 10);
  // Like LAMMPS' cpuremain: the run's progress in the table, not in lines between its rows.
  std::snprintf(line, sizeof line, " %7.1f %10.0f", 100.0 * progress.fraction, progress.eta_s);
  s += line;
  log::info(s);
}

}  // namespace stratus::md
