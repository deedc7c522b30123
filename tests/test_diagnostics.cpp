// Declared diagnostics (driver/diagnostics.hpp, core/reduction.hpp): a fused device reduction with a
// sum, a min and a max slot gives the same values as three separate reductions, the global row reduces
// every operation over the ranks, finishes and derived columns come out in declaration order, hidden
// columns stay out of the row, relative changes use the reference row, and the error norms are the mean,
// the root mean square and the maximum. Runs at np = 1, 2, 4.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/types.hpp"
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
