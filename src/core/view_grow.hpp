// Scratch views that grow and never shrink: the buffers kernels reuse from call to call (messages, send
// lists, migration flags), so that the step loop allocates only when a count passes every earlier one.
#pragma once
#include <Kokkos_Core.hpp>
#include <string>

namespace stratus {

/// Ensures v has at least n rows (of whatever else it holds per row). When it must grow, its new rows are
/// not initialised, its old contents are dropped, and it takes a fifth and 64 rows more than asked.
template <class V>
void grow_rows(V& v, long long n, const std::string& label) {
  if (static_cast<long long>(v.extent(0)) >= n && v.data() != nullptr) return;
  v = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), static_cast<std::size_t>(n + n / 5 + 64));
}

}  // namespace stratus
