// View aliases with explicit layouts, shared by every module. Grids are stored as (var, k, j, i) in
// LayoutRight so that i is contiguous; particles as x(i, 0..2). This header holds no logic.
#pragma once
#include <Kokkos_Core.hpp>
#include <array>

namespace stratus {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
using HostSpace = Kokkos::HostSpace;

/// Grid fields: (var, k, j, i), ghost cells included, i fastest.
using Field4D = Kokkos::View<double****, Kokkos::LayoutRight, MemSpace>;
using Field4DHost = Field4D::HostMirror;
/// Flat communication / scratch buffers.
using Buffer1D = Kokkos::View<double*, MemSpace>;

/// Particles: one row per atom, x(i, 0..2) (LayoutRight: an atom's three components are contiguous).
using ParticleVec = Kokkos::View<double* [3], Kokkos::LayoutRight, MemSpace>;
using ParticleVecHost = ParticleVec::HostMirror;
/// Per-atom integers (type, image flags packed, ...) and global ids (64-bit: systems beyond 2^31 atoms).
using ParticleInt = Kokkos::View<int*, MemSpace>;
using ParticleId = Kokkos::View<long long*, MemSpace>;
using ParticleScalar = Kokkos::View<double*, MemSpace>;

/// 3D integer and real triples in (x, y, z) order; Kokkos::Array so that kernels can use them too.
using Int3 = Kokkos::Array<int, 3>;
using Real3 = Kokkos::Array<double, 3>;

}  // namespace stratus
