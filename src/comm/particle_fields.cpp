// The field-list pack and unpack kernels: one kernel per call, looping over the columns of the list.
#include "comm/particle_fields.hpp"

#include <limits>

namespace stratus {

namespace {
using Policy = Kokkos::RangePolicy<ExecSpace>;
}  // namespace

void pack_ghosts(const ParticleFields& f, const RowList& list, int count, int d, double shift, const Buffer1D& buf) {
  Kokkos::parallel_for(
      "particle_comm::pack_ghosts", Policy(0, count), KOKKOS_LAMBDA(int j) {
        const int i = list(j), w = f.ghost_width();
        const long long b = static_cast<long long>(j) * w;
        for (int c = 0; c < w; ++c) buf(b + c) = f.column(c).load(i);
        buf(b + d) += shift;  // columns 0 .. 2 are the positions
      });
}

void unpack_ghosts(const ParticleFields& f, const Buffer1D& buf, int first, int count) {
  Kokkos::parallel_for(
      "particle_comm::unpack_ghosts", Policy(0, count), KOKKOS_LAMBDA(int j) {
        const int w = f.ghost_width();
        const long long b = static_cast<long long>(j) * w;
        for (int c = 0; c < w; ++c) f.column(c).store(first + j, buf(b + c));
      });
}

void copy_ghosts(const ParticleFields& f, const RowList& list, int count, int d, double shift, int first) {
  Kokkos::parallel_for(
      "particle_comm::copy_ghosts", Policy(0, count), KOKKOS_LAMBDA(int j) {
        const int i = list(j), g = first + j, w = f.ghost_width();
        for (int c = 0; c < w; ++c) {
          const FieldColumn& col = f.column(c);
          col.store(g, c == d ? col.load(i) + shift : col.load(i));
        }
      });
}

void pack_migrants(const ParticleFields& f, const RowList& flag, int to_lower, int to_upper, const MoveCounts& prefix,
                   int n, int n_keep, int n_lower, const Buffer1D& buf) {
  Kokkos::parallel_for(
      "particle_comm::pack_migrants", Policy(0, n), KOKKOS_LAMBDA(int i) {
        const long long pre = prefix(i);
        const int below_lower = static_cast<int>(pre >> 32);
        const int below_upper = static_cast<int>(pre & 0xffffffffLL);
        const int fl = flag(i), w = f.width();
        const int dest = fl == to_lower   ? n_keep + below_lower
                         : fl == to_upper ? n_keep + n_lower + below_upper
                                          : i - below_lower - below_upper;
        const long long b = static_cast<long long>(dest) * w;
        for (int c = 0; c < w; ++c) buf(b + c) = f.column(c).load(i);
      });
}

int unpack_migrants(const ParticleFields& f, const Buffer1D& buf, int from, int first, int count, bool check, int d,
                    double slo, double shi) {
  int bad_row = std::numeric_limits<int>::max();
  Kokkos::parallel_reduce(
      "particle_comm::unpack_migrants", Policy(0, count),
      KOKKOS_LAMBDA(int j, int& bad) {
        const int i = first + j, w = f.width();
        const long long b = static_cast<long long>(from + j) * w;
        for (int c = 0; c < w; ++c) f.column(c).store(i, buf(b + c));
        const double xd = buf(b + d);
        if (check && !(xd >= slo && xd < shi) && i < bad) bad = i;
      },
      Kokkos::Min<int>(bad_row));
  return bad_row;
}

}  // namespace stratus
