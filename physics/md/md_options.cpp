// The deck keys of physics "md", declared and read by one binding each (MDParams::bind), then the keys
// with their own syntax (md.boundary, md.pair_coeff, md.write_data) and the cross-key checks that need no file.
#include "md/md_options.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/error.hpp"
#include "input/options.hpp"
#include "io/output_dir.hpp"
#include "md/integrate.hpp"

namespace stratus::md {

// A per-type list from the deck: one value for every type, or one per type.
std::vector<double> per_type(const std::vector<double>& given, int ntypes, const char* key) {
  if (given.size() == 1) return std::vector<double>(static_cast<std::size_t>(ntypes), given[0]);
  STRATUS_INPUT_REQUIRE(static_cast<int>(given.size()) == ntypes, "key '" << key << "' has " << given.size()
                                                                          << " values; give one, or one per atom type ("
                                                                          << ntypes << ")");
  return given;
}

namespace {
const Choices<bool> kVelocityDists = {{"uniform", true}, {"gaussian", false}};
const Choices<VelocitySource> kVelocitySources = {
    {"auto", VelocitySource::automatic}, {"file", VelocitySource::file}, {"create", VelocitySource::create}};
const Choices<Mixing> kMixings = {{"geometric", Mixing::geometric}, {"arithmetic", Mixing::arithmetic}};
const Choices<ListKind> kLists = {{"auto", ListKind::automatic}, {"half", ListKind::half}, {"full", ListKind::full}};
const Choices<ListLayout> kLayouts = {
    {"auto", ListLayout::automatic}, {"atoms", ListLayout::atoms}, {"slots", ListLayout::slots}};
const Choices<PairStyle> kPairStyles = {{"lj/cut", PairStyle::lj_cut},
                                         {"lj/cut/coul/long", PairStyle::lj_cut_coul_long},
                                         {"coul/long", PairStyle::coul_long}};
const Choices<KSpaceStyle> kKSpaces = {{"pppm", KSpaceStyle::pppm}, {"ewald", KSpaceStyle::ewald}};
const Choices<bool> kErfc = {{"exact", true}, {"polynomial", false}};
const Choices<bool> kDiff = {{"ik", false}, {"ad", true}};
const Choices<KSpaceSums> kSums = {{"auto", KSpaceSums::automatic}, {"fixed", KSpaceSums::fixed}, {"float", KSpaceSums::floating}};
const Choices<Ensemble> kEnsembles = {{"nve", Ensemble::nve}, {"langevin", Ensemble::langevin}, {"nhc", Ensemble::nhc}};
}  // namespace

template <class B>
void MDParams::bind(B& o) {
  using P = MDParams;
  o.string(&P::units, "md.units", "lj", "", "unit system (LAMMPS conventions)").one_of({"lj", "real", "metal"});
  o.real(&P::dt, "md.timestep", 0.005, "time", "time step (tau in lj, fs in real, ps in metal)").greater_than(0.0);
  o.string(&P::data_file, "md.data_file", "", "",
           "LAMMPS data file (atom style atomic or charge) to start from; empty: a lattice");
  o.string(&P::lattice, "md.lattice", "fcc", "",
           "lattice of the initial configuration (rocksalt: types 1 and 2 on the two fcc sublattices)")
      .one_of({"fcc", "bcc", "sc", "rocksalt"});
  o.real(&P::density, "md.density", 0.8442, "1/sigma^3", "lj units: reduced number density of the lattice")
      .greater_than(0.0);
  o.real(&P::lattice_constant, "md.lattice_constant", 0.0, "length",
         "lattice constant (required in real and metal units; in lj units overrides md.density when > 0)")
      .at_least(0.0);
  o.integers(&P::cells, "md.cells", {10, 10, 10}, "cells", "unit cells of the lattice in x y z").at_least(1);
  o.integer(&P::ntypes, "md.ntypes", 1, "", "atom types of a lattice system").at_least(1).at_most(64);
  o.reals(&P::type_fractions, "md.type_fractions", {1.0}, "1",
          "lattice: fraction of the atoms of each type (one per type)")
      .at_least(0.0);
  o.integer(&P::type_seed, "md.type_seed", 4321, "", "seed of the random assignment of lattice atoms to types")
      .at_least(1);
  o.reals(&P::mass, "md.mass", {1.0}, "mass", "lattice: mass of each type (one value: every type)").greater_than(0.0);
  o.string(&P::boundary, "md.boundary", "p p p", "",
           "x y z boundaries: p (periodic) or f (fixed, atoms must stay inside)");
  o.real(&P::temperature, "md.temperature", 0.0, "temperature",
         "temperature of created initial velocities (Maxwell-Boltzmann, see md.velocities); 0: zero velocities")
      .at_least(0.0);
  o.choice(&P::velocities, "md.velocities", kVelocitySources, VelocitySource::automatic,
           "initial velocities: file (the data file's Velocities section, required), create (at md.temperature), "
           "or auto: the data file's when it has them (as LAMMPS' read_data), else created");
  o.integer(&P::velocity_seed, "md.velocity_seed", 87287, "", "seed of the initial velocities").at_least(1);
  o.choice(&P::velocity_uniform, "md.velocity_dist", kVelocityDists, true,
           "distribution of the initial velocity components (uniform: LAMMPS' default), scaled to the "
           "exact temperature");
  o.choice(&P::pair_style, "md.pair_style", kPairStyles, PairStyle::lj_cut,
           "pair potential: lj/cut, lj/cut/coul/long (LJ plus the real-space Ewald part of Coulomb) or coul/long; "
           "the coul/long styles need md.kspace");
  o.real(&P::cutoff, "md.cutoff", 2.5, "length", "global Lennard-Jones cutoff").greater_than(0.0);
  o.real(&P::coul_cutoff, "md.coul_cutoff", 0.0, "length", "real-space Coulomb cutoff (0: md.cutoff)").at_least(0.0);
  o.reals(&P::charge, "md.charge", {0.0}, "charge",
          "charge of each atom type (one value: every type) for lattices and for data files without charges "
          "(atom style atomic); a data file's own charges (atom style charge) are kept");
  o.choice(&P::kspace, "md.kspace", kKSpaces, KSpaceStyle::pppm,
           "long-range solver of the coul/long styles: pppm (particle-particle particle-mesh) or ewald (direct sum)");
  o.real(&P::kspace_accuracy, "md.kspace_accuracy", 1e-5, "1",
         "requested relative RMS force accuracy (of the force between two unit charges 1 length apart); chooses "
         "the splitting parameter, the PPPM grid and the Ewald k-vectors that are not set")
      .greater_than(0.0)
      .less_than(1.0);
  o.real(&P::kspace_gewald, "md.kspace_gewald", 0.0, "1/length",
         "Ewald splitting parameter g_ewald (0: from md.kspace_accuracy)")
      .at_least(0.0);
  o.integers(&P::kspace_grid, "md.kspace_grid", {0, 0, 0}, "points", "PPPM grid points in x y z (0 0 0: from the accuracy)")
      .at_least(0);
  o.integer(&P::kspace_order, "md.kspace_order", 5, "", "PPPM charge assignment order (stencil points per direction)")
      .at_least(2)
      .at_most(7);
  o.choice(&P::kspace_ad, "md.kspace_diff", kDiff, false,
           "PPPM differentiation: ik (the field from i k phi(k), three backward FFTs) or ad (the gradient of the "
           "assignment weights, one backward FFT and a self-force correction; LAMMPS' kspace_modify diff)");
  o.choice(&P::kspace_sums, "md.kspace_sums", kSums, KSpaceSums::automatic,
           "how the charges (PPPM) and structure factors (Ewald) are summed over atoms: fixed (64-bit fixed "
           "point: the same bits in every run, relative rounding about 1e-13), float (floating point, added "
           "by per-thread copies on CPUs and by atomics in a varying order on GPUs) or auto (fixed on GPUs, "
           "float on CPUs)");
  o.integers(&P::ewald_kmax, "md.ewald_kmax", {0, 0, 0}, "",
             "Ewald: largest wave-vector index in x y z (0 0 0: from the accuracy)")
      .at_least(0);
  o.choice(&P::erfc_exact, "md.coul_erfc", kErfc, true,
           "real-space erfc: exact, or the polynomial of LAMMPS' coul/long styles (Abramowitz-Stegun 7.1.26, "
           "relative error ~1e-6; for bit-level comparisons with LAMMPS run with pair_modify table 0)");
  o.boolean(&P::neutralize, "md.neutralize", false, "",
            "accept a system with a net charge (a uniform neutralising background, with a warning); otherwise an "
            "error");
  o.real(&P::skin, "md.skin", 0.3, "length", "neighbor-list skin").at_least(0.0).may_change_on_restart();
  o.boolean(&P::shift, "md.shift", false, "", "shift the pair energy to zero at the cutoff");
  o.integer(&P::sort_every, "md.sort_every", 1000, "steps",
            "sort each rank's atoms by position every N steps, at the next neighbor-list build, and at the start "
            "(0: never; as LAMMPS' atom_modify sort)")
      .at_least(0)
      .may_change_on_restart();
  o.real(&P::sort_bin, "md.sort_bin", 0.0, "length", "bin width of the sort (0: half the neighbor cutoff + skin)")
      .at_least(0.0)
      .may_change_on_restart();
  o.reals(&P::epsilon, "md.epsilon", {1.0}, "energy", "Lennard-Jones epsilon per type (one value: every type)")
      .at_least(0.0);
  o.reals(&P::sigma, "md.sigma", {1.0}, "length", "Lennard-Jones sigma per type (one value: every type)")
      .greater_than(0.0);
  o.choice(&P::mixing, "md.mixing", kMixings, Mixing::geometric, "mixing rule of unlike pairs");
  o.string(&P::pair_coeff, "md.pair_coeff", "", "",
           "explicit unlike pairs 'i j epsilon sigma [cutoff]', several separated by commas");
  o.choice(&P::list, "md.neighbor", kLists, ListKind::automatic,
           "neighbor list: half (Newton, CPUs), full (GPUs), auto")
      .may_change_on_restart();
  o.choice(&P::list_layout, "md.neighbor_layout", kLayouts, ListLayout::automatic,
           "how the neighbor list is stored: atoms (each atom's partners consecutive: CPUs), slots (the k-th "
           "partners of consecutive atoms consecutive: coalesced loads on GPUs) or auto (slots on GPUs); the "
           "same pairs in the same order either way")
      .may_change_on_restart();
  o.boolean(&P::newton, "md.newton", true, "",
            "half lists: compute a pair with a ghost once and sum the ghost's force back to its owner "
            "(false: compute it on both sides, no reverse communication)")
      .may_change_on_restart();
  o.choice(&P::ensemble, "md.ensemble", kEnsembles, Ensemble::nve, "nve, langevin (BAOAB) or nhc (Nose-Hoover chain)");
  o.real(&P::t_target, "md.t_target", 1.0, "temperature", "thermostat (and rescale) target temperature")
      .greater_than(0.0);
  o.real(&P::t_damp, "md.t_damp", 1.0, "time", "Langevin relaxation time 1/gamma, or Nose-Hoover period")
      .greater_than(0.0);
  o.integer(&P::nhc_chain, "md.nhc_chain", 3, "", "Nose-Hoover chain length").at_least(1).at_most(10);
  o.integer(&P::thermostat_seed, "md.thermostat_seed", 48279, "", "seed of the Langevin noise").at_least(1);
  o.integer(&P::rescale_every, "md.rescale_every", 0, "steps",
            "rescale velocities to md.t_target every N steps (0: never)")
      .at_least(0);
  o.real(&P::rescale_window, "md.rescale_window", 0.0, "temperature", "rescale only when |T - t_target| exceeds this")
      .at_least(0.0);
  o.integer(&P::zero_momentum_every, "md.zero_momentum_every", 0, "steps",
            "remove the centre-of-mass velocity every N steps (0: never)")
      .at_least(0);
  o.string(&P::write_data, "md.write_data", "", "",
           "file name of a LAMMPS data file written into run.output_dir at the end of the run (empty: none)")
      .may_change_on_restart();
  o.boolean(&P::trajectory, "md.trajectory", true, "",
            "write H5MD trajectory frames (NAME.h5md, with NAME.xmf for ParaView) at run.snapshot_every; atom "
            "ids must be 1..N")
      .may_change_on_restart();
  o.boolean(&P::trajectory_velocities, "md.trajectory_velocities", true, "", "trajectory frames include velocities")
      .may_change_on_restart();
  o.boolean(&P::trajectory_forces, "md.trajectory_forces", false, "", "trajectory frames include forces")
      .may_change_on_restart();
}

void declare_md_options(OptionRegistry& reg) { declare_options<MDParams>(reg); }

MDParams MDParams::from_deck(const Deck& deck) {
  MDParams p = read_options<MDParams>(deck);
  // Keys with their own syntax, then the cross-key checks that need no file.
  {
    std::istringstream is(p.boundary);
    std::string tok;
    int d = 0;
    while (is >> tok) {
      STRATUS_INPUT_REQUIRE(
          d < 3 && (tok == "p" || tok == "f"),
          "key 'md.boundary' = '" << p.boundary << "': give three of p (periodic) or f (fixed), e.g. 'p p f'");
      p.periodic[static_cast<std::size_t>(d++)] = tok == "p";
    }
    STRATUS_INPUT_REQUIRE(d == 3,
                          "key 'md.boundary' = '" << p.boundary << "': give three of p (periodic) or f (fixed)");
  }
  {
    std::string text = p.pair_coeff;
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
  if (!p.write_data.empty()) {
    check_output_file_name("md.write_data", p.write_data);
    p.write_data = (std::filesystem::path(deck.get_string("run.output_dir")) / p.write_data).string();
  }
  // One time step: MD takes it from md.timestep; run.dt (the grid physics' fixed step) may only repeat it.
  const double run_dt = deck.is_set("run.dt") ? deck.get_real("run.dt") : 0.0;
  STRATUS_INPUT_REQUIRE(run_dt == 0.0 || run_dt == p.dt,
                        "key 'run.dt' = " << run_dt << " disagrees with 'md.timestep' = " << p.dt
                                          << ": MD steps by md.timestep; leave run.dt at 0 (or set it equal)");
  Units::named(p.units);
  p.charge_set = deck.is_set("md.charge");
  if (!p.coulomb()) {
    for (const char* key : {"md.kspace", "md.kspace_accuracy", "md.kspace_gewald", "md.kspace_grid", "md.kspace_order",
                            "md.kspace_diff", "md.kspace_sums", "md.ewald_kmax", "md.coul_cutoff", "md.coul_erfc"})
      STRATUS_INPUT_REQUIRE(!deck.is_set(key), "key '" << key << "' needs a coul/long pair style (md.pair_style = "
                                                       << "lj/cut/coul/long or coul/long)");
  }
  if (p.coul_cutoff == 0.0) p.coul_cutoff = p.cutoff;
  const bool grid_set = p.kspace_grid[0] > 0 || p.kspace_grid[1] > 0 || p.kspace_grid[2] > 0;
  STRATUS_INPUT_REQUIRE(!grid_set || (p.kspace_grid[0] > 0 && p.kspace_grid[1] > 0 && p.kspace_grid[2] > 0),
                        "key 'md.kspace_grid': give all three grid sizes, or 0 0 0 to choose them from the accuracy");
  const bool kmax_set = p.ewald_kmax[0] > 0 || p.ewald_kmax[1] > 0 || p.ewald_kmax[2] > 0;
  STRATUS_INPUT_REQUIRE(!kmax_set || (p.ewald_kmax[0] > 0 && p.ewald_kmax[1] > 0 && p.ewald_kmax[2] > 0),
                        "key 'md.ewald_kmax': give all three, or 0 0 0 to choose them from the accuracy");
  STRATUS_INPUT_REQUIRE(!(p.coulomb() && p.kspace == KSpaceStyle::ewald && grid_set),
                        "key 'md.kspace_grid' is for md.kspace = pppm, not ewald");
  STRATUS_INPUT_REQUIRE(!(p.coulomb() && p.kspace == KSpaceStyle::ewald && deck.is_set("md.kspace_diff")),
                        "key 'md.kspace_diff' is for md.kspace = pppm, not ewald");
  STRATUS_INPUT_REQUIRE(!(p.coulomb() && p.kspace == KSpaceStyle::pppm && kmax_set),
                        "key 'md.ewald_kmax' is for md.kspace = ewald, not pppm");
  if (p.lattice == "rocksalt" && p.data_file.empty())
    STRATUS_INPUT_REQUIRE(p.ntypes == 2, "key 'md.ntypes' = " << p.ntypes
                                                              << ": the rocksalt lattice has exactly 2 atom types");
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
