// The accelerator a rank runs on: chosen and checked before Kokkos starts, described by `stratus info`.
// Without a GPU backend every function here is a no-op that reports the host.
#pragma once
#include <mpi.h>

#include <string>

#include "core/kokkos_args.hpp"

namespace stratus {

/// Compute capability this binary's GPU kernels were compiled for, as 10*major + minor (90 for sm_90),
/// or 0 when the build has no GPU backend.
int compiled_compute_capability();

/// Whether kernels compiled for `compiled` (10*major + minor) run on a device of capability major.minor:
/// the same major version and a minor version no lower (the rule the Kokkos CUDA runtime enforces).
bool compute_capability_compatible(int compiled, int major, int minor);

/// The refusal for a device this binary cannot use, naming both capabilities and how to rebuild;
/// empty when compatible.
std::string compute_capability_mismatch(int compiled, int major, int minor, const std::string& device_name,
                                        int device_id);

/// Chooses this rank's GPU before Kokkos::initialize by choose_device (core/kokkos_args.hpp) from the
/// node-local rank and what the launch asked for, tells Kokkos (KOKKOS_DEVICE_ID), and checks that the
/// device exists and matches the compiled compute capability. Returns an empty string when the rank can
/// go on, else the reason it cannot. Collective over comm.
std::string prepare_device(MPI_Comm comm, const KokkosRequest& request);

/// Throws Error with CUDA's message when a kernel launch or an asynchronous operation of this rank failed
/// and CUDA has reported it since the last call (cudaGetLastError: no synchronisation, negligible cost).
/// Kokkos 3.4 in release builds checks no launch; the run loop calls this after every step. A no-op in a
/// build without CUDA.
void check_device_errors(long step);

/// Lines describing the device Kokkos runs on (name, compute capability, memory, multiprocessors,
/// driver and runtime versions) for `stratus info`; call after Kokkos::initialize.
std::string device_info();

/// The PCI bus id of this rank's GPU ("00000000:3B:00.0", NVML's form), or "" in a build without CUDA.
std::string device_pci_bus_id();
/// Bytes in use on this rank's GPU (all processes), or -1 in a build without CUDA.
double device_memory_used_bytes();

}  // namespace stratus
