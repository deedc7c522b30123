// Exclusive phase timers and their cross-rank report (core/timer.hpp).
#include "core/timer.hpp"

#include <Kokkos_Core.hpp>
#include <chrono>
#include <iomanip>
#include <sstream>
#include <vector>

#include "core/error.hpp"

namespace stratus {

namespace {
struct State {
  std::array<double, kPhases> total{};
  std::vector<Phase> open;
  Phase outer = Phase::compute;
  double mark = 0.0;  // when the innermost open phase (or `outer`) last took the clock
  bool process_marked = false;
  std::chrono::steady_clock::time_point process_start;
};
State& state() {
  static State s;
  return s;
}
void charge(State& s, double now) {
  const Phase p = s.open.empty() ? s.outer : s.open.back();
  s.total[static_cast<int>(p)] += now - s.mark;
  s.mark = now;
}
}  // namespace

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::startup:
      return "startup";
    case Phase::initialize:
      return "initialize";
    case Phase::compute:
      return "compute";
    case Phase::communication:
      return "communication";
    case Phase::neighbor:
      return "neighbor";
    case Phase::kspace:
      return "kspace";
    case Phase::diagnostics:
      return "diagnostics";
    case Phase::snapshots:
      return "snapshots";
    case Phase::checkpoints:
      return "checkpoints";
    case Phase::finish:
      return "finish";
    case Phase::count:
      break;
  }
  return "?";
}

void Phases::mark_process_start() {
  state().process_start = std::chrono::steady_clock::now();
  state().process_marked = true;
}

void Phases::reset(Phase outer) {
  State& s = state();
  s.total.fill(0.0);
  if (s.process_marked)
    s.total[static_cast<int>(Phase::startup)] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - s.process_start).count();
  s.open.clear();
  s.outer = outer;
  s.mark = MPI_Wtime();
}

void Phases::begin(Phase p) {
  Kokkos::fence();
  State& s = state();
  charge(s, MPI_Wtime());
  s.open.push_back(p);
  Kokkos::Profiling::pushRegion(phase_name(p));
}

void Phases::end() {
  Kokkos::fence();
  State& s = state();
  STRATUS_REQUIRE(!s.open.empty(), "Phases::end without a phase");
  charge(s, MPI_Wtime());
  s.open.pop_back();
  Kokkos::Profiling::popRegion();
}

std::array<double, kPhases> Phases::seconds() {
  State& s = state();
  charge(s, MPI_Wtime());
  return s.total;
}

PhaseStats reduce_phases(MPI_Comm comm, const std::array<double, kPhases>& local) {
  PhaseStats s;
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::array<double, kPhases> sum{};
  STRATUS_MPI_CHECK(MPI_Allreduce(local.data(), s.min.data(), kPhases, MPI_DOUBLE, MPI_MIN, comm));
  STRATUS_MPI_CHECK(MPI_Allreduce(local.data(), s.max.data(), kPhases, MPI_DOUBLE, MPI_MAX, comm));
  STRATUS_MPI_CHECK(MPI_Allreduce(local.data(), sum.data(), kPhases, MPI_DOUBLE, MPI_SUM, comm));
  for (int i = 0; i < kPhases; ++i) s.mean[i] = sum[i] / size;
  return s;
}

std::string phase_table(const PhaseStats& s) {
  std::ostringstream os;
  double total = 0.0;
  for (int i = 0; i < kPhases; ++i) total += s.mean[i];
  os << std::left << std::setw(16) << "phase" << std::right << std::setw(12) << "min [s]" << std::setw(12) << "avg [s]"
     << std::setw(12) << "max [s]" << std::setw(9) << "share" << std::setw(10) << "max/avg\n";
  for (int i = 0; i < kPhases; ++i) {
    if (s.max[i] <= 0.0) continue;
    os << std::left << std::setw(16) << phase_name(static_cast<Phase>(i)) << std::right << std::fixed
       << std::setprecision(4) << std::setw(12) << s.min[i] << std::setw(12) << s.mean[i] << std::setw(12) << s.max[i]
       << std::setprecision(1) << std::setw(8) << (total > 0.0 ? 100.0 * s.mean[i] / total : 0.0) << "%"
       << std::setprecision(2) << std::setw(10) << (s.mean[i] > 0.0 ? s.max[i] / s.mean[i] : 1.0) << "\n";
  }
  return os.str();
}

}  // namespace stratus
