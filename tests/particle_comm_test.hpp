// What the ParticleComm test files share: 3000 pseudo-random atoms (the same on every rank) in a
// 10 x 8 x 12 box with types, charges and velocities derived from their ids, each rank's owned ones as
// Particles, and owned atoms moved to new positions.
#pragma once
#include <mpi.h>

#include <array>
#include <cstdint>
#include <vector>

#include "comm/particle_comm.hpp"

namespace stratus::test {

inline constexpr int kAtoms = 3000;
inline constexpr double kRc = 2.0;
inline const Real3 kLo{-5.0, 0.0, 2.0};
inline const Real3 kHi{5.0, 8.0, 14.0};  // 10 x 8 x 12

// splitmix64: a deterministic value in [0, 1) per (key, salt).
inline double hash01(std::uint64_t key, std::uint64_t salt) {
  std::uint64_t z = key * 0x9E3779B97F4A7C15ULL + salt * 0xBF58476D1CE4E5B9ULL + 0x94D049BB133111EBULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

struct Atom {
  long long id;
  double x[3];
  int image[3];
};

inline std::vector<Atom> make_atoms() {
  std::vector<Atom> a(kAtoms);
  for (int i = 0; i < kAtoms; ++i) {
    a[i].id = i + 1;
    for (int d = 0; d < 3; ++d) {
      a[i].x[d] = kLo[d] + hash01(i + 1, d) * (kHi[d] - kLo[d]);
      if (a[i].x[d] >= kHi[d]) a[i].x[d] = kLo[d];
      a[i].image[d] = 0;
    }
  }
  return a;
}

inline int type_of(long long id) { return 1 + static_cast<int>(id % 2); }
inline double q_of(long long id) { return 1e-3 * static_cast<double>(id); }
inline double v_of(long long id, int d) { return 0.01 * static_cast<double>(id) * (d + 1); }
inline double len(int d) { return kHi[d] - kLo[d]; }

// The owned atoms of this rank with types, charges and velocities derived from the ids.
inline Particles distribute(const ParticleComm& pc, const std::vector<Atom>& atoms) {
  std::vector<const Atom*> mine;
  for (const Atom& a : atoms)
    if (pc.owns(a.x[0], a.x[1], a.x[2])) mine.push_back(&a);
  Particles p;
  p.reserve(static_cast<int>(mine.size()));
  auto x = Kokkos::create_mirror_view(p.x);
  auto v = Kokkos::create_mirror_view(p.v);
  auto type = Kokkos::create_mirror_view(p.type);
  auto id = Kokkos::create_mirror_view(p.id);
  auto q = Kokkos::create_mirror_view(p.q);
  for (std::size_t i = 0; i < mine.size(); ++i) {
    for (int d = 0; d < 3; ++d) {
      x(i, d) = mine[i]->x[d];
      v(i, d) = v_of(mine[i]->id, d);
    }
    type(i) = type_of(mine[i]->id);
    id(i) = mine[i]->id;
    q(i) = q_of(mine[i]->id);
  }
  Kokkos::deep_copy(p.x, x);
  Kokkos::deep_copy(p.v, v);
  Kokkos::deep_copy(p.type, type);
  Kokkos::deep_copy(p.id, id);
  Kokkos::deep_copy(p.q, q);
  p.n_local = static_cast<int>(mine.size());
  return p;
}

// Overwrites the positions of the owned atoms with target(id).
template <class F>
void move_owned(Particles& p, F target) {
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.x);
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.id);
  for (int i = 0; i < p.n_local; ++i)
    for (int d = 0; d < 3; ++d) x(i, d) = target(id(i), d, x(i, d));
  Kokkos::deep_copy(p.x, x);
}

}  // namespace stratus::test
