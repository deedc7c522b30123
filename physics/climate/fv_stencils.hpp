// Finite-volume building blocks shared by the climate solvers (compressible Euler, shallow water), as device
// functions on four cell averages s0..s3 around the face between s1 and s2 (miniWeather's stencils).
#pragma once
#include <Kokkos_Core.hpp>

namespace stratus::climate::fv {

/// 4th-order value at the face between s1 and s2 from the cell averages s0, s1, s2, s3.
KOKKOS_INLINE_FUNCTION double face_value4(double s0, double s1, double s2, double s3) {
  return (-s0 + 7.0 * s1 + 7.0 * s2 - s3) / 12.0;
}

/// Third difference across the face (dx^3 times the third derivative): hyperviscosity's flux is
/// -hv * d3 with hv = beta dx / (16 dt), a 4th-derivative damping that removes 2dx noise in one step
/// (beta = 1) and leaves resolved scales alone.
KOKKOS_INLINE_FUNCTION double face_diff3(double s0, double s1, double s2, double s3) {
  return -s0 + 3.0 * s1 - 3.0 * s2 + s3;
}

/// 4th-order first derivative at the face (times dx): (s0 - 15 s1 + 15 s2 - s3) / 12.
KOKKOS_INLINE_FUNCTION double face_diff1(double s0, double s1, double s2, double s3) {
  return (s0 - 15.0 * s1 + 15.0 * s2 - s3) / 12.0;
}

}  // namespace stratus::climate::fv
