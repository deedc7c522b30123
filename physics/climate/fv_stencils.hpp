// Finite-volume building blocks shared by the climate solvers (compressible Euler, shallow water), as device
// functions on four cell averages s0..s3 around the face between s1 and s2 (miniWeather's stencils).
#pragma once
#include <Kokkos_Core.hpp>

namespace stratus::climate::fv {

/// 4th-order value at the face between s1 and s2 from the cell averages s0, s1, s2, s3 (times the rounded
/// 1/12: a multiplication, where a division would cost a face loop several times as much).
KOKKOS_INLINE_FUNCTION double face_value4(double s0, double s1, double s2, double s3) {
  return (-s0 + 7.0 * s1 + 7.0 * s2 - s3) * (1.0 / 12.0);
}

/// Third difference across the face (dx^3 times the third derivative at the face).
KOKKOS_INLINE_FUNCTION double face_diff3(double s0, double s1, double s2, double s3) {
  return -s0 + 3.0 * s1 - 3.0 * s2 + s3;
}

/// Hyperviscosity coefficient hv = beta dx / (16 dt) >= 0 for a step dt (miniWeather's hv_coef is -hv);
/// 0 when dt is 0 (no step yet).
inline double hyperviscosity(double beta, double dx, double dt) { return dt > 0.0 ? beta * dx / (16.0 * dt) : 0.0; }

/// Hyperviscous flux through the face: + hv * d3 (d3 = face_diff3, about dx^3 times q's third
/// derivative). The tendency it gives, -(F_right - F_left) / dx, is -hv dx^3 times the 4th derivative of
/// q: a damping that removes 2dx noise in one step (beta = 1) and leaves resolved scales alone.
KOKKOS_INLINE_FUNCTION double hyperviscous_flux(double hv, double s0, double s1, double s2, double s3) {
  return hv * face_diff3(s0, s1, s2, s3);
}

/// 4th-order first derivative at the face (times dx): (s0 - 15 s1 + 15 s2 - s3) / 12.
KOKKOS_INLINE_FUNCTION double face_diff1(double s0, double s1, double s2, double s3) {
  return (s0 - 15.0 * s1 + 15.0 * s2 - s3) / 12.0;
}

}  // namespace stratus::climate::fv
