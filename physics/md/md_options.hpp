// The options of physics "md": the deck keys (declare_md_options) and the parameters read from them.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "domain/particles.hpp"
#include "input/deck.hpp"
#include "md/pair_lj.hpp"

namespace stratus::md {

enum class Ensemble { nve, langevin, nhc };
enum class ListKind { automatic, half, full };

struct MDParams {
  std::string units = "lj";
  double dt = 0.005;  // time units
  // system: a LAMMPS data file, or a lattice
  std::string data_file;
  std::string lattice = "fcc";
  double density = 0.8442;        // lj: reduced density
  double lattice_constant = 0.0;  // real / metal: Angstrom (used when > 0, also in lj units)
  Int3 cells = {{10, 10, 10}};
  int ntypes = 1;
  std::vector<double> type_fractions;  // lattice: fraction of atoms of each type
  unsigned long long type_seed = 4321;
  std::vector<double> mass;  // per type (lattice)
  std::array<bool, 3> periodic = {true, true, true};
  // velocities
  double temperature = 0.0;  // > 0: Maxwell-Boltzmann at this T; 0: from the data file (or zero)
  unsigned long long velocity_seed = 87287;
  bool velocity_uniform = true;  // uniform components (LAMMPS' default) or gaussian
  // potential
  double cutoff = 2.5;
  double skin = 0.3;
  bool shift = false;
  std::vector<double> epsilon, sigma;  // per type (one value: all types)
  std::vector<double> pair_coeffs;     // groups of 5: i j epsilon sigma cutoff (cutoff <= 0: global)
  Mixing mixing = Mixing::geometric;
  ListKind list = ListKind::automatic;
  bool newton = true;  // half lists: pairs with ghosts once, ghost forces summed back (LAMMPS newton on)
  // ensemble
  Ensemble ensemble = Ensemble::nve;
  double t_target = 1.0;
  double t_damp = 1.0;  // Langevin 1/gamma or Nose-Hoover period (time units)
  int nhc_chain = 3;
  unsigned long long thermostat_seed = 48279;
  long rescale_every = 0;  // velocity rescale to t_target every N steps (0: off)
  double rescale_window = 0.0;
  long zero_momentum_every = 0;
  std::string write_data;  // LAMMPS data file written at the end of the run
  bool trajectory = true;  // H5MD frames at the snapshot cadence
  bool trajectory_velocities = true;
  bool trajectory_forces = false;

  static MDParams from_deck(const Deck& deck);
};

void declare_md_options(OptionRegistry& reg);

/// A per-type list from the deck: one value for every type, or one per type (InputError naming `key`).
std::vector<double> per_type(const std::vector<double>& given, int ntypes, const char* key);

}  // namespace stratus::md
