// Where a run's wall time goes: a fixed set of phases, timed exclusively (a phase entered inside another
// stops the outer one's clock until it ends), so that the phases of a run add up to its wall time. The
// run loop opens the outer phases (initialise, stepping compute, diagnostics, snapshots, checkpoints);
// communication and neighbor-list code open theirs inside the step. Every phase is also a Kokkos
// profiling region. Entering and leaving fences the default execution space, so that device work is
// counted in the phase that launched it. Process-wide; not for use inside kernels or from threads.
#pragma once
#include <mpi.h>

#include <array>
#include <string>

namespace stratus {

enum class Phase : int {
  startup,        // before the run loop: runtime, deck, set-up checks (set from the process start)
  initialize,     // initial state, restart
  compute,        // stepping, less what follows
  communication,  // halo and ghost exchange, atom migration
  neighbor,       // neighbor-list builds
  kspace,         // long-range electrostatics (PPPM, Ewald), less its communication
  diagnostics,    // history rows and their reductions
  snapshots,      // grid snapshots and trajectory frames
  checkpoints,    // checkpoint writes
  finish,         // final output, report
  count
};
constexpr int kPhases = static_cast<int>(Phase::count);
/// "startup", "initialize", "compute", ... (JSON keys of the run report).
const char* phase_name(Phase p);

class Phases {
 public:
  /// Records the start of the process (the first statement of main), so that reset() can count the
  /// start-up.
  static void mark_process_start();
  /// Starts the clock: every phase at zero but `startup` (the time since mark_process_start()), none open,
  /// the time until the first begin() charged to `outer`.
  static void reset(Phase outer = Phase::compute);
  /// Enters phase p (nesting allowed, also of the same phase).
  static void begin(Phase p);
  /// Leaves the innermost phase.
  static void end();
  /// Exclusive seconds per phase up to now (the open phases included).
  static std::array<double, kPhases> seconds();
};

/// Enters a phase on construction and leaves it on destruction.
class ScopedPhase {
 public:
  explicit ScopedPhase(Phase p) { Phases::begin(p); }
  ~ScopedPhase() { Phases::end(); }
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;
};

/// min, mean and max over the ranks of comm of each phase's seconds (collective; valid on every rank).
struct PhaseStats {
  std::array<double, kPhases> min{}, mean{}, max{};
};
PhaseStats reduce_phases(MPI_Comm comm, const std::array<double, kPhases>& local);

/// Table of min/avg/max seconds per phase (those above zero on some rank), each phase's share of the
/// total and its max / avg over the ranks.
std::string phase_table(const PhaseStats& s);

}  // namespace stratus
