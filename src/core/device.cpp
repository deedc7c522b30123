// Device choice and compatibility check before Kokkos starts, the device summary for `stratus info`, and
// the check for failed kernel launches.
#include "core/device.hpp"

#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <sstream>
#include <string>

#include "core/error.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace stratus {

int compiled_compute_capability() {
#if !defined(KOKKOS_ENABLE_CUDA)
  return 0;
#elif defined(KOKKOS_ARCH_HOPPER90)
  return 90;
#elif defined(KOKKOS_ARCH_ADA89)
  return 89;
#elif defined(KOKKOS_ARCH_AMPERE86)
  return 86;
#elif defined(KOKKOS_ARCH_AMPERE80)
  return 80;
#elif defined(KOKKOS_ARCH_TURING75)
  return 75;
#elif defined(KOKKOS_ARCH_VOLTA72)
  return 72;
#elif defined(KOKKOS_ARCH_VOLTA70)
  return 70;
#elif defined(KOKKOS_ARCH_PASCAL61)
  return 61;
#elif defined(KOKKOS_ARCH_PASCAL60)
  return 60;
#else
  return -1;  // a CUDA build whose architecture this file does not know: the check is left to Kokkos
#endif
}

bool compute_capability_compatible(int compiled, int major, int minor) {
  return compiled / 10 == major && compiled % 10 <= minor;
}

namespace {
const char* kokkos_arch_name(int cc) {
  switch (cc) {
    case 90:
      return "HOPPER90";
    case 89:
      return "ADA89";
    case 86:
      return "AMPERE86";
    case 80:
      return "AMPERE80";
    case 75:
      return "TURING75";
    case 72:
      return "VOLTA72";
    case 70:
      return "VOLTA70";
    case 61:
      return "PASCAL61";
    case 60:
      return "PASCAL60";
    default:
      return nullptr;
  }
}
}  // namespace

std::string compute_capability_mismatch(int compiled, int major, int minor, const std::string& device_name,
                                        int device_id) {
  if (compiled <= 0 || compute_capability_compatible(compiled, major, minor)) return {};
  std::ostringstream os;
  os << "this stratus was built for GPUs of compute capability " << compiled / 10 << "." << compiled % 10;
  if (const char* a = kokkos_arch_name(compiled)) os << " (Kokkos arch " << a << ")";
  os << ", but CUDA device " << device_id << " (" << device_name << ") has compute capability " << major << "." << minor
     << "; rebuild for it";
  if (const char* a = kokkos_arch_name(10 * major + minor))
    os << ": scripts/install-deps.sh --backend cuda --arch " << a << ", then configure with that Kokkos";
  else
    os << " with a Kokkos built for that architecture";
  return os.str();
}

std::string prepare_device(MPI_Comm comm, const KokkosRequest& request) {
#ifndef KOKKOS_ENABLE_CUDA
  (void)comm;
  (void)request;
  return {};
#else
  // Node-local rank: ranks sharing memory share the node's GPUs round-robin.
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local_rank = 0;
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_free(&node);

  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::ostringstream os;
    os << "no usable CUDA device (" << (e != cudaSuccess ? cudaGetErrorString(e) : "none visible")
       << "); this stratus is built for NVIDIA GPUs of compute capability " << compiled_compute_capability() / 10 << "."
       << compiled_compute_capability() % 10 << ". Run it on a GPU node, or build the CPU version "
       << "(cmake --preset cpu)";
    return os.str();
  }
  std::string why;
  const int device = choose_device(request, local_rank, count, why);
  if (device < 0) return why;
  // Kokkos 3.4 finds the node-local rank only in Open MPI's, MVAPICH2's and Slurm's variables (not in
  // MPICH's): it is told the device. An explicit --kokkos-device-id=N is the same N.
  const std::string id = std::to_string(device);
  setenv("KOKKOS_DEVICE_ID", id.c_str(), 1);
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess)
    return "cannot read the properties of CUDA device " + std::to_string(device);
  return compute_capability_mismatch(compiled_compute_capability(), prop.major, prop.minor, prop.name, device);
#endif
}

void check_device_errors(long step) {
#ifdef KOKKOS_ENABLE_CUDA
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    throw Error("a GPU kernel or copy failed in step " + std::to_string(step) + ": " + cudaGetErrorName(e) + ": " +
                cudaGetErrorString(e) + " (rerun with CUDA_LAUNCH_BLOCKING=1 to locate it)");
#else
  (void)step;
#endif
}

std::string device_info() {
  std::ostringstream os;
#ifdef KOKKOS_ENABLE_CUDA
  const int dev = Kokkos::Cuda().cuda_device();
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, dev);
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  int count = 0;
  cudaGetDeviceCount(&count);
  os.precision(4);
  os << "  CUDA device " << dev << " of " << count << ": " << prop.name << ", compute capability " << prop.major << "."
     << prop.minor << ", " << static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0) << " GiB, "
     << prop.multiProcessorCount << " multiprocessors, PCI " << prop.pciBusID << "\n";
  os << "  CUDA: driver " << driver / 1000 << "." << driver % 1000 / 10 << ", runtime " << runtime / 1000 << "."
     << runtime % 1000 / 10 << ", kernels compiled for compute capability " << compiled_compute_capability() / 10 << "."
     << compiled_compute_capability() % 10 << "\n";
#else
  os << "  device: host only (" << Kokkos::DefaultExecutionSpace::name() << ")\n";
#endif
  return os.str();
}

std::string device_pci_bus_id() {
#ifdef KOKKOS_ENABLE_CUDA
  char bus[64] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, Kokkos::Cuda().cuda_device()) != cudaSuccess) return {};
  // CUDA writes a 4-digit domain ("0000:3B:00.0"); NVML's handles take the 8-digit one.
  std::string id(bus);
  if (id.size() > 4 && id[4] == ':') id = "0000" + id;
  return id;
#else
  return {};
#endif
}

double device_memory_used_bytes() {
#ifdef KOKKOS_ENABLE_CUDA
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return -1.0;
  return static_cast<double>(total_b - free_b);
#else
  return -1.0;
#endif
}

}  // namespace stratus
