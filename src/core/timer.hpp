// Named wall-clock timers that accumulate over a run, each also a Kokkos profiling region, and a
// report of min/avg/max over ranks. Timing fences the default execution space so that device work is
// counted where it is launched. Not for timing inside kernels.
#pragma once
#include <mpi.h>

#include <map>
#include <string>

namespace stratus {

class Timers {
 public:
  /// Starts timer `name` (nesting different names is fine; the same name must not nest).
  void start(const std::string& name);
  void stop(const std::string& name);
  double seconds(const std::string& name) const;
  /// Table of min/avg/max seconds over the ranks of comm; collective; the string is valid on rank 0.
  std::string report(MPI_Comm comm) const;

 private:
  struct Entry {
    double total = 0.0;
    double started = -1.0;
    long calls = 0;
  };
  std::map<std::string, Entry> entries_;
};

/// Starts a timer on construction and stops it on destruction.
class ScopedTimer {
 public:
  ScopedTimer(Timers& t, std::string name) : t_(t), name_(std::move(name)) { t_.start(name_); }
  ~ScopedTimer() { t_.stop(name_); }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  Timers& t_;
  std::string name_;
};

}  // namespace stratus
