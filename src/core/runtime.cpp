// MPI + Kokkos initialisation, and the build/dependency summary printed by `stratus info`.
#include "core/runtime.hpp"

#include <fftw3.h>
#include <hdf5.h>

#include <Kokkos_Core.hpp>
#include <boost/version.hpp>
#ifdef STRATUS_HAVE_CUFFT
#include <cufft.h>
#endif

#include <iostream>
#include <sstream>

#include "comm/grid_halo.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "stratus/version.hpp"

namespace stratus {

Runtime::Runtime(int& argc, char**& argv) {
  int init = 0;
  MPI_Initialized(&init);
  if (!init) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    own_mpi_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  // Errors from MPI calls come back as return codes so that they can be reported with a location.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  // HDF5 failures reach the user as one Error line carrying the library's innermost message, not as
  // HDF5's own multi-line stack dump.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  // Every rank learns whether any rank lacks a usable device, so that none starts work the others cannot join.
  const std::string why = prepare_device(MPI_COMM_WORLD, argc, argv);
  int bad = why.empty() ? 0 : 1, any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_bad) {
    if (bad)
      std::cerr << "stratus: error: " << (size_ > 1 ? "rank " + std::to_string(rank_) + ": " : "") << why << std::endl;
    return;
  }
  Kokkos::initialize(argc, argv);
  kokkos_ = true;
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
#ifdef STRATUS_HAVE_CUFFT
  int cufft = 0;
  cufftGetVersion(&cufft);
  os << "  cuFFT: " << cufft / 1000 << "." << cufft % 1000 / 100 << "." << cufft % 100 << "\n";
#endif
  os << device_info();
  return os.str();
}

}  // namespace stratus
