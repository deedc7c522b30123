// The deck keys of physics "md" and their reading into MDParams, with the cross-key checks that need no file.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/error.hpp"
#include "io/output_dir.hpp"
#include "md/integrate.hpp"
#include "md/md_options.hpp"

namespace stratus::md {

// A per-type list from the deck: one value for every type, or one per type.
std::vector<double> per_type(const std::vector<double>& given, int ntypes, const char* key) {
  if (given.size() == 1) return std::vector<double>(static_cast<std::size_t>(ntypes), given[0]);
  STRATUS_INPUT_REQUIRE(static_cast<int>(given.size()) == ntypes, "key '" << key << "' has " << given.size()
                                                                          << " values; give one, or one per atom type ("
                                                                          << ntypes << ")");
  return given;
}

void declare_md_options(OptionRegistry& reg) {
  reg.add_string("md.units", "lj", "", "unit system (LAMMPS conventions)").one_of({"lj", "real", "metal"});
  reg.add_real("md.timestep", 0.005, "time", "time step (tau in lj, fs in real, ps in metal)").greater_than(0.0);
  reg.add_string("md.data_file", "", "", "LAMMPS data file (atom style atomic) to start from; empty: a lattice");
  reg.add_string("md.lattice", "fcc", "", "lattice of the initial configuration").one_of({"fcc", "bcc", "sc"});
  reg.add_real("md.density", 0.8442, "1/sigma^3", "lj units: reduced number density of the lattice").greater_than(0.0);
  reg.add_real("md.lattice_constant", 0.0, "length",
               "lattice constant (required in real and metal units; in lj units overrides md.density when > 0)")
      .at_least(0.0);
  reg.add_ints("md.cells", {10, 10, 10}, "cells", "unit cells of the lattice in x y z").size(3).at_least(1);
  reg.add_int("md.ntypes", 1, "", "atom types of a lattice system").at_least(1).at_most(64);
  reg.add_reals("md.type_fractions", {1.0}, "1", "lattice: fraction of the atoms of each type (one per type)")
      .at_least(0.0);
  reg.add_int("md.type_seed", 4321, "", "seed of the random assignment of lattice atoms to types").at_least(1);
  reg.add_reals("md.mass", {1.0}, "mass", "lattice: mass of each type (one value: every type)").greater_than(0.0);
  reg.add_string("md.boundary", "p p p", "", "x y z boundaries: p (periodic) or f (fixed, atoms must stay inside)");
  reg.add_real("md.temperature", 0.0, "temperature",
               "initial Maxwell-Boltzmann temperature; 0: the data file's velocities (or zero)")
      .at_least(0.0);
  reg.add_int("md.velocity_seed", 87287, "", "seed of the initial velocities").at_least(1);
  reg.add_string("md.velocity_dist", "uniform", "",
                 "distribution of the initial velocity components (uniform: LAMMPS' default), scaled to the "
                 "exact temperature")
      .one_of({"uniform", "gaussian"});
  reg.add_real("md.cutoff", 2.5, "length", "global Lennard-Jones cutoff").greater_than(0.0);
  reg.add_real("md.skin", 0.3, "length", "neighbor-list skin").at_least(0.0);
  reg.add_bool("md.shift", false, "", "shift the pair energy to zero at the cutoff");
  reg.add_reals("md.epsilon", {1.0}, "energy", "Lennard-Jones epsilon per type (one value: every type)").at_least(0.0);
  reg.add_reals("md.sigma", {1.0}, "length", "Lennard-Jones sigma per type (one value: every type)").greater_than(0.0);
  reg.add_string("md.mixing", "geometric", "", "mixing rule of unlike pairs").one_of({"geometric", "arithmetic"});
  reg.add_string("md.pair_coeff", "", "",
                 "explicit unlike pairs 'i j epsilon sigma [cutoff]', several separated by commas");
  reg.add_string("md.neighbor", "auto", "", "neighbor list: half (Newton, CPUs), full (GPUs), auto")
      .one_of({"auto", "half", "full"});
  reg.add_bool("md.newton", true, "",
               "half lists: compute a pair with a ghost once and sum the ghost's force back to its owner "
               "(false: compute it on both sides, no reverse communication)");
  reg.add_string("md.ensemble", "nve", "", "nve, langevin (BAOAB) or nhc (Nose-Hoover chain)")
      .one_of({"nve", "langevin", "nhc"});
  reg.add_real("md.t_target", 1.0, "temperature", "thermostat (and rescale) target temperature").greater_than(0.0);
  reg.add_real("md.t_damp", 1.0, "time", "Langevin relaxation time 1/gamma, or Nose-Hoover period").greater_than(0.0);
  reg.add_int("md.nhc_chain", 3, "", "Nose-Hoover chain length").at_least(1).at_most(10);
  reg.add_int("md.thermostat_seed", 48279, "", "seed of the Langevin noise").at_least(1);
  reg.add_int("md.rescale_every", 0, "steps", "rescale velocities to md.t_target every N steps (0: never)").at_least(0);
  reg.add_real("md.rescale_window", 0.0, "temperature", "rescale only when |T - t_target| exceeds this").at_least(0.0);
  reg.add_int("md.zero_momentum_every", 0, "steps", "remove the centre-of-mass velocity every N steps (0: never)")
      .at_least(0);
  reg.add_string("md.write_data", "", "",
                 "file name of a LAMMPS data file written into run.output_dir at the end of the run (empty: none)");
  reg.add_bool("md.trajectory", true, "",
               "write H5MD trajectory frames (NAME.h5md, with NAME.xmf for ParaView) at run.snapshot_every; atom "
               "ids must be 1..N");
  reg.add_bool("md.trajectory_velocities", true, "", "trajectory frames include velocities");
  reg.add_bool("md.trajectory_forces", false, "", "trajectory frames include forces");
}

MDParams MDParams::from_deck(const Deck& deck) {
  MDParams p;
  p.units = deck.get_string("md.units");
  p.dt = deck.get_real("md.timestep");
  p.data_file = deck.get_string("md.data_file");
  p.lattice = deck.get_string("md.lattice");
  p.density = deck.get_real("md.density");
  p.lattice_constant = deck.get_real("md.lattice_constant");
  const auto cells = deck.get_ints32("md.cells");
  for (int d = 0; d < 3; ++d) p.cells[d] = static_cast<int>(cells[static_cast<std::size_t>(d)]);
  p.ntypes = deck.get_int32("md.ntypes");
  p.type_fractions = deck.get_reals("md.type_fractions");
  p.type_seed = static_cast<unsigned long long>(deck.get_int("md.type_seed"));
  p.mass = deck.get_reals("md.mass");
  {
    std::istringstream is(deck.get_string("md.boundary"));
    std::string tok;
    int d = 0;
    while (is >> tok) {
      STRATUS_INPUT_REQUIRE(d < 3 && (tok == "p" || tok == "f"),
                            "key 'md.boundary' = '" << deck.get_string("md.boundary")
                                                    << "': give three of p (periodic) or f (fixed), e.g. 'p p f'");
      p.periodic[static_cast<std::size_t>(d++)] = tok == "p";
    }
    STRATUS_INPUT_REQUIRE(d == 3, "key 'md.boundary' = '" << deck.get_string("md.boundary")
                                                          << "': give three of p (periodic) or f (fixed)");
  }
  p.temperature = deck.get_real("md.temperature");
  p.velocity_seed = static_cast<unsigned long long>(deck.get_int("md.velocity_seed"));
  p.velocity_uniform = deck.get_string("md.velocity_dist") == "uniform";
  p.cutoff = deck.get_real("md.cutoff");
  p.skin = deck.get_real("md.skin");
  p.shift = deck.get_bool("md.shift");
  p.epsilon = deck.get_reals("md.epsilon");
  p.sigma = deck.get_reals("md.sigma");
  p.mixing = deck.get_string("md.mixing") == "arithmetic" ? Mixing::arithmetic : Mixing::geometric;
  {
    std::string text = deck.get_string("md.pair_coeff");
    std::replace(text.begin(), text.end(), ';', ',');
    std::istringstream groups(text);
    std::string g;
    while (std::getline(groups, g, ',')) {
      std::istringstream is(g);
      std::vector<double> v;
      double d = 0.0;
      while (is >> d) v.push_back(d);
      std::string rest;
      is.clear();
      is >> rest;
      if (v.empty() && rest.empty()) continue;
      STRATUS_INPUT_REQUIRE(
          rest.empty() && (v.size() == 4 || v.size() == 5) && v[0] == std::floor(v[0]) && v[1] == std::floor(v[1]),
          "key 'md.pair_coeff': '" << g << "' is not 'i j epsilon sigma [cutoff]'");
      if (v.size() == 4) v.push_back(-1.0);
      p.pair_coeffs.insert(p.pair_coeffs.end(), v.begin(), v.end());
    }
  }
  const std::string nb = deck.get_string("md.neighbor");
  p.list = nb == "half" ? ListKind::half : nb == "full" ? ListKind::full : ListKind::automatic;
  p.newton = deck.get_bool("md.newton");
  const std::string ens = deck.get_string("md.ensemble");
  p.ensemble = ens == "langevin" ? Ensemble::langevin : ens == "nhc" ? Ensemble::nhc : Ensemble::nve;
  p.t_target = deck.get_real("md.t_target");
  p.t_damp = deck.get_real("md.t_damp");
  p.nhc_chain = deck.get_int32("md.nhc_chain");
  p.thermostat_seed = static_cast<unsigned long long>(deck.get_int("md.thermostat_seed"));
  p.rescale_every = static_cast<long>(deck.get_int("md.rescale_every"));
  p.rescale_window = deck.get_real("md.rescale_window");
  p.zero_momentum_every = static_cast<long>(deck.get_int("md.zero_momentum_every"));
  p.write_data = deck.get_string("md.write_data");
  if (!p.write_data.empty()) {
    check_output_file_name("md.write_data", p.write_data);
    p.write_data = (std::filesystem::path(deck.get_string("run.output_dir")) / p.write_data).string();
  }
  p.trajectory = deck.get_bool("md.trajectory");
  p.trajectory_velocities = deck.get_bool("md.trajectory_velocities");
  p.trajectory_forces = deck.get_bool("md.trajectory_forces");
  // Cross-key checks that need no file.
  Units::named(p.units);
  if (p.data_file.empty()) {
    STRATUS_INPUT_REQUIRE(p.units == "lj" || p.lattice_constant > 0.0,
                          "key 'md.lattice_constant' must be set (> 0) in " << p.units << " units");
    per_type(p.mass, p.ntypes, "md.mass");
    per_type(p.type_fractions, p.ntypes, "md.type_fractions");
    double sum = 0.0;
    for (double f : p.type_fractions) sum += f;
    STRATUS_INPUT_REQUIRE(sum > 0.0, "key 'md.type_fractions' must not be all zero");
  }
  return p;
}

}  // namespace stratus::md
