// Timer accumulation and the cross-rank report.
#include "core/timer.hpp"

#include <Kokkos_Core.hpp>

#include <iomanip>
#include <sstream>
#include <vector>

#include "core/error.hpp"

namespace stratus {

void Timers::start(const std::string& name) {
  Kokkos::fence();
  auto& e = entries_[name];
  STRATUS_REQUIRE(e.started < 0.0, "timer '" << name << "' started twice");
  Kokkos::Profiling::pushRegion(name);
  e.started = MPI_Wtime();
}

void Timers::stop(const std::string& name) {
  Kokkos::fence();
  auto it = entries_.find(name);
  STRATUS_REQUIRE(it != entries_.end() && it->second.started >= 0.0, "timer '" << name << "' stopped but not started");
  it->second.total += MPI_Wtime() - it->second.started;
  it->second.started = -1.0;
  ++it->second.calls;
  Kokkos::Profiling::popRegion();
}

double Timers::seconds(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? 0.0 : it->second.total;
}

std::string Timers::report(MPI_Comm comm) const {
  // Every rank holds the same timer names in the same (sorted) order because the run loop is SPMD.
  std::vector<double> t;
  for (const auto& [name, e] : entries_) t.push_back(e.total);
  const int n = static_cast<int>(t.size());
  std::vector<double> tmin(t.size()), tmax(t.size()), tsum(t.size());
  int size = 1;
  MPI_Comm_size(comm, &size);
  MPI_Reduce(t.data(), tmin.data(), n, MPI_DOUBLE, MPI_MIN, 0, comm);
  MPI_Reduce(t.data(), tmax.data(), n, MPI_DOUBLE, MPI_MAX, 0, comm);
  MPI_Reduce(t.data(), tsum.data(), n, MPI_DOUBLE, MPI_SUM, 0, comm);
  std::ostringstream os;
  os << std::left << std::setw(24) << "timer" << std::right << std::setw(10) << "calls" << std::setw(12) << "min [s]"
     << std::setw(12) << "avg [s]" << std::setw(12) << "max [s]" << "\n";
  int i = 0;
  for (const auto& [name, e] : entries_) {
    os << std::left << std::setw(24) << name << std::right << std::setw(10) << e.calls << std::fixed
       << std::setprecision(4) << std::setw(12) << tmin[i] << std::setw(12) << tsum[i] / size << std::setw(12)
       << tmax[i] << "\n";
    ++i;
  }
  return os.str();
}

}  // namespace stratus
