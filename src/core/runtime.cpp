// MPI + Kokkos initialisation, and the build/dependency summary printed by `stratus info`.
#include "core/runtime.hpp"

#include <fftw3.h>
#include <hdf5.h>

#include <Kokkos_Core.hpp>
#include <boost/version.hpp>
#ifdef STRATUS_HAVE_CUFFT
#include <cufft.h>
#endif

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>
#ifdef KOKKOS_ENABLE_OPENMP
#include <omp.h>
#endif

#include "comm/grid_halo.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "stratus/version.hpp"

namespace stratus {

namespace {

// The ranks on this process's node and the cores the job may use there (the union of those ranks'
// affinity masks), and this rank's own mask size.
struct NodeShare {
  int ranks = 1, cores = 1, own = 1;
};
NodeShare node_share(MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  NodeShare share;
  MPI_Comm_size(node, &share.ranks);
  cpu_set_t mine, all;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) {
    const unsigned n = std::max(1U, std::thread::hardware_concurrency());
    for (unsigned c = 0; c < n && c < CPU_SETSIZE; ++c) CPU_SET(c, &mine);
  }
  MPI_Allreduce(&mine, &all, static_cast<int>(sizeof(cpu_set_t)), MPI_BYTE, MPI_BOR, node);
  MPI_Comm_free(&node);
  share.own = CPU_COUNT(&mine);
  share.cores = CPU_COUNT(&all);
  return share;
}

bool g_spare_core = false;

#ifdef KOKKOS_ENABLE_OPENMP
bool has_option(int argc, char** argv, const char* name) {  // name or name=...
  const std::size_t n = std::strlen(name);
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], name, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '=')) return true;
  return false;
}

// Host threads of the OpenMP backend, before Kokkos starts. OMP_PROC_BIND: the OpenMP runtime read its
// environment when it was loaded, so setting it now binds nothing; unset, it is set to "false" (what
// unset means: no binding), so that Kokkos does not print its four-line warning on every rank. Threads:
// unless OMP_NUM_THREADS, KOKKOS_NUM_THREADS or --kokkos-threads / --threads say how many, each rank takes
// its share of the cores the job may use on its node (the union of the ranks' affinity masks over the
// ranks there, at least 1, at most its own mask).
void set_up_host_threads(const NodeShare& node, int argc, char** argv) {
  if (!std::getenv("OMP_PROC_BIND")) setenv("OMP_PROC_BIND", "false", 0);
  const bool given = std::getenv("OMP_NUM_THREADS") || std::getenv("KOKKOS_NUM_THREADS") ||
                     has_option(argc, argv, "--kokkos-threads") || has_option(argc, argv, "--threads");
  if (!given) omp_set_num_threads(std::max(1, std::min(node.own, node.cores / node.ranks)));
}
#endif

}  // namespace

bool node_has_spare_core() { return g_spare_core; }

Runtime::Runtime(int& argc, char**& argv) {
  int init = 0;
  MPI_Initialized(&init);
  if (!init) {
    int provided = 0;
    // MULTIPLE lets grid snapshots be written by a background thread on a communicator of their own
    // (io/grid_output.hpp); with less, they are written in the step loop.
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    own_mpi_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  // Errors from MPI calls come back as return codes so that they can be reported with a location.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  // HDF5 failures reach the user as one Error line carrying the library's innermost message, not as
  // HDF5's own multi-line stack dump.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  // Kokkos' own flags and variables, checked before Kokkos reads them (it would end the process on a bad
  // one). Every rank reads the same ones; the caller reports.
  KokkosRequest request;
  try {
    request = parse_kokkos_request(std::vector<std::string>(argv + 1, argv + argc),
                                   [](const char* name) -> const char* { return std::getenv(name); });
  } catch (const InputError& e) {
    input_error_ = e.what();
    return;
  }
  // Every rank learns whether any rank lacks a usable device, so that none starts work the others cannot join.
  const std::string why = prepare_device(MPI_COMM_WORLD, request);
  int bad = why.empty() ? 0 : 1, any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_bad) {
    if (bad)
      std::cerr << "stratus: error: " << (size_ > 1 ? "rank " + std::to_string(rank_) + ": " : "") << why << std::endl;
    return;
  }
  const NodeShare node = node_share(MPI_COMM_WORLD);
  const int node_ranks = node.ranks, cores = node.cores;
#ifdef KOKKOS_ENABLE_OPENMP
  set_up_host_threads(node, argc, argv);
#endif
  // Kokkos 3.4 takes a plain --help as its own and prints its options: it sees a stand-in, put back after.
  static char stand_in[] = "--stratus-help-stand-in";
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0) argv[i] = stand_in;
  Kokkos::initialize(argc, argv);
  kokkos_ = true;
  static char help[] = "--help";
  for (int i = 1; i < argc; ++i)
    if (argv[i] == stand_in) argv[i] = help;
  host_threads_ = Kokkos::DefaultHostExecutionSpace().concurrency();
  // A core beyond the ranks' host threads on every node: room for a background thread (grid snapshots).
  int spare = node_ranks * host_threads_ < cores ? 1 : 0, all_spare = 0;
  MPI_Allreduce(&spare, &all_spare, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  g_spare_core = all_spare == 1;
#ifdef KOKKOS_ENABLE_OPENMP
  // One warning, from rank 0, when some node runs more threads than it has cores.
  int over = node_ranks * host_threads_ > cores ? 1 : 0, any = 0;
  MPI_Allreduce(&over, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any && rank_ == 0) {
    std::ostringstream os;
    os << "stratus: warning: " << node_ranks << " rank(s) x " << host_threads_ << " thread(s) exceed the " << cores
       << " core(s) this job may use on a node" << (over ? "" : " (on another node than rank 0's)")
       << ": threads will wait for each other; set OMP_NUM_THREADS to at most " << std::max(1, cores / node_ranks)
       << " (cores / ranks per node)";
    std::cerr << os.str() << std::endl;
  }
#endif
}

Runtime::~Runtime() {
  if (kokkos_) Kokkos::finalize();
  int fin = 0;
  MPI_Finalized(&fin);
  if (own_mpi_ && !fin) MPI_Finalize();
}

std::string build_info() {
  std::ostringstream os;
  os << "Stratus " << kVersion << " (git " << kGitHash << ")\n";
  os << "  C++ compiler: "
     <<
#if defined(__clang__)
      "clang " << __clang_major__ << "." << __clang_minor__
#elif defined(__GNUC__)
      "gcc " << __GNUC__ << "." << __GNUC_MINOR__ << "." << __GNUC_PATCHLEVEL__
#else
      "unknown"
#endif
     << ", C++" << __cplusplus / 100 % 100 << "\n";
  os << "  Kokkos: " << KOKKOS_VERSION / 10000 << "." << KOKKOS_VERSION / 100 % 100 << "." << KOKKOS_VERSION % 100
     << ", default execution space " << Kokkos::DefaultExecutionSpace::name() << " (concurrency "
     << Kokkos::DefaultExecutionSpace().concurrency() << ")"
     << ", host space " << Kokkos::DefaultHostExecutionSpace::name() << "\n";
  os << "  Kokkos backends:";
#ifdef KOKKOS_ENABLE_SERIAL
  os << " Serial";
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  os << " OpenMP";
#endif
#ifdef KOKKOS_ENABLE_CUDA
  os << " CUDA";
#endif
#ifdef KOKKOS_ENABLE_HIP
  os << " HIP";
#endif
  os << "\n";
  char mpi_lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(mpi_lib, &len);
  std::string mpi(mpi_lib, static_cast<std::size_t>(len));
  if (auto nl = mpi.find('\n'); nl != std::string::npos) mpi = mpi.substr(0, nl);
  int ver = 0, sub = 0;
  MPI_Get_version(&ver, &sub);
  os << "  MPI: " << mpi << " (standard " << ver << "." << sub << ")\n";
#ifdef KOKKOS_ENABLE_CUDA
  os << "  MPI CUDA support: " << to_string(mpi_cuda_support())
     << " (parallel.halo_transport = gpu-aware is refused when 'no')\n";
#endif
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
  os << "  HDF5: " << maj << "." << min << "." << rel
#ifdef H5_HAVE_PARALLEL
     << " (parallel)"
#else
     << " (serial)"
#endif
     << "\n";
  os << "  Boost: " << BOOST_VERSION / 100000 << "." << BOOST_VERSION / 100 % 1000 << "." << BOOST_VERSION % 100
     << "\n";
  os << "  FFTW: " << fftw_version << "\n";
  // The CPU kernels written in explicit vector instructions that this build's target has (every host
  // file is compiled for the same target; -march=native where the build machine's CPU decides).
  os << "  CPU vector kernels: "
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
     << "none (a GPU build: the portable kernels)"
#elif defined(__AVX512F__) && defined(__AVX512VL__)
     << "AVX-512 (lj/cut pair rows, neighbor-list candidates)"
#elif defined(__AVX2__)
     << "AVX2 (lj/cut pair rows, neighbor-list candidates)"
#else
     << "none (the compiler-vectorised portable loops)"
#endif
     << "\n";
#ifdef STRATUS_HAVE_CUFFT
  int cufft = 0;
  cufftGetVersion(&cufft);
  os << "  cuFFT: " << cufft / 1000 << "." << cufft % 1000 / 100 << "." << cufft % 100 << "\n";
#endif
  os << device_info();
  return os.str();
}

}  // namespace stratus
