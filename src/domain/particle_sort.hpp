// Spatial sorting of a rank's owned atoms. The pair and neighbor kernels read the partners of an atom by
// row; when rows follow space, those reads stay in cache. Atoms read from a data file in an order that
// does not follow space (ids from a builder, another code's run, a long simulation) and atoms that have
// diffused for many steps read their partners from all over memory: the 256,000-atom melt with its atoms
// in random order ran 6.5 times slower. sort_by_bin() reorders rows 0 .. n_local - 1 of every array in
// Particles::fields() by bin: bins of a given width over the sub-domain, z slowest and x fastest, and
// within a bin the rows in their previous order (the result does not depend on the thread count).
// Ghost rows and forces are not carried: sort right before ParticleComm::borders() and a force
// computation. Its buffers (a key per atom and a copy of the atoms' arrays, 128 bytes an atom) live for
// the call only: a sort comes once in many steps, and the memory of a device goes to atoms.
#pragma once
#include "core/types.hpp"
#include "domain/particles.hpp"

namespace stratus {

/// Reorders the owned rows of p by bin of width `bin` over [lo, hi) (atoms outside count in the edge
/// bins; at most 1024 bins a direction, wider bins past that). Returns the number of rows that moved.
int sort_by_bin(Particles& p, const Real3& lo, const Real3& hi, double bin);

}  // namespace stratus
