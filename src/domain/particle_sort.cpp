#include "domain/particle_sort.hpp"

#include <Kokkos_Sort.hpp>
#include <algorithm>
#include <cmath>
#include <string>

namespace stratus {

namespace {

constexpr int kMaxBins = 1024;  // a direction; 2^30 bins in all, so that bin << 32 | row fits a long long

}  // namespace

int sort_by_bin(Particles& p, const Real3& lo, const Real3& hi, double bin) {
  const int n = p.n_local;
  if (n < 2) return 0;
  int nb[3];
  double inv[3], l0[3];
  for (int d = 0; d < 3; ++d) {
    const double len = hi[d] - lo[d];
    const double want = bin > 0.0 && len > 0.0 ? std::floor(len / bin) : 1.0;
    nb[d] = static_cast<int>(std::clamp(want, 1.0, static_cast<double>(kMaxBins)));
    inv[d] = len > 0.0 ? nb[d] / len : 0.0;
    l0[d] = lo[d];
  }
  const Kokkos::View<long long*, MemSpace> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "particle_sort::keys"),
                                                n);
  const auto x = p.x;
  const int nx = nb[0], ny = nb[1], nz = nb[2];
  const double ix = inv[0], iy = inv[1], iz = inv[2], x0 = l0[0], y0 = l0[1], z0 = l0[2];
  Kokkos::parallel_for(
      "particle_sort::keys", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(int i) {
        auto cell = [](double t, int m) {  // NaN and atoms outside fall in the edge bins
          if (!(t > 0.0)) return 0;
          return t < static_cast<double>(m) ? static_cast<int>(t) : m - 1;
        };
        const long long bx = cell((x(i, 0) - x0) * ix, nx), by = cell((x(i, 1) - y0) * iy, ny),
                        bz = cell((x(i, 2) - z0) * iz, nz);
        keys(i) = (((bz * ny + by) * nx + bx) << 32) | static_cast<long long>(i);
      });
  Kokkos::sort(keys);  // keys are distinct: the order is the same on any thread count or device

  const auto f = p.fields();
  const Kokkos::View<double*, MemSpace> rows(Kokkos::view_alloc(Kokkos::WithoutInitializing, "particle_sort::rows"),
                                             static_cast<std::size_t>(n) * f.width());
  const long long w = f.width();
  int moved = 0;
  Kokkos::parallel_reduce(
      "particle_sort::gather", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(int i, int& m) {
        const int from = static_cast<int>(keys(i) & 0xffffffffLL);
        f.pack(from, true, &rows(i * w));
        m += from != i ? 1 : 0;
      },
      moved);
  Kokkos::parallel_for(
      "particle_sort::scatter", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(int i) { f.unpack(i, true, &rows(i * w)); });
  ExecSpace().fence();
  return moved;
}

}  // namespace stratus
