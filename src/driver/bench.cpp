// STREAM-style triad, timed stepping and timed kernels for `stratus bench`.
#include "driver/bench.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "core/error.hpp"
#include "core/types.hpp"

namespace stratus {

namespace {
using Vec = Kokkos::View<double*, MemSpace>;
using TriadPolicy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
void triad(const Vec& a, const Vec& b, const Vec& c, double s) {
  Kokkos::parallel_for(
      "triad", TriadPolicy(0, static_cast<std::int64_t>(a.extent(0))),
      KOKKOS_LAMBDA(std::int64_t i) { a(i) = b(i) + s * c(i); });
}
}  // namespace

TriadResult triad_bandwidth(std::size_t bytes_per_array, int reps, MPI_Comm comm) {
  STRATUS_REQUIRE(reps >= 1, "triad needs at least one repetition");
  const std::size_t n = std::max<std::size_t>(bytes_per_array / sizeof(double), 1);
  Vec a("triad::a", n), b("triad::b", n), c("triad::c", n);
  using Policy = TriadPolicy;
  const auto len = static_cast<std::int64_t>(n);
  Kokkos::parallel_for(
      "triad::init", Policy(0, len), KOKKOS_LAMBDA(std::int64_t i) {
        a(i) = 0.0;
        b(i) = 1.0 + 1e-9 * static_cast<double>(i % 1024);
        c(i) = 2.0;
      });
  const double s = 3.0;
  triad(a, b, c, s);  // warm-up: first touch, kernel load
  Kokkos::fence();
  int size = 1;
  MPI_Comm_size(comm, &size);
  const double bytes = 3.0 * sizeof(double) * static_cast<double>(n) * size;
  double best = 0.0, sum = 0.0;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    triad(a, b, c, s);
    Kokkos::fence();
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);  // all ranks share the memory system
    const double gbs = bytes / t / 1e9;
    best = std::max(best, gbs);
    sum += gbs;
  }
  // Check the result so that the kernel cannot be optimised away and a broken backend is noticed.
  double err = 0.0;
  Kokkos::parallel_reduce(
      "triad::check", Policy(0, len),
      KOKKOS_LAMBDA(std::int64_t i, double& m) {
        const double d = a(i) - (b(i) + s * c(i));
        m = d > m ? d : (-d > m ? -d : m);
      },
      Kokkos::Max<double>(err));
  STRATUS_REQUIRE(err == 0.0, "triad kernel gave wrong results (max error " << err << ")");
  return TriadResult{static_cast<double>(n * sizeof(double)), best, sum / reps};
}

namespace {
// Calls f() warmup times untimed, then n times between fences; the seconds of the slowest rank. Collective.
template <class F>
double timed_calls(int warmup, int n, MPI_Comm comm, F&& f) {
  for (int c = 0; c < warmup; ++c) f();
  Kokkos::fence();
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  for (int c = 0; c < n; ++c) f();
  Kokkos::fence();
  double t = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
  return t;
}
}  // namespace

StepResult time_steps(Simulation& sim, int warmup, int steps, MPI_Comm comm) {
  STRATUS_REQUIRE(steps >= 1 && warmup >= 0, "bench needs steps >= 1 and warmup >= 0");
  sim.initialize();
  sim.will_report(false);  // no diagnostics: the steps a run does between its reports (MD: no energies)
  Clock clock;
  const double t = timed_calls(warmup, steps, comm, [&]() {
    const double dt = sim.stable_dt();
    sim.advance(clock, dt);
    clock.tick(dt);
  });
  StepResult r;
  r.steps = steps;
  r.seconds = t;
  r.seconds_per_step = t / steps;
  r.work_per_second = sim.work_per_step() * steps / t;
  r.bytes_per_update = sim.bytes_per_update();
  return r;
}

KernelResult time_kernel(Simulation& sim, const std::string& name, int warmup, int calls, MPI_Comm comm) {
  STRATUS_REQUIRE(calls >= 1 && warmup >= 0, "bench needs calls >= 1 and warmup >= 0");
  sim.initialize();
  double work = 0.0;  // of the timed calls only
  int call = 0;
  const double t = timed_calls(warmup, calls, comm, [&]() {
    const double w = sim.run_bench_kernel(name);
    if (call++ >= warmup) work += w;
  });
  MPI_Allreduce(MPI_IN_PLACE, &work, 1, MPI_DOUBLE, MPI_SUM, comm);
  KernelResult r;
  r.calls = calls;
  r.seconds = t;
  r.seconds_per_call = t / calls;
  r.work_per_call = work / calls;
  return r;
}

}  // namespace stratus
