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
enum class PairStyle { lj_cut, lj_cut_coul_long, coul_long };
enum class KSpaceStyle { pppm, ewald };
enum class KSpaceSums { automatic, fixed, floating };
enum class VelocitySource { automatic, file, create };

// Defaults are those of the bindings in md_options.cpp.
struct MDParams {
  std::string units;
  double dt{};  // time units
  // system: a LAMMPS data file, or a lattice
  std::string data_file;
  std::string lattice;
  double density{};           // lj: reduced density
  double lattice_constant{};  // real / metal: Angstrom (used when > 0, also in lj units)
  Int3 cells{};
  int ntypes{};
  std::vector<double> type_fractions;  // lattice: fraction of atoms of each type
  unsigned long long type_seed{};
  std::vector<double> mass;          // per type (lattice)
  std::string boundary;              // md.boundary as given ("p p f"); read into periodic
  std::array<bool, 3> periodic{};
  // velocities
  double temperature{};         // Maxwell-Boltzmann at this T when velocities are created (0: zero velocities)
  VelocitySource velocities{};  // md.velocities: auto (the data file's when it has them), file, create
  unsigned long long velocity_seed{};
  bool velocity_uniform{};  // uniform components (LAMMPS' default) or gaussian
  // potential
  double cutoff{};
  double skin{};
  bool shift{};
  long sort_every{};  // sort the owned atoms by bin every N steps at a rebuild, and at the start (0: never)
  double sort_bin{};  // the sort's bin width (0: half the list cutoff)
  std::vector<double> epsilon, sigma;  // per type (one value: all types)
  std::string pair_coeff;              // md.pair_coeff as given; read into pair_coeffs
  std::vector<double> pair_coeffs;     // groups of 5: i j epsilon sigma cutoff (cutoff <= 0: global)
  Mixing mixing{};
  ListKind list{};
  ListLayout list_layout{};  // how the list's rows are stored (md.neighbor_layout)
  bool newton{};  // half lists: pairs with ghosts once, ghost forces summed back (LAMMPS newton on)
  // ensemble
  Ensemble ensemble{};
  double t_target{};
  double t_damp{};  // Langevin 1/gamma or Nose-Hoover period (time units)
  int nhc_chain{};
  unsigned long long thermostat_seed{};
  long rescale_every{};  // velocity rescale to t_target every N steps (0: off)
  double rescale_window{};
  long zero_momentum_every{};
  // electrostatics (docs/electrostatics.md)
  PairStyle pair_style{};
  double coul_cutoff{};             // real-space Coulomb cutoff (0: md.cutoff)
  std::vector<double> charge;       // per type (lattices, and data files without charges)
  bool charge_set = false;          // md.charge given in the deck
  KSpaceStyle kspace{};
  double kspace_accuracy{};         // relative RMS force accuracy
  double kspace_gewald{};           // 0: from the accuracy
  Int3 kspace_grid{};               // PPPM grid (0 0 0: from the accuracy)
  int kspace_order{};               // PPPM charge assignment order 2 .. 7
  bool kspace_ad{};                 // PPPM analytic differentiation (else ik)
  KSpaceSums kspace_sums{};         // charge / structure-factor sums: fixed point or floating point
  Int3 ewald_kmax{};                // Ewald: largest |k| index per direction (0 0 0: from the accuracy)
  bool erfc_exact{};                // real-space erfc: exact, or LAMMPS' polynomial
  bool neutralize{};                // accept a net charge (a uniform neutralising background)
  bool coulomb() const { return pair_style != PairStyle::lj_cut; }
  bool lj() const { return pair_style != PairStyle::coul_long; }
  std::string write_data;  // LAMMPS data file written at the end of the run (path in run.output_dir)
  bool trajectory{};       // H5MD frames at the snapshot cadence
  bool trajectory_velocities{};
  bool trajectory_forces{};

  static MDParams from_deck(const Deck& deck);
  /// One statement per [md] key (input/options.hpp).
  template <class B>
  static void bind(B& o);
};

void declare_md_options(OptionRegistry& reg);

/// A per-type list from the deck: one value for every type, or one per type (InputError naming `key`).
std::vector<double> per_type(const std::vector<double>& given, int ntypes, const char* key);

}  // namespace stratus::md
