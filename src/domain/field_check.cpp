// first_nonfinite: a min-reduction over the global linear index of non-finite owned values.
#include "domain/field_check.hpp"

#include <limits>

namespace stratus {

CellLocation first_nonfinite(const Field4D& f, const LocalGrid& g, MPI_Comm comm) {
  const long long nx = g.global_n[0], ny = g.global_n[1], nz = g.global_n[2];
  const int nv = static_cast<int>(f.extent(0));
  const long long none = std::numeric_limits<long long>::max();
  long long first = none;
  reduce_cells(
      "field_check::first_nonfinite", g,
      KOKKOS_LAMBDA(int i, int j, int k, long long& m) {
        for (int v = 0; v < nv; ++v) {
          const double x = f(v, k, j, i);
          if (!(x - x == 0.0)) {  // NaN - NaN and inf - inf are NaN; finite - itself is 0
            const long long gi = g.offset[0] + i - g.ng[0], gj = g.offset[1] + j - g.ng[1];
            const long long gk = g.offset[2] + k - g.ng[2];
            const long long idx = ((v * nz + gk) * ny + gj) * nx + gi;
            if (idx < m) m = idx;
          }
        }
      },
      Kokkos::Min<long long>(first));
  long long global = none;
  MPI_Allreduce(&first, &global, 1, MPI_LONG_LONG, MPI_MIN, comm);
  CellLocation loc;
  if (global == none) return loc;
  loc.found = true;
  loc.global[0] = static_cast<int>(global % nx);
  loc.global[1] = static_cast<int>(global / nx % ny);
  loc.global[2] = static_cast<int>(global / (nx * ny) % nz);
  loc.var = static_cast<int>(global / (nx * ny * nz));
  return loc;
}

}  // namespace stratus
