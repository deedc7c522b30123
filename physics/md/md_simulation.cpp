// The MD engine: set-up and the time step. Its diagnostics and thermo are in md_thermo.cpp, its I/O (data
// file, checkpoints, trajectory) in md_io.cpp.
#include "md/md_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <numeric>
#include <sstream>

#include "core/agree.hpp"
#include "core/error.hpp"
#include "core/gpu_paths.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"
#include "domain/grid_options.hpp"
#include "domain/particle_sort.hpp"
#include "io/checkpoint.hpp"
#include "io/h5_parallel.hpp"
#include "io/output_dir.hpp"
#include "io/space.hpp"
#include "stratus/version.hpp"

namespace stratus::md {

std::string fmtg(double v, int prec) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*g", prec, v);
  return b;
}

namespace {

int lattice_basis(const std::string& lattice) {
  return lattice == "rocksalt" ? 8 : lattice == "fcc" ? 4 : lattice == "bcc" ? 2 : 1;
}

bool list_is_half(ListKind k) {
  if (k == ListKind::half) return true;
  if (k == ListKind::full) return false;
  // GPUs: a full list computes each pair twice but needs no atomics.
  return !gpu_paths();
}

// The neighbor list for a potential of cutoff rc; its list_cutoff() is also ParticleComm's ghost cutoff.
NeighborParams neighbor_params(const MDParams& p, double rc) {
  const bool half = list_is_half(p.list);
  return NeighborParams{rc, p.skin, half, half && p.newton, false, p.list_layout};
}

}  // namespace

MDSimulation::MDSimulation(const Deck& deck, MPI_Comm comm) : MDSimulation(MDParams::from_deck(deck), comm) {
  const ParallelParams par = ParallelParams::from_deck(deck);  // [parallel], read and checked in one place
  decomp_ = par.decomp;
  transport_ = par.transport;
}

MDSimulation::MDSimulation(const MDParams& params, MPI_Comm comm, Int3 decomp, HaloTransport transport)
    : p_(params),
      comm_in_(comm),
      decomp_(decomp),
      transport_(transport),
      units_(Units::named(params.units)),
      spec_(1, params.cutoff) {}

MDSimulation::~MDSimulation() {
  // A frame in flight ends before what it uses goes; its error is lost here (the run loop's finish_output()
  // reports it).
  h5::end_background_writer(output_jobs_, output_comm_);
}

std::string MDSimulation::describe() const {
  std::ostringstream os;
  if (!p_.data_file.empty()) {
    os << "md: atoms from LAMMPS data file '" << p_.data_file << "'";
  } else {
    const int basis = lattice_basis(p_.lattice);
    os << "md: " << static_cast<long long>(basis) * p_.cells[0] * p_.cells[1] * p_.cells[2] << " atoms on a "
       << p_.lattice << " lattice " << p_.cells[0] << " x " << p_.cells[1] << " x " << p_.cells[2] << " cells ("
       << (p_.lattice_constant > 0.0 ? "a = " + fmtg(p_.lattice_constant) : "density " + fmtg(p_.density)) << ")";
    if (p_.ntypes > 1) os << ", " << p_.ntypes << " types";
  }
  os << ", " << units_.name << " units, dt " << fmtg(p_.dt) << " " << units_.time << "\n";
  if (p_.coulomb())
    os << "md: " << (p_.lj() ? "lj/cut/coul/long, LJ rc " + fmtg(p_.cutoff) + (p_.shift ? " shifted" : "") + ", "
                             : std::string("coul/long, "))
       << "Coulomb rc " << fmtg(p_.coul_cutoff) << " (" << (p_.erfc_exact ? "exact" : "polynomial") << " erfc), "
       << (p_.kspace == KSpaceStyle::pppm ? "pppm" : "ewald") << " at relative accuracy " << fmtg(p_.kspace_accuracy)
       << "\n";
  os << "md: " << (p_.coulomb() ? "" : "lj/cut rc " + fmtg(p_.cutoff) + (p_.shift ? " shifted" : "") + ", ") << "skin "
     << fmtg(p_.skin) << ", "
     << (list_is_half(p_.list) ? "half" : "full") << " neighbor list; ensemble "
     << (p_.ensemble == Ensemble::nve        ? std::string("nve")
         : p_.ensemble == Ensemble::langevin ? "langevin T " + fmtg(p_.t_target) + " damp " + fmtg(p_.t_damp)
                                             : "nhc T " + fmtg(p_.t_target) + " period " + fmtg(p_.t_damp));
  if (p_.temperature > 0.0 && (p_.data_file.empty() || p_.velocities == VelocitySource::create))
    os << "; initial T " << fmtg(p_.temperature) << " seed " << p_.velocity_seed;
  return os.str();
}

double MDSimulation::memory_bytes() const {
  int size = 1;
  MPI_Comm_size(comm_in_, &size);
  const int basis = lattice_basis(p_.lattice);
  // The system's atoms once known (a data file's after preflight()), else the lattice's.
  const double n = natoms_ > 0          ? static_cast<double>(natoms_)
                   : header_.natoms > 0 ? static_cast<double>(header_.natoms)
                                        : static_cast<double>(basis) * p_.cells[0] * p_.cells[1] * p_.cells[2];
  // x, v, f, image, type, id, q and the list's build copy, with ghosts; ~80 neighbours of 4 bytes; the
  // host rows of the trajectory's frames in flight (as many as the background may hold).
  return n / size * (1.5 * 8.0 * 3 * 5 + 4.0 * 80.0) + frame_row_bytes(n / size, static_cast<int>(frames_.size()));
}

void MDSimulation::build_system(AtomData& all) const {
  const double kb_eff = units_.boltz / units_.mvv2e;  // kB T / (m v^2) in mass velocity^2 units
  if (!p_.data_file.empty()) {
    all = read_lammps_data(p_.data_file);
    for (int t = 1; t <= all.ntypes; ++t)
      STRATUS_INPUT_REQUIRE(all.mass[static_cast<std::size_t>(t)] > 0.0,
                            "data file '" << p_.data_file << "': atom type " << t << " has no positive mass (Masses)");
  } else {
    const bool reduced = !(p_.lattice_constant > 0.0);
    const auto masses = per_type(p_.mass, p_.ntypes, "md.mass");
    all = make_lattice(p_.lattice, reduced ? p_.density : p_.lattice_constant, reduced, p_.cells, 1, masses[0]);
    all.ntypes = p_.ntypes;
    all.mass.assign(static_cast<std::size_t>(p_.ntypes + 1), 0.0);
    for (int t = 1; t <= p_.ntypes; ++t)
      all.mass[static_cast<std::size_t>(t)] = masses[static_cast<std::size_t>(t - 1)];
    if (p_.ntypes > 1 && p_.lattice != "rocksalt") {
      auto frac = per_type(p_.type_fractions, p_.ntypes, "md.type_fractions");
      const double sum = std::accumulate(frac.begin(), frac.end(), 0.0);
      for (std::size_t i = 0; i < all.natoms(); ++i) {
        const double u =
            static_cast<double>(rng_mix(rng_mix(p_.type_seed) ^ static_cast<unsigned long long>(all.id[i])) >> 11) *
            0x1.0p-53 * sum;
        double c = 0.0;
        int t = p_.ntypes;
        for (int k = 0; k < p_.ntypes; ++k) {
          c += frac[static_cast<std::size_t>(k)];
          if (u < c) {
            t = k + 1;
            break;
          }
        }
        all.type[i] = t;
      }
    }
  }
  STRATUS_INPUT_REQUIRE(all.natoms() > 1, "md: the system has " << all.natoms() << " atoms; at least 2 are needed");
  // Charges: a charge-style data file's, or per type from md.charge (lattices, atomic data files; like
  // the other lattice keys, md.charge does not override a data file's own charges).
  if (p_.data_file.empty() || (p_.charge_set && !all.has_charges)) {
    const auto q = per_type(p_.charge, all.ntypes, "md.charge");
    for (std::size_t i = 0; i < all.natoms(); ++i) all.q[i] = q[static_cast<std::size_t>(all.type[i] - 1)];
    all.has_charges = p_.charge_set || p_.coulomb();
  }
  const std::string file = "data file '" + p_.data_file + "'";
  const bool from_file = !p_.data_file.empty() && all.has_velocities && p_.velocities != VelocitySource::create;
  STRATUS_INPUT_REQUIRE(p_.velocities != VelocitySource::file || from_file,
                        "key 'md.velocities' = file: " << (p_.data_file.empty() ? std::string("no md.data_file")
                                                                                : file + " has no Velocities section")
                                                       << " (create them: md.velocities = create, md.temperature)");
  if (!from_file) {
    create_velocities(all, p_.temperature, p_.velocity_seed, true, kb_eff, p_.velocity_uniform);
  } else if (p_.temperature > 0.0 && p_.velocities == VelocitySource::automatic) {
    log::warn("md.temperature = " + fmtg(p_.temperature) + " is not used: the velocities come from " + file +
              " (md.velocities = auto; md.velocities = create sets new ones at md.temperature)");
  }
  // Periodic directions: wrap atoms into the box (as LAMMPS does on reading); fixed ones: must be inside.
  const std::string src = p_.data_file.empty() ? std::string("the lattice") : "data file '" + p_.data_file + "'";
  for (std::size_t i = 0; i < all.natoms(); ++i)
    for (int d = 0; d < 3; ++d) {
      double& x = all.x[i][static_cast<std::size_t>(d)];
      const double lo = all.lo[static_cast<std::size_t>(d)], hi = all.hi[static_cast<std::size_t>(d)], len = hi - lo;
      if (p_.periodic[static_cast<std::size_t>(d)]) {
        const double shift = std::floor((x - lo) / len);
        STRATUS_INPUT_REQUIRE(std::abs(shift) < 1e6, src << ": atom " << all.id[i] << " lies far outside the box");
        if (shift != 0.0) {
          x -= shift * len;
          all.image[i][static_cast<std::size_t>(d)] += static_cast<int>(shift);
        }
        if (x >= hi) x = lo;
        if (x < lo) x = lo;
      } else {
        STRATUS_INPUT_REQUIRE(x >= lo && x < hi, src << ": atom " << all.id[i] << " at "
                                                     << "xyz"[d] << " = " << x << " lies outside the fixed box [" << lo
                                                     << ", " << hi << ")");
      }
    }
}

void MDSimulation::set_owned_atoms(const std::vector<AtomRow>& rows) {
  const int n = static_cast<int>(rows.size());
  atoms_.reserve(std::max(n, 1));
  atoms_.n_local = n;
  atoms_.n_ghost = 0;
  auto hx = Kokkos::create_mirror_view(atoms_.x);
  auto hv = Kokkos::create_mirror_view(atoms_.v);
  auto ht = Kokkos::create_mirror_view(atoms_.type);
  auto hid = Kokkos::create_mirror_view(atoms_.id);
  auto him = Kokkos::create_mirror_view(atoms_.image);
  auto hq = Kokkos::create_mirror_view(atoms_.q);
  auto hx0 = Kokkos::create_mirror_view(atoms_.x0);
  for (int i = 0; i < n; ++i) {
    const AtomRow& r = rows[static_cast<std::size_t>(i)];
    hid(i) = r.id;
    ht(i) = r.type;
    hq(i) = r.q;
    for (int d = 0; d < 3; ++d) {
      hx(i, d) = r.x[d];
      hv(i, d) = r.v[d];
      him(i, d) = r.image[d];
      hx0(i, d) = r.x0[d];
    }
  }
  Kokkos::deep_copy(atoms_.x, hx);
  Kokkos::deep_copy(atoms_.v, hv);
  Kokkos::deep_copy(atoms_.type, ht);
  Kokkos::deep_copy(atoms_.id, hid);
  Kokkos::deep_copy(atoms_.image, him);
  Kokkos::deep_copy(atoms_.q, hq);
  Kokkos::deep_copy(atoms_.x0, hx0);
}

LJSpec MDSimulation::make_spec(int ntypes) const {
  LJSpec spec(ntypes, p_.cutoff);
  const auto eps = per_type(p_.epsilon, ntypes, "md.epsilon");
  const auto sig = per_type(p_.sigma, ntypes, "md.sigma");
  for (int t = 1; t <= ntypes; ++t)
    spec.set_type(t, eps[static_cast<std::size_t>(t - 1)], sig[static_cast<std::size_t>(t - 1)]);
  for (std::size_t g = 0; g + 4 < p_.pair_coeffs.size(); g += 5) {
    const double ti = p_.pair_coeffs[g], tj = p_.pair_coeffs[g + 1];
    STRATUS_INPUT_REQUIRE(
        ti >= 1 && ti <= ntypes && tj >= 1 && tj <= ntypes && ti == std::floor(ti) && tj == std::floor(tj),
        "key 'md.pair_coeff': pair " << ti << " " << tj << " is not two of the types 1.." << ntypes);
    spec.set_pair(static_cast<int>(ti), static_cast<int>(tj), p_.pair_coeffs[g + 2], p_.pair_coeffs[g + 3],
                  p_.pair_coeffs[g + 4]);
  }
  spec.mix(p_.mixing);
  spec.shift = p_.shift;
  return spec;
}

MDSimulation::SystemHeader MDSimulation::build_and_check(AtomData& all) const {
  build_system(all);
  // Trajectories, checkpoints and the by-id exchanges keep atom n in row n - 1.
  const long long n = static_cast<long long>(all.natoms());
  const long long max_id = *std::max_element(all.id.begin(), all.id.end());
  STRATUS_INPUT_REQUIRE(max_id == n, (p_.data_file.empty() ? std::string("md") : "data file '" + p_.data_file + "'")
                                         << ": atom ids must be 1.." << n << " (one per atom), the largest is "
                                         << max_id << " (renumber the atoms, e.g. with LAMMPS' reset_atoms id)");
  SystemHeader h;
  h.lo = all.lo;
  h.hi = all.hi;
  h.ntypes = all.ntypes;
  h.mass = all.mass;
  h.natoms = n;
  h.has_charges = all.has_charges;
  for (std::size_t i = 0; i < all.natoms(); ++i) {  // id order: the same on every rank count
    h.qsum += all.q[i];
    h.qsqsum += all.q[i] * all.q[i];
  }
  make_spec(h.ntypes);  // checks md.pair_coeff's types
  if (p_.coulomb()) {
    for (int d = 0; d < 3; ++d)
      STRATUS_INPUT_REQUIRE(
          p_.periodic[static_cast<std::size_t>(d)],
          "key 'md.boundary' = '" << p_.boundary << "': md.kspace needs a periodic box in x, y and z");
    STRATUS_INPUT_REQUIRE(h.qsqsum > 0.0,
                          "md.pair_style coul/long: every charge is zero (set md.charge per type, "
                          "or start from a data file of atom style charge)");
    const bool neutral = std::abs(h.qsum) <= 1e-5 * std::max(1.0, std::sqrt(h.qsqsum));
    STRATUS_INPUT_REQUIRE(neutral || p_.neutralize, "md: the system carries a net charge of "
                                                        << fmtg(h.qsum) << "; make it neutral, or set "
                                                        << "md.neutralize = true to accept a uniform "
                                                        << "neutralising background");
    if (!neutral) log::warn("md: net charge " + fmtg(h.qsum) + ", neutralised by a uniform background (md.neutralize)");
  }
  return h;
}

void MDSimulation::broadcast_header(SystemHeader& h) const {
  double box[8] = {h.lo[0], h.lo[1], h.lo[2], h.hi[0], h.hi[1], h.hi[2], h.qsum, h.qsqsum};
  long long ints[3] = {h.ntypes, h.natoms, h.has_charges ? 1 : 0};
  STRATUS_MPI_CHECK(MPI_Bcast(box, 8, MPI_DOUBLE, 0, comm_in_));
  STRATUS_MPI_CHECK(MPI_Bcast(ints, 3, MPI_LONG_LONG, 0, comm_in_));
  for (std::size_t d = 0; d < 3; ++d) {
    h.lo[d] = box[d];
    h.hi[d] = box[3 + d];
  }
  h.qsum = box[6];
  h.qsqsum = box[7];
  h.ntypes = static_cast<int>(ints[0]);
  h.natoms = ints[1];
  h.has_charges = ints[2] != 0;
  h.mass.resize(static_cast<std::size_t>(h.ntypes) + 1);
  STRATUS_MPI_CHECK(MPI_Bcast(h.mass.data(), h.ntypes + 1, MPI_DOUBLE, 0, comm_in_));
}

void MDSimulation::preflight() {
  if (preflight_done_) return;
  // Rank 0 alone builds the whole system; its input errors stop every rank with its message (exit 2).
  int rank = 0;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm_in_, &rank));
  std::unique_ptr<AtomData> all;
  SystemHeader h;
  std::string err;
  int kind = 0;  // 0 built, 1 bad input, 2 another failure
  if (rank == 0) {
    try {
      all = std::make_unique<AtomData>();
      h = build_and_check(*all);
    } catch (const InputError& e) {
      err = e.what();
      kind = 1;
    } catch (const std::exception& e) {
      err = e.what();
      kind = 2;
    }
  }
  STRATUS_MPI_CHECK(MPI_Bcast(&kind, 1, MPI_INT, 0, comm_in_));
  if (kind != 0) {
    err = bcast_string(comm_in_, err);
    if (kind == 1) throw InputError(err);
    throw CollectiveError(err);
  }
  broadcast_header(h);
  int size = 1;
  STRATUS_MPI_CHECK(MPI_Comm_size(comm_in_, &size));
  ParticleComm::choose_dims(size, Real3{{h.lo[0], h.lo[1], h.lo[2]}}, Real3{{h.hi[0], h.hi[1], h.hi[2]}}, p_.periodic,
                            decomp_, neighbor_params(p_, pair_cutoff(make_spec(h.ntypes))).list_cutoff());
  header_ = std::move(h);
  preflight_atoms_ = std::move(all);
  preflight_done_ = true;
}

void MDSimulation::initialize() {
  preflight();
  std::unique_ptr<AtomData> all = std::move(preflight_atoms_);  // rank 0 only
  lo_ = header_.lo;
  hi_ = header_.hi;
  natoms_ = header_.natoms;
  has_charges_ = header_.has_charges;
  mass_host_ = header_.mass;

  // Potential.
  spec_ = make_spec(header_.ntypes);
  coeffs_ = LJCoeffs::from_spec(spec_);
  const NeighborParams list_params = neighbor_params(p_, pair_cutoff(spec_));

  pc_ = std::make_unique<ParticleComm>(comm_in_, Real3{{lo_[0], lo_[1], lo_[2]}}, Real3{{hi_[0], hi_[1], hi_[2]}},
                                       p_.periodic, decomp_, list_params.list_cutoff(), transport_);

  // Each rank keeps the atoms in its sub-domain; rank 0's copy of the whole system goes before the
  // device arrays are made.
  {
    const std::vector<AtomRow> rows = distribute_atoms(all.get());
    all.reset();
    set_owned_atoms(rows);
  }
  const int n = atoms_.n_local;
  long long total = 0, local = n;
  STRATUS_MPI_CHECK(MPI_Allreduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, pc_->comm()));
  STRATUS_REQUIRE(total == natoms_,
                  "md set-up: " << total << " atoms assigned to ranks, " << natoms_ << " in the system");

  mass_ = TypeMass("md::mass", mass_host_.size());
  {
    auto hm = Kokkos::create_mirror_view(mass_);
    for (std::size_t t = 0; t < mass_host_.size(); ++t) hm(t) = mass_host_[t];
    Kokkos::deep_copy(mass_, hm);
  }

  list_ = std::make_unique<NeighborList>(list_params);
  if (p_.sort_every > 0) sort_atoms(0);  // atoms from a data file in any order read their partners nearby
  rebuild();
  if (p_.coulomb()) make_kspace();
  compute_forces(true);
  if (p_.ensemble == Ensemble::nhc)
    nhc_ = std::make_unique<NoseHooverChain>(p_.nhc_chain, p_.t_target, p_.t_damp, 3.0 * natoms_ - 3.0, units_);
}

void MDSimulation::rebuild() {
  ScopedPhase phase(Phase::neighbor);
  pc_->borders(atoms_);
  list_->build(atoms_.x, atoms_.n_local, atoms_.n_ghost, pc_->ghost_lo(), pc_->ghost_hi());
  ++reneighbors_;
}

void MDSimulation::sort_if_due(long step) {
  if (p_.sort_every > 0 && step / p_.sort_every > last_sort_ / p_.sort_every) sort_atoms(step);
}

void MDSimulation::sort_atoms(long step) {
  ScopedPhase phase(Phase::neighbor);
  const double bin = p_.sort_bin > 0.0 ? p_.sort_bin : 0.5 * list_->list_cutoff();
  sort_by_bin(atoms_, pc_->sub_lo(), pc_->sub_hi(), bin);
  last_sort_ = step;
  ++sorts_;
}

void MDSimulation::compute_forces(bool energy) {
  PairResult r;
  if (kspace_) {
    coul_.q = atoms_.q;  // the current array (reserve() may have moved it)
    r = compute_pair(coul_, atoms_.x, atoms_.type, *list_, atoms_.f, &scratch_, energy);
  } else {
    r = compute_pair(coeffs_, atoms_.x, atoms_.type, *list_, atoms_.f, &scratch_, energy);
  }
  if (list_->params().newton_ghost) pc_->reverse(atoms_, atoms_.f);
  KSpaceResult k;
  if (kspace_) {
    ScopedPhase phase(Phase::kspace);
    k = kspace_->compute(atoms_, atoms_.f, energy);
  }
  if (energy) {
    pe_local_ = r.energy + k.energy;
    ecoul_local_ = r.ecoul;
    elong_local_ = k.energy;
    virial_local_ = r.virial + k.virial;
  }
  ev_current_ = energy;
}

void MDSimulation::refresh() {
  pc_->exchange(atoms_);
  rebuild();
  compute_forces(true);
}

void MDSimulation::advance(const Clock& clock, double dt) {
  const long next = clock.step + 1;
  if (p_.ensemble == Ensemble::langevin) {
    LangevinParams lp{p_.t_target, p_.t_damp, p_.thermostat_seed, true};
    langevin_initial(atoms_, mass_, dt, units_, lp, next, pc_->comm());
  } else {
    if (nhc_) nhc_->half_step(atoms_, mass_, dt, pc_->comm());
    verlet_initial(atoms_, mass_, dt, units_.ftm2v);
  }
  // Never miss a pair: every rank checks every step and all rebuild together.
  int local = list_->needs_rebuild(atoms_.x) ? 1 : 0, any = 0;
  STRATUS_MPI_CHECK(MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, pc_->comm()));
  if (any) {
    pc_->exchange(atoms_);
    sort_if_due(next);
    rebuild();
  } else {
    pc_->forward(atoms_);
  }
  compute_forces(report_next_);  // the forces of the new step
  verlet_final(atoms_, mass_, dt, units_.ftm2v);
  if (nhc_) nhc_->half_step(atoms_, mass_, dt, pc_->comm());
  if (p_.rescale_every > 0 && next % p_.rescale_every == 0) {
    const double t = sum_mv2(atoms_, mass_, pc_->comm()) * units_.mvv2e / ((3.0 * natoms_ - 3.0) * units_.boltz);
    if (t > 0.0 && std::abs(t - p_.t_target) > p_.rescale_window) scale_velocities(atoms_, std::sqrt(p_.t_target / t));
  }
  if (p_.zero_momentum_every > 0 && next % p_.zero_momentum_every == 0) zero_momentum(atoms_, mass_, pc_->comm());
}

std::string MDSimulation::locate_nonfinite() {
  const auto x = atoms_.x, v = atoms_.v, f = atoms_.f;
  const auto id = atoms_.id;
  long long first = std::numeric_limits<long long>::max();
  Kokkos::parallel_reduce(
      "md::locate_nonfinite", Kokkos::RangePolicy<ExecSpace>(0, atoms_.n_local),
      KOKKOS_LAMBDA(int i, long long& m) {
        bool bad = false;
        for (int d = 0; d < 3; ++d)  // x - x is NaN exactly for NaN and inf
          bad = bad || !(x(i, d) - x(i, d) == 0.0) || !(v(i, d) - v(i, d) == 0.0) || !(f(i, d) - f(i, d) == 0.0);
        if (bad && id(i) < m) m = id(i);
      },
      Kokkos::Min<long long>(first));
  long long g = 0;
  STRATUS_MPI_CHECK(MPI_Allreduce(&first, &g, 1, MPI_LONG_LONG, MPI_MIN, pc_->comm()));
  if (g == std::numeric_limits<long long>::max()) return {};
  const AtomData all = gather();
  std::string s;
  for (std::size_t i = 0; i < all.natoms(); ++i)
    if (all.id[i] == g)
      s = "atom " + std::to_string(g) + " at (" + fmtg(all.x[i][0]) + ", " + fmtg(all.x[i][1]) + ", " +
          fmtg(all.x[i][2]) + ")";
  return bcast_string(pc_->comm(), s);
}

void MDSimulation::reverse_velocities() { scale_velocities(atoms_, -1.0); }

}  // namespace stratus::md
