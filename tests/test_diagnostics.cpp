// Declared diagnostics (driver/diagnostics.hpp, core/reduction.hpp): a fused device reduction with a
// sum, a min and a max slot gives the same values as three separate reductions, the global row reduces
// every operation over the ranks, finishes and derived columns come out in declaration order, hidden
// columns stay out of the row, relative changes use the reference row, and the error norms are the mean,
// the root mean square and the maximum; reduce_cells (CPUs: rows in partial values per lane) takes every
// owned cell once and no ghost, whatever the row length. Runs at np = 1, 2, 4.
#include <algorithm>
#include <catch2/catch.hpp>
#include <climits>
#include <cmath>

#include "core/types.hpp"
#include "domain/local_grid.hpp"
#include "driver/diagnostics.hpp"

using namespace stratus;

namespace {
int rank_and_size(int& size) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return rank;
}
}  // namespace

TEST_CASE("a fused reduction of mixed slots equals separate reductions", "[diagnostics][mpi]") {
  const int n = 10007;
  Kokkos::View<double*, MemSpace> x("x", n);
  Kokkos::parallel_for(
      "test::fill", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(int i) { x(i) = std::sin(0.37 * i) * (i % 13); });
  const std::vector<ReduceOp> ops{ReduceOp::sum, ReduceOp::min, ReduceOp::max, ReduceOp::sum};
  Slots<4> r;
  Kokkos::parallel_reduce(
      "test::fused", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(int i, Slots<4>& a) {
        a.add(0, x(i));
        a.lower(1, x(i));
        a.raise(2, x(i));
        a.add(3, 1.0);
      },
      SlotReducer<4>(ops, r));
  double sum = 0.0, lo = 0.0, hi = 0.0;
  Kokkos::parallel_reduce(
      "test::sum", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(int i, double& s) { s += x(i); }, sum);
  Kokkos::parallel_reduce(
      "test::min", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(int i, double& m) { m = x(i) < m ? x(i) : m; }, Kokkos::Min<double>(lo));
  Kokkos::parallel_reduce(
      "test::max", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(int i, double& m) { m = x(i) > m ? x(i) : m; }, Kokkos::Max<double>(hi));
  CHECK(std::abs(r.v[0] - sum) <= 1e-12 * std::abs(sum) + 1e-12);
  CHECK(r.v[1] == lo);
  CHECK(r.v[2] == hi);
  CHECK(r.v[3] == n);
  CHECK(lo < 0.0);
  CHECK(hi > 0.0);
  CHECK_THROWS_AS(SlotReducer<3>(ops, *reinterpret_cast<Slots<3>*>(&r)), Error);  // 4 ops for 3 slots: a bug
}

TEST_CASE("a plan reduces over the ranks, finishes, derives, hides and takes references", "[diagnostics][mpi]") {
  int size = 1;
  const int rank = rank_and_size(size);
  DiagnosticsPlan plan;
  CHECK(plan.sum("mass", [](double s, double) { return 2.0 * s; }) == 0);
  plan.relative_change("d_mass", "mass");
  CHECK(plan.min("lo") == 1);
  CHECK(plan.max("hi") == 2);
  plan.hidden_sum("scale");
  plan.relative_change("d_scaled", "mass", "scale");
  plan.derived("cfl", [](const Diagnostics& d, double dt) { return dt * d.get("hi"); });
  CHECK(plan.error_norms(4.0 * size) == 4);
  CHECK(plan.slots() == 7);
  CHECK_THROWS_AS(plan.sum("mass"), Error);  // declared twice

  // Rank r holds mass r + 1, values -r and r, scale 10, errors 1 and -(r + 1) (two cells of four per rank).
  auto local_of = [&](double extra) {
    LocalReductions l = plan.local();
    l.values = {rank + 1.0 + extra, -double(rank), double(rank), 10.0, 1.0 + (rank + 1.0), 1.0 + (rank + 1.0) * (rank + 1.0),
                rank + 1.0};
    return l;
  };
  const Diagnostics ref = plan.evaluate(MPI_COMM_WORLD, local_of(0.0), 0.5, true);
  REQUIRE(ref.find("scale") != nullptr);
  plan.set_reference(ref);
  const Diagnostics d = plan.evaluate(MPI_COMM_WORLD, local_of(0.25), 0.5);
  const std::vector<std::string> want{"mass", "d_mass", "lo", "hi", "d_scaled", "cfl", "err_l1", "err_l2", "err_max"};
  CHECK(d.names == want);
  CHECK(d.find("scale") == nullptr);  // hidden
  const double m0 = size * (size + 1.0), m = m0 + 0.5 * size;  // the sum of rank + 1 (+ 0.25), doubled
  CHECK(d.get("mass") == Approx(m));
  CHECK(d.get("d_mass") == Approx((m - m0) / m0));
  CHECK(d.get("lo") == -(size - 1.0));
  CHECK(d.get("hi") == size - 1.0);
  CHECK(d.get("d_scaled") == Approx((m - m0) / (10.0 * size)));
  CHECK(d.get("cfl") == Approx(0.5 * (size - 1.0)));
  double l1 = 0.0, l2 = 0.0;
  for (int r = 0; r < size; ++r) {
    l1 += 1.0 + (r + 1.0);
    l2 += 1.0 + (r + 1.0) * (r + 1.0);
  }
  CHECK(d.get("err_l1") == Approx(l1 / (4.0 * size)));
  CHECK(d.get("err_l2") == Approx(std::sqrt(l2 / (4.0 * size))));
  CHECK(d.get("err_max") == size);
  CHECK_THROWS_AS(d.get("no_such_column"), Error);
}

TEST_CASE("reduce_cells takes every owned cell once and no ghost, whatever the row length", "[diagnostics][mpi]") {
  // Row lengths below, at and around the 8 partial values of a CPU row, in 1D, 2D and 3D.
  const int shapes[][3] = {{1, 1, 1}, {3, 1, 5}, {8, 1, 4}, {13, 1, 7}, {17, 3, 2}, {24, 5, 6}};
  for (const auto& n : shapes) {
    INFO(n[0] << " x " << n[1] << " x " << n[2] << " cells");
    LocalGrid g;
    for (int d = 0; d < 3; ++d) {
      g.n[d] = g.global_n[d] = n[d];
      g.ng[d] = n[d] > 1 ? 2 : 0;
      g.dx[d] = 1.0;
    }
    Field4D f = g.allocate("test::f", 1);
    {  // allocate() zero-fills, ghosts included
      auto z = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.allocate("test::zero", 2));
      double most = 0.0;
      for (std::size_t e = 0; e < z.span(); ++e) most = std::max(most, std::abs(z.data()[e]));
      CHECK(most == 0.0);
    }
    // Owned cells: a value of their own; ghosts: 1e300, which any sum, min or max that took one would show.
    auto h = Kokkos::create_mirror_view(f);
    double sum = 0.0, lo = 1e308, hi = -1e308;
    long long first_negative = -1;
    for (int k = 0; k < g.extent(2); ++k)
      for (int j = 0; j < g.extent(1); ++j)
        for (int i = 0; i < g.extent(0); ++i) {
          const bool owned = i >= g.ng[0] && i < g.ng[0] + n[0] && j >= g.ng[1] && j < g.ng[1] + n[1] && k >= g.ng[2] &&
                             k < g.ng[2] + n[2];
          const double x = std::sin(0.71 * i + 1.3 * j + 2.9 * k) * (1 + i % 5);
          h(0, k, j, i) = owned ? x : 1e300;
          if (!owned) continue;
          sum += x;
          lo = std::min(lo, x);
          hi = std::max(hi, x);
          const long long idx = (static_cast<long long>(k) * g.extent(1) + j) * g.extent(0) + i;
          if (x < 0.0 && first_negative < 0) first_negative = idx;
        }
    Kokkos::deep_copy(f, h);
    const int ex = g.extent(0), ey = g.extent(1);
    double s = 0.0, count = 0.0, m = 0.0;
    long long neg = 0;
    reduce_cells(
        "test::sum", g, KOKKOS_LAMBDA(int i, int j, int k, double& a) { a += f(0, k, j, i); }, s);
    reduce_cells(
        "test::count", g, KOKKOS_LAMBDA(int, int, int, double& a) { a += 1.0; }, count);
    reduce_cells(
        "test::max", g, KOKKOS_LAMBDA(int i, int j, int k, double& a) { a = f(0, k, j, i) > a ? f(0, k, j, i) : a; },
        Kokkos::Max<double>(m));
    reduce_cells(
        "test::first_negative", g,
        KOKKOS_LAMBDA(int i, int j, int k, long long& a) {
          const long long idx = (static_cast<long long>(k) * ey + j) * ex + i;
          if (f(0, k, j, i) < 0.0 && idx < a) a = idx;
        },
        Kokkos::Min<long long>(neg));
    const std::vector<ReduceOp> ops{ReduceOp::min, ReduceOp::sum, ReduceOp::max};
    Slots<3> r;
    reduce_cells(
        "test::slots", g,
        KOKKOS_LAMBDA(int i, int j, int k, Slots<3>& a) {
          a.lower(0, f(0, k, j, i));
          a.add(1, f(0, k, j, i));
          a.raise(2, f(0, k, j, i));
        },
        SlotReducer<3>(ops, r));
    CHECK(count == static_cast<double>(g.owned_cells()));
    CHECK(std::abs(s - sum) <= 1e-13 * g.owned_cells());
    CHECK(m == hi);
    CHECK(neg == (first_negative < 0 ? LLONG_MAX : first_negative));
    CHECK(r.v[0] == lo);
    CHECK(std::abs(r.v[1] - sum) <= 1e-13 * g.owned_cells());
    CHECK(r.v[2] == hi);
  }
}
