// Unit tests of the device checks in src/core/device.* and core/kokkos_args.*: which compiled compute
// capabilities run on which devices, the refusal message (both capabilities, the device, the rebuild
// command), what this build reports about itself, every Kokkos device and thread flag and variable read
// or refused (exit 2, named) before Kokkos could end the process on it, and the GPU of each node-local
// rank for fake device counts. The GPU-side path (device choice per node-local rank) runs in every test
// executable of a CUDA build, before Kokkos starts.
#include <Kokkos_Core.hpp>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "comm/grid_halo.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/kokkos_args.hpp"
#include "domain/grid_options.hpp"
#include "input/deck.hpp"
#include "message_matcher.hpp"

using Catch::Matchers::Contains;
using stratus::compute_capability_compatible;
using stratus::compute_capability_mismatch;

TEST_CASE("kernels run on devices of the same major and an equal or higher minor capability", "[device]") {
  CHECK(compute_capability_compatible(90, 9, 0));
  CHECK(compute_capability_compatible(80, 8, 0));
  CHECK(compute_capability_compatible(80, 8, 6));  // A10/A40 run A100 code
  CHECK(compute_capability_compatible(80, 8, 9));  // so do Ada GPUs
  CHECK_FALSE(compute_capability_compatible(86, 8, 0));
  CHECK_FALSE(compute_capability_compatible(80, 9, 0));  // an A100 build on an H100/H200
  CHECK_FALSE(compute_capability_compatible(90, 8, 0));
  CHECK_FALSE(compute_capability_compatible(70, 8, 0));
}

TEST_CASE("a mismatch names both capabilities, the device and the rebuild", "[device]") {
  CHECK(compute_capability_mismatch(90, 9, 0, "NVIDIA H200", 0).empty());
  CHECK(compute_capability_mismatch(0, 8, 0, "any", 0).empty());  // a host build never refuses

  const std::string m = compute_capability_mismatch(80, 9, 0, "NVIDIA H200", 1);
  CHECK_THAT(m, Contains("compute capability 8.0 (Kokkos arch AMPERE80)"));
  CHECK_THAT(m, Contains("CUDA device 1 (NVIDIA H200) has compute capability 9.0"));
  CHECK_THAT(m, Contains("--backend cuda --arch HOPPER90"));

  const std::string unknown = compute_capability_mismatch(90, 10, 0, "NVIDIA B200", 0);
  CHECK_THAT(unknown, Contains("compute capability 10.0"));
  CHECK_THAT(unknown, Contains("with a Kokkos built for that architecture"));
}

TEST_CASE("this build reports its own target and device", "[device]") {
#ifdef KOKKOS_ENABLE_CUDA
  CHECK(stratus::compiled_compute_capability() >= 60);
  CHECK_THAT(stratus::device_info(), Contains("CUDA device"));
#else
  CHECK(stratus::compiled_compute_capability() == 0);
  CHECK_THAT(stratus::device_info(), Contains("host only"));
#endif
}

TEST_CASE("the MPI library's CUDA support is known where it can say, and gpu-aware halos need it", "[device]") {
  const stratus::MpiGpuSupport s = stratus::mpi_cuda_support();
#if defined(MPIX_GPU_SUPPORT_CUDA) || defined(MPIX_CUDA_AWARE_SUPPORT)
  CHECK(s != stratus::MpiGpuSupport::unknown);
#endif
  stratus::OptionRegistry reg;
  stratus::declare_grid_options(reg);
  const stratus::Deck deck = stratus::Deck::parse(reg, "[parallel]\nhalo_transport = gpu-aware\n", "test deck", {});
  constexpr bool device_memory = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, stratus::MemSpace>::accessible;
  if (device_memory && s == stratus::MpiGpuSupport::no) {
    CHECK_THROWS_WITH(stratus::GridParams::from_deck(deck), Contains("halo_transport") && Contains("host-staged"));
  } else {
    CHECK(stratus::GridParams::from_deck(deck).transport == stratus::HaloTransport::gpu_aware);
  }
}

namespace {
// A fake environment for parse_kokkos_request.
stratus::EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}
stratus::KokkosRequest request(const std::vector<std::string>& args, std::map<std::string, std::string> vars = {}) {
  return stratus::parse_kokkos_request(args, env_of(std::move(vars)));
}
}  // namespace

TEST_CASE("Kokkos device and thread flags are read as Kokkos 3.4 reads them", "[device]") {
  const auto none = request({"run", "deck.ini", "--set", "a.b=1"});
  CHECK(none.device_id == -1);
  CHECK(none.num_devices == -1);
  CHECK(none.skip_device == -1);
  CHECK(request({"--kokkos-device-id=3"}).device_id == 3);
  CHECK(request({"--kokkos-device=2"}).device_id == 2);  // Kokkos' deprecated spelling
  CHECK(request({}, {{"KOKKOS_DEVICE_ID", "1"}}).device_id == 1);
  CHECK(request({"--kokkos-device-id=1"}, {{"KOKKOS_DEVICE_ID", "1"}}).device_id == 1);  // agreeing
  const auto nd = request({"--kokkos-num-devices=4,1"});
  CHECK(nd.num_devices == 4);
  CHECK(nd.skip_device == 1);
  CHECK(request({"--kokkos-ndevices=2"}).num_devices == 2);
  CHECK(request({}, {{"KOKKOS_NUM_DEVICES", "8"}, {"KOKKOS_SKIP_DEVICE", "0"}}).skip_device == 0);
  CHECK(request({"--kokkos-threads=4"}).threads == 4);
  CHECK(request({}, {{"KOKKOS_NUMA", "2"}}).numa == 2);
  CHECK(request({"--kokkos-device-idx=1"}).device_id == -1);  // another name: not Kokkos'
}

TEST_CASE("every Kokkos flag or variable that would end the process is refused, naming it", "[device]") {
  struct Case {
    std::vector<std::string> args;
    std::map<std::string, std::string> vars;
    std::string text;
  };
  // The space form (Kokkos reads past the string and throws), bad values, disagreeing flags; the spellings
  // Kokkos reads but leaves for the program (some crash it: --num-devices=N in 3.4); variables (Kokkos
  // would take "1x" as 1).
  const std::vector<Case> cases = {
      {{"--kokkos-device-id", "1"},
       {},
       "--kokkos-device-id takes its value after '=': --kokkos-device-id=N (not "
       "'--kokkos-device-id 1')"},
      {{"--kokkos-num-devices", "2"}, {}, "--kokkos-num-devices=N"},
      {{"--kokkos-threads"}, {}, "--kokkos-threads=N"},
      {{"--kokkos-device-id=x"}, {}, "'--kokkos-device-id=x': --kokkos-device-id wants a non-negative integer"},
      {{"--kokkos-device-id=-1"}, {}, "non-negative integer"},
      {{"--kokkos-device-id=99999999999"}, {}, "non-negative integer"},
      {{"--kokkos-num-devices=2,"}, {}, "(N or N,SKIP)"},
      {{"--kokkos-num-devices=2,x"}, {}, "(N or N,SKIP)"},
      {{"--kokkos-device-id=1", "--kokkos-device=2"}, {}, "disagree"},
      {{"--device-id=1"}, {}, "'--device-id=1' is not a stratus option; Kokkos' is --kokkos-device-id=N"},
      {{"--device=1"}, {}, "Kokkos' is --kokkos-device-id=N"},
      {{"--num-devices=2"}, {}, "Kokkos' is --kokkos-num-devices=N"},
      {{"--ndevices=2"}, {}, "Kokkos' is --kokkos-num-devices=N"},
      {{"--threads=2"}, {}, "Kokkos' is --kokkos-threads=N"},
      {{"--numa"}, {}, "Kokkos' is --kokkos-numa=N"},
      {{}, {{"KOKKOS_DEVICE_ID", "x"}}, "environment variable KOKKOS_DEVICE_ID = 'x' is not a non-negative"},
      {{}, {{"KOKKOS_DEVICE_ID", "1x"}}, "KOKKOS_DEVICE_ID = '1x'"},
      {{"--kokkos-device-id=0"},
       {{"KOKKOS_DEVICE_ID", "1"}},
       "environment variable KOKKOS_DEVICE_ID = 1 and the command line's '--kokkos-device-id=0' disagree"},
      {{"--kokkos-num-devices=2"}, {{"KOKKOS_NUM_DEVICES", "4"}}, "KOKKOS_NUM_DEVICES = 4"},
      {{"--kokkos-num-devices=4,1"}, {{"KOKKOS_SKIP_DEVICE", "2"}}, "KOKKOS_SKIP_DEVICE = 2"},
      {{}, {{"KOKKOS_SKIP_DEVICE", "-3"}}, "KOKKOS_SKIP_DEVICE = '-3'"},
      {{}, {{"KOKKOS_NUM_THREADS", "many"}}, "KOKKOS_NUM_THREADS = 'many'"},
      {{}, {{"KOKKOS_RAND_DEVICES", "2"}}, "KOKKOS_RAND_DEVICES is not supported"},
  };
  for (const Case& c : cases) {
    INFO("args " << (c.args.empty() ? std::string() : c.args[0]) << ", " << c.vars.size() << " variable(s)");
    CHECK_THROWS_MATCHES(request(c.args, c.vars), stratus::InputError, MessageContains({c.text}));
  }
}

TEST_CASE("each node-local rank gets its own GPU unless the launch chose", "[device]") {
  std::string why;
  // Default: round robin over the visible devices (4 ranks, 2 GPUs: 0 1 0 1).
  for (int r = 0; r < 4; ++r) CHECK(stratus::choose_device({}, r, 2, why) == r % 2);
  // A device count: round robin over that many, past the skipped one (Kokkos' rule): 4 GPUs, skip 1.
  stratus::KokkosRequest n;
  n.num_devices = 3;
  n.skip_device = 1;
  CHECK(stratus::choose_device(n, 0, 4, why) == 0);
  CHECK(stratus::choose_device(n, 1, 4, why) == 2);
  CHECK(stratus::choose_device(n, 2, 4, why) == 3);
  CHECK(stratus::choose_device(n, 3, 4, why) == 0);
  n.skip_device = -1;
  n.num_devices = 2;
  CHECK(stratus::choose_device(n, 3, 8, why) == 1);  // with MPICH, Kokkos alone would give every rank GPU 0
  // An explicit device, whatever the rank.
  stratus::KokkosRequest one;
  one.device_id = 1;
  CHECK(stratus::choose_device(one, 5, 2, why) == 1);
  CHECK(why.empty());
  // Asked for more than there is: refused, with the rank and what is visible.
  one.device_id = 2;
  CHECK(stratus::choose_device(one, 0, 2, why) == -1);
  CHECK_THAT(why, Contains("CUDA device 2 was asked for (node-local rank 0), but only 2 device(s) are visible"));
  n.num_devices = 4;
  CHECK(stratus::choose_device(n, 3, 2, why) == -1);
}
