// The system, built by rank 0 alone (md_simulation.cpp, preflight()), handed to the ranks that own its atoms:
// broadcast in chunks of atoms, each rank keeping those inside its sub-domain. No rank but 0 ever holds the
// whole system, and rank 0 only until the atoms are placed (LAMMPS' read_data does the same by chunks of
// lines).
#include <algorithm>

#include "core/error.hpp"
#include "md/md_simulation.hpp"

namespace stratus::md {

std::vector<MDSimulation::AtomRow> MDSimulation::distribute_atoms(const AtomData* all) const {
  constexpr long long kChunk = 1LL << 16;  // atoms per broadcast: about 7 MB
  const long long n = header_.natoms;
  int rank = 0;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm_in_, &rank));
  STRATUS_REQUIRE((rank == 0) == (all != nullptr) && (!all || static_cast<long long>(all->natoms()) == n),
                  "md set-up: only rank 0 holds the system, with all " << n << " atoms");
  std::vector<AtomRow> chunk, mine;
  for (long long first = 0; first < n; first += kChunk) {
    const long long m = std::min(kChunk, n - first);
    chunk.assign(static_cast<std::size_t>(m), AtomRow{});
    if (all) {
      for (long long k = 0; k < m; ++k) {
        const std::size_t i = static_cast<std::size_t>(first + k);
        AtomRow& r = chunk[static_cast<std::size_t>(k)];
        r.id = all->id[i];
        r.type = all->type[i];
        r.q = all->q[i];
        for (std::size_t d = 0; d < 3; ++d) {
          r.x[d] = all->x[i][d];
          r.v[d] = all->v[i][d];
          r.image[d] = all->image[i][d];
          r.x0[d] = all->x[i][d] + all->image[i][d] * (hi_[d] - lo_[d]);  // msd counts from here
        }
      }
    }
    STRATUS_MPI_CHECK(
        MPI_Bcast(chunk.data(), static_cast<int>(m * static_cast<long long>(sizeof(AtomRow))), MPI_BYTE, 0, comm_in_));
    for (const AtomRow& r : chunk)
      if (pc_->owns(r.x[0], r.x[1], r.x[2])) mine.push_back(r);
  }
  return mine;
}

}  // namespace stratus::md
