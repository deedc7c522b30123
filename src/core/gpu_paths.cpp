// gpu_paths (core/gpu_paths.hpp).
#include "core/gpu_paths.hpp"

#include <cstdlib>
#include <cstring>

#include "core/types.hpp"

namespace stratus {

bool gpu_paths() {
  constexpr bool device_memory = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  static const bool on = [] {
    const char* v = std::getenv("STRATUS_GPU_PATHS");
    return device_memory || (v != nullptr && std::strcmp(v, "1") == 0);
  }();
  return on;
}

}  // namespace stratus
