// The Kokkos start-up flags and variables of a launch, checked before Kokkos reads them, and the GPU they
// choose for a rank. Kokkos 3.4 ends the process (an exception out of Kokkos::initialize, then
// std::terminate) on a malformed one; Stratus refuses them first, as bad input (exit 2) naming the flag or
// variable. It also leaves a rank on GPU 0 when only a device count is given and the launcher sets none of
// the local-rank variables it knows (MPICH's sets none): choose_device applies the round robin itself.
// Pure functions of the arguments, an environment lookup and counts: tested on the CPU (test_device).
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace stratus {

/// An environment lookup (std::getenv, or a table in tests): nullptr when unset.
using EnvLookup = std::function<const char*(const char*)>;

/// What a launch asks of Kokkos for its device and host threads; -1 where it says nothing.
struct KokkosRequest {
  int device_id = -1;    // --kokkos-device-id=N (or --kokkos-device=N), KOKKOS_DEVICE_ID
  int num_devices = -1;  // --kokkos-num-devices=N[,S] (or --kokkos-ndevices), KOKKOS_NUM_DEVICES
  int skip_device = -1;  // the S of N,S, KOKKOS_SKIP_DEVICE
  int threads = -1;      // --kokkos-threads=N, KOKKOS_NUM_THREADS
  int numa = -1;         // --kokkos-numa=N, KOKKOS_NUMA
};

/// Reads the Kokkos flags of args (argv without the program name) and the variables of env as Kokkos 3.4
/// does. Throws InputError naming the flag or variable for: a flag without "=INT" (also the space form
/// "--kokkos-device-id 1"), a value that is not a non-negative integer, a flag and a variable that
/// disagree, KOKKOS_RAND_DEVICES (a random device per process), and the forms without the "kokkos-"
/// prefix (--device-id, --device, --num-devices, --ndevices, --threads, --numa), which Kokkos reads but
/// leaves for the program: the message gives the --kokkos- spelling.
KokkosRequest parse_kokkos_request(const std::vector<std::string>& args, const EnvLookup& env);

/// The GPU of node-local rank local_rank among `visible` devices: the one asked for, else local_rank
/// modulo the device count asked for (past the skipped device, Kokkos' rule), else local_rank modulo
/// `visible`. Sets `why` and returns -1 when that device is not visible.
int choose_device(const KokkosRequest& r, int local_rank, int visible, std::string& why);

}  // namespace stratus
