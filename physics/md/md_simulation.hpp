// Molecular dynamics as a Simulation (physics "md"): Lennard-Jones atoms from a lattice or a LAMMPS data
// file, spatially decomposed over the ranks (ParticleComm: migration, ghosts, periodic images), Verlet
// neighbor lists rebuilt when an atom has moved more than half the skin (checked every step), and
// velocity-Verlet NVE, Langevin (BAOAB) or Nose-Hoover chain NVT, with optional velocity rescaling and
// removal of the centre-of-mass motion. Thermo follows LAMMPS: T with 3N - 3 degrees of freedom, energies
// per atom in lj units (totals in real and metal units), P = (sum m v^2 + sum r.f) / (3 V).
// All per-step state lives on the device; the host reads scalars (thermo) and copies atoms for set-up and
// data files only.
#pragma once
#include <array>
#include <future>
#include <memory>
#include <optional>

#include "comm/particle_comm.hpp"
#include "domain/particles.hpp"
#include "driver/simulation.hpp"
#include "io/background_jobs.hpp"
#include "io/h5md.hpp"
#include "md/integrate.hpp"
#include "md/kspace.hpp"
#include "md/md_options.hpp"
#include "md/md_setup.hpp"
#include "md/pair_lj.hpp"
#include "neighbor/neighbor_list.hpp"

namespace stratus::md {

/// Thermodynamic state (global, identical on every rank), in the units and normalisation of the thermo
/// output (per atom in lj units).
struct Thermo {
  long long natoms = 0;
  double temp = 0.0, pe = 0.0, ke = 0.0, etotal = 0.0, press = 0.0;
  double econserve = 0.0;  // etotal plus the thermostat's energy (Nose-Hoover); equals etotal otherwise
  double evdwl = 0.0, ecoul = 0.0, elong = 0.0;  // parts of pe with a coul/long style (LAMMPS' names)
};

/// "%.*g" of v (prec significant digits): the log's number format.
std::string fmtg(double v, int prec = 10);

class MDSimulation : public Simulation {
 public:
  MDSimulation(const Deck& deck, MPI_Comm comm);
  MDSimulation(const MDParams& params, MPI_Comm comm, Int3 decomp = {{0, 0, 0}},
               HaloTransport transport = HaloTransport::host_staged);
  ~MDSimulation() override;

  std::string describe() const override;
  double memory_bytes() const override;
  /// Reads and checks the system (data file or lattice, atom ids 1..N, the potential's types, the
  /// decomposition against cutoff + skin) without allocating the state; `check` runs it, initialize()
  /// reuses its result. Collective: rank 0 alone builds the whole system on the host, and every rank
  /// throws its input error.
  void preflight() override;
  /// Whether this rank holds the whole system on the host: rank 0, between preflight() and initialize().
  bool holds_system() const { return preflight_atoms_ != nullptr; }
  std::vector<std::string> input_files() const override {
    return p_.data_file.empty() ? std::vector<std::string>{} : std::vector<std::string>{p_.data_file};
  }
  void initialize() override;
  double stable_dt() const override { return p_.dt; }
  void advance(const Clock& clock, double dt) override;
  void will_report(bool next) override { report_next_ = next; }
  /// A thermo line in the log (the header before the first), as LAMMPS prints them.
  void report(const Clock& clock, const Diagnostics& d, const Progress& progress) override;
  bool prints_table() const override { return true; }
  double work_per_step() const override { return static_cast<double>(natoms_); }
  std::string work_unit() const override { return "atom-steps"; }
  std::string locate_nonfinite() override;
  /// "neighbor": one neighbor-list build (binning and listing) of the current owned and ghost atoms,
  /// without communication; its work is this rank's owned atoms (md_bench.cpp).
  std::vector<BenchKernel> bench_kernels() const override;
  double run_bench_kernel(const std::string& name) override;
  void finish(const Clock& clock) override;
  /// A trajectory frame (an H5MD file and its LAMMPS data file with the first). In the background (see
  /// set_background_output) it returns once the frame's rows are on the host: a thread of its own, on a
  /// communicator of its own, creates the files and writes the frame while the run steps on; the next
  /// frame, a checkpoint (finish_output) and the end wait for it.
  double write_snapshot(const Clock& clock, const std::string& output_dir, const std::string& name) override;
  void set_background_output(bool on) override;
  /// Host bytes the rows of the trajectory's frames hold on this rank (their capacity). They are sized by
  /// set_background_output, for every frame that may be in flight, so that no frame in the step loop
  /// allocates or first touches them (prepare_frame_rows). Not while a job runs: after finish_output().
  double frame_rows_bytes() const;
  void finish_output() override;
  void drop_output() noexcept override;
  double background_output_seconds() override { return output_jobs_.busy_seconds(); }
  void write_checkpoint(CheckpointWriter& w) override;
  void read_checkpoint(CheckpointReader& r) override;
  std::string length_unit() const override { return units_.length; }
  std::string time_unit() const override { return units_.time; }
  std::vector<std::pair<std::string, std::string>> history_units() const override;

  /// Collective. Current thermo (forces and energies are those of the current positions).
  Thermo thermo();
  /// Sums of m v^2, the pair energy and the pair virial over this rank's atoms.
  void reduce_diagnostics(const Clock& clock, double dt, LocalReductions& local) override;
  /// Collective. Every atom (sorted by id) on rank 0 with positions wrapped and image flags; empty
  /// elsewhere.
  AtomData gather() const;
  /// Collective. Writes every atom as a LAMMPS data file at path (write_lammps_data's bytes, atoms in id
  /// order), each rank formatting and writing the lines of its block of ids. Throws the same Error on every
  /// rank on failure, leaving no temporary.
  void write_data_to(const std::string& path);
  /// Negates every velocity (time reversal).
  void reverse_velocities();
  /// Collective. Recomputes ghosts, the neighbor list and the forces for the current positions (after a
  /// caller changed them).
  void refresh();
  const Particles& particles() const { return atoms_; }
  Particles& particles() { return atoms_; }
  const ParticleComm& comm() const { return *pc_; }
  const NeighborList& neighbor_list() const { return *list_; }
  const Units& units() const { return units_; }
  /// The long-range solver (coul/long styles; null otherwise).
  const KSpace* kspace() const { return kspace_.get(); }
  KSpace* kspace() { return kspace_.get(); }
  /// Whether the last force pass also computed the energy and virial (a reporting step).
  bool energies_current() const { return ev_current_; }
  long long natoms() const { return natoms_; }
  double volume() const { return (hi_[0] - lo_[0]) * (hi_[1] - lo_[1]) * (hi_[2] - lo_[2]); }
  int reneighbors() const { return reneighbors_; }
  /// How many times the owned atoms were sorted by position (md.sort_every).
  int sorts() const { return sorts_; }

 protected:
  MPI_Comm communicator() const override { return pc_->comm(); }
  /// temp, pe, ke, etotal, press (and econserve with a Nose-Hoover chain) from three sums over atoms.
  void declare_diagnostics(DiagnosticsPlan& plan) override;

 private:
  /// One owned atom on the host.
  struct AtomRow {
    long long id;
    int type;
    double x[3], v[3];
    int image[3];
    double q;
    double x0[3];  // the unwrapped origin of its displacement (msd)
  };
  /// What every rank knows of the system before it has its atoms: rank 0 builds the system (lattice or
  /// data file) and broadcasts this. Sums over the atoms run in id order on rank 0.
  struct SystemHeader {
    std::array<double, 3> lo{}, hi{};
    int ntypes = 0;
    std::vector<double> mass;  // mass[type], index 0 unused
    long long natoms = 0;
    bool has_charges = false;
    double qsum = 0.0, qsqsum = 0.0;
  };
  void build_system(AtomData& all) const;
  /// Rank 0: builds and checks the whole system (throws InputError for bad input); its header.
  SystemHeader build_and_check(AtomData& all) const;
  /// Collective: rank 0's header on every rank.
  void broadcast_header(SystemHeader& h) const;
  /// Collective: the atoms of rank 0's `all` (null elsewhere) that this rank owns, sent in chunks so
  /// that no other rank holds the whole system (md_distribute.cpp). Needs pc_.
  std::vector<AtomRow> distribute_atoms(const AtomData* all) const;
  LJSpec make_spec(int ntypes) const;
  /// The pair styles' largest cutoff (Lennard-Jones and Coulomb): the neighbor list's.
  double pair_cutoff(const LJSpec& spec) const;
  /// Creates the k-space solver (coul/long styles) for the system's charges (after pc_).
  void make_kspace();
  bool preflight_done_ = false;
  SystemHeader header_;                        // from preflight()
  std::unique_ptr<AtomData> preflight_atoms_;  // rank 0: the system built by preflight(), until initialize()
  /// Replaces the owned atoms (no ghosts) by rows, on the device.
  void set_owned_atoms(const std::vector<AtomRow>& rows);
  /// The system's box, types, masses and flags in an AtomData without atoms (md_io.cpp).
  AtomData no_atoms() const;
  /// Collective. Writes md.write_data (a LAMMPS data file) when set (md_io.cpp).
  void write_data_file();
  /// Host copies of the owned atoms' rows (a trajectory frame, a data file); f and v may be left empty.
  /// (HostBuffers: a frame's large arrays take huge pages at their first touch.)
  struct HostRows {
    HostBuffer<long long> id;
    HostBuffer<int> type, image;
    HostBuffer<double> x, v, f, q;
  };
  /// Sizes and first touches the rows of the frames a trajectory will use (one, or frames_.size() in the
  /// background) for this rank's atoms and some more, so that no frame's copy in the step loop allocates or
  /// faults memory in (set_background_output calls it, before the loop).
  void prepare_frame_rows();
  /// The host bytes prepare_frame_rows() keeps for `slots` frames of n atoms (at most).
  double frame_row_bytes(double n, int slots) const;
  /// Collective over comm: write_data_to() from rows already on the host.
  void write_data_rows(MPI_Comm comm, const std::string& path, const HostRows& rows) const;
  /// The trajectory's layout (units, what each frame holds) for this system.
  H5mdSpec trajectory_spec() const;
  void rebuild();
  /// Sorts the owned atoms by position (md.sort_every) when a sort is due at step `step`: at the first
  /// rebuild in a later window of sort_every steps than the last sort. Before borders() only.
  void sort_if_due(long step);
  /// Sorts the owned atoms by position now (before borders() only).
  void sort_atoms(long step);
  void compute_forces(bool energy);

  MDParams p_;
  MPI_Comm comm_in_;
  Int3 decomp_;
  HaloTransport transport_ = HaloTransport::host_staged;  // parallel.halo_transport, for ParticleComm
  Units units_;
  LJSpec spec_;
  LJCoeffs coeffs_;
  LJCoulLong coul_;                  // lj/cut/coul/long or coul/long (when p_.coulomb())
  std::unique_ptr<KSpace> kspace_;   // its long-range part
  PairScratch scratch_;
  std::unique_ptr<ParticleComm> pc_;
  std::unique_ptr<NeighborList> list_;
  std::unique_ptr<NoseHooverChain> nhc_;
  std::unique_ptr<H5mdWriter> trajectory_;
  // The host copies of trajectory frames' rows, kept for the next frames: in the background one per frame
  // in flight (80 bytes per owned atom each: ids, types, image flags, positions, velocities, charges; a
  // frame is copied while the two before it may still be written), in the loop the first alone. Sized
  // before the step loop (prepare_frame_rows).
  std::array<HostRows, 3> frames_;
  unsigned frame_slot_ = 0;
  // Bit k set: frames_[k] is being sized on the writer's thread (prepare_frame_rows), ready when
  // frame_rows_ready_ is.
  unsigned frame_rows_pending_ = 0;
  std::optional<std::size_t> last_frame_job_;  // the number of the last frame handed to output_jobs_
  std::shared_future<void> frame_rows_ready_;
  Particles atoms_;
  TypeMass mass_;
  std::vector<double> mass_host_;
  std::array<double, 3> lo_{}, hi_{};
  long long natoms_ = 0;
  bool has_charges_ = false;  // the system has charges (carried by checkpoints, trajectories, data files)
  double pe_local_ = 0.0, virial_local_ = 0.0;
  double ecoul_local_ = 0.0, elong_local_ = 0.0;  // parts of pe_local_: real-space Coulomb, k-space
  bool ev_current_ = false;  // pe_local_ and virial_local_ belong to the current positions
  bool report_next_ = true;  // compute the energy and virial in the next step's force pass
  long restarted_at_ = -1;   // the step a restart continued from (its trajectory gets a file of its own)
  int reneighbors_ = 0;
  long last_sort_ = 0;  // the step of the last sort of the atoms (a checkpoint keeps it)
  int sorts_ = 0;
  bool thermo_header_ = false;
  // Trajectory frames in the background: a communicator for the thread's MPI calls, and the thread (last,
  // so that it ends first; the destructor waits for it before anything it uses goes).
  MPI_Comm output_comm_ = MPI_COMM_NULL;
  bool background_output_ = false;
  BackgroundJobs output_jobs_{3};  // three trajectory frames in flight at most (frames_)
};

}  // namespace stratus::md
