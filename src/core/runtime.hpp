// RAII owner of MPI and Kokkos. Exactly one Runtime lives in a process (the executable's main or a
// test main); it initialises MPI (thread level FUNNELED) then Kokkos, and finalises in reverse order.
// Before Kokkos, each rank picks and checks its GPU (core/device.hpp) or, on the OpenMP backend, its
// number of host threads (its share of the node's cores unless the user chose) and silences Kokkos'
// OMP_PROC_BIND warning; a --help goes past Kokkos untouched. It does not parse Stratus' own command line.
#pragma once
#include <mpi.h>

#include <string>

namespace stratus {

class Runtime {
 public:
  /// argc/argv are passed to MPI and Kokkos (so --kokkos-* options work); both may be modified.
  Runtime(int& argc, char**& argv);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }
  /// False when this process cannot run kernels (no usable GPU, or one of another compute capability);
  /// the reason has then been printed by the ranks concerned and Kokkos is not initialised.
  bool kokkos_ready() const { return kokkos_; }
  /// Why a Kokkos flag or variable of the launch is refused (core/kokkos_args.hpp), the same on every
  /// rank; Kokkos is then not initialised and the process should end with exit code 2. Empty when fine.
  const std::string& input_error() const { return input_error_; }
  /// Host threads per rank (the OpenMP backend's, 1 for Serial): OMP_NUM_THREADS or the like when set,
  /// else this rank's share of the node's cores.
  int host_threads() const { return host_threads_; }

 private:
  int rank_ = 0;
  int size_ = 1;
  bool own_mpi_ = false;
  bool kokkos_ = false;
  std::string input_error_;
  int host_threads_ = 1;
};

/// Whether every node of the job has a core beyond its ranks' host threads (ranks per node x host threads <
/// the cores the job may use there), the same on every rank; false before a Runtime has started Kokkos.
/// A background thread that would otherwise take a core from the kernels runs only then by default.
bool node_has_spare_core();

/// Human-readable versions of everything this build links, one item per line (for `stratus info`).
std::string build_info();

}  // namespace stratus
