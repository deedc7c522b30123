// The per-rank particle store: n_local owned atoms at rows 0 .. n_local - 1 followed by n_ghost ghost atoms
// (copies of atoms of other ranks or periodic images, rebuilt by ParticleComm). Every array has capacity()
// rows; reserve() keeps the first rows of every array. fields() is the one list of the arrays that travel
// with an atom between ranks (all of them when it migrates, those not owned_only() to its ghosts); the
// others (forces) are recomputed where the atom is. Ghost rows carry positions, types, ids and charges;
// their velocities, forces and image flags are not maintained.
#pragma once
#include <algorithm>

#include "comm/particle_fields.hpp"
#include "core/types.hpp"

namespace stratus {

using ParticleImage = Kokkos::View<int* [3], Kokkos::LayoutRight, MemSpace>;

struct Particles {
  int n_local = 0;
  int n_ghost = 0;
  ParticleVec x;        ///< positions (length)
  ParticleVec v;        ///< velocities (length / time)
  ParticleVec f;        ///< forces (force units)
  ParticleInt type;     ///< 1 .. ntypes
  ParticleId id;        ///< global ids >= 1
  ParticleImage image;  ///< periodic image flags of owned atoms
  ParticleScalar q;     ///< charges (reserved for electrostatics; zero)
  ParticleVec x0;       ///< unwrapped positions at the start of the run (the origin of the mean squared displacement)

  /// The per-atom arrays that migrate with their atoms and, unless owned_only, are copied to ghosts.
  /// Positions first. Rebuild after reserve() (the list holds the arrays' current addresses).
  auto fields() const {
    return ParticleFields{
        x,                  // positions (first: ghosts get them shifted by the periodic image)
        owned_only(v),      // velocities
        type,               // types
        id,                 // global ids
        owned_only(image),  // image flags
        q,                  // charges
        owned_only(x0),     // displacement origins
    };
  }

  int capacity() const { return static_cast<int>(x.extent(0)); }
  int n_total() const { return n_local + n_ghost; }

  /// Ensures room for at least n rows (with 20 % headroom when it grows), keeping the first n_total()
  /// rows of every array.
  void reserve(int n) {
    if (n <= capacity() && x.data() != nullptr) return;
    const int cap = std::max(n + n / 5, 16);
    if (x.data() == nullptr) {
      x = ParticleVec("particles::x", cap);
      v = ParticleVec("particles::v", cap);
      f = ParticleVec("particles::f", cap);
      type = ParticleInt("particles::type", cap);
      id = ParticleId("particles::id", cap);
      image = ParticleImage("particles::image", cap);
      q = ParticleScalar("particles::q", cap);
      x0 = ParticleVec("particles::x0", cap);
      return;
    }
    Kokkos::resize(x, cap);
    Kokkos::resize(v, cap);
    Kokkos::resize(f, cap);
    Kokkos::resize(type, cap);
    Kokkos::resize(id, cap);
    Kokkos::resize(image, cap);
    Kokkos::resize(q, cap);
    Kokkos::resize(x0, cap);
  }
};

}  // namespace stratus
