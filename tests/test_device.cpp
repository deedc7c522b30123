// Unit tests of the device checks in src/core/device.*: which compiled compute capabilities run on which
// devices, the refusal message (both capabilities, the device, the rebuild command), and what this build
// reports about itself. The GPU-side path (device choice per node-local rank) runs in every test
// executable of a CUDA build, before Kokkos starts.
#include <Kokkos_Core.hpp>
#include <catch2/catch.hpp>

#include "comm/grid_halo.hpp"
#include "core/device.hpp"
#include "domain/grid_options.hpp"
#include "input/deck.hpp"

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
