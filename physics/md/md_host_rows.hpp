// Host copies of per-atom device arrays for the MD engine's I/O (md_io.cpp: data files and checkpoints;
// md_trajectory.cpp: trajectory frames): one deep copy per array, into host memory kept for the next call.
#pragma once
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "domain/particles.hpp"

namespace stratus::md::host_copy {

/// Rows 0 .. n - 1 of a per-atom device array into `out` on the host, row after row (n x components
/// values): one copy (the rows are contiguous), into memory that `out` (a std::vector or a HostBuffer)
/// keeps for the next call.
template <class V, class Out>
void host_rows(const V& a, int n, Out& out) {
  static_assert(V::rank == 1 || std::is_same_v<typename V::array_layout, Kokkos::LayoutRight>, "rows contiguous");
  static_assert(std::is_same_v<typename Out::value_type, typename V::non_const_value_type>, "same values");
  const std::size_t ncomp = V::rank == 1 ? 1 : a.extent(1);
  out.resize(static_cast<std::size_t>(n) * ncomp);
  if (n == 0) return;
  using Host = Kokkos::View<typename V::non_const_data_type, Kokkos::LayoutRight, HostSpace, Kokkos::MemoryUnmanaged>;
  const auto rows = std::make_pair(0, n);
  if constexpr (V::rank == 1)
    Kokkos::deep_copy(Host(out.data(), n), Kokkos::subview(a, rows));
  else
    Kokkos::deep_copy(Host(out.data(), n), Kokkos::subview(a, rows, Kokkos::ALL));
}

template <class V>
std::vector<typename V::non_const_value_type> host_rows(const V& a, int n) {
  std::vector<typename V::non_const_value_type> out;
  host_rows(a, n, out);
  return out;
}

/// The first n atoms of a Particles into `out` on the host (one copy per array): what a data file holds
/// of each, velocities when `velocities`, forces when `forces` (v and f are emptied otherwise).
template <class Rows>
void copy_host_rows(const Particles& a, int n, bool velocities, bool forces, Rows& out) {
  host_rows(a.id, n, out.id);
  host_rows(a.type, n, out.type);
  host_rows(a.image, n, out.image);
  host_rows(a.x, n, out.x);
  host_rows(a.q, n, out.q);
  if (velocities)
    host_rows(a.v, n, out.v);
  else
    out.v.clear();
  if (forces)
    host_rows(a.f, n, out.f);
  else
    out.f.clear();
}

}  // namespace stratus::md::host_copy
