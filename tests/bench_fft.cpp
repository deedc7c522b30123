// Throughput of the distributed 3D FFT (solvers/fft) next to a single-process FFTW transform of the same
// grid in the same run: a forward r2c plus a backward c2r of an N^3 grid (PPPM's k-space solve does one
// forward and three backward per step), medians of alternating repetitions. Not a test: a benchmark
// that scripts/bench-pppm.sh and scripts/gpu-check.sh run.
//   usage: [mpiexec -n P] bench_fft [N ...] [--reps R]
// Prints one line per N: the distributed transform's time and points per second, FFTW's own 3D r2c/c2r on
// one process with FFTW_MEASURE (its fastest plan) and FFTW_ESTIMATE (deterministic plans, as the
// distributed transform uses so that runs and restarts repeat bit for bit), and the ratios.
#include <fftw3.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fft/distributed_fft.hpp"

using namespace stratus;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds of one forward + backward pair of the distributed transform (fenced), on rank 0 the max over ranks.
double time_distributed(fft::DistributedFFT& f, const fft::RealBrick& in, const fft::SpectralPoints& spec,
                        const fft::RealBrick& out) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  f.forward(in, spec);
  f.backward(spec, out);
  Kokkos::fence();
  double dt = MPI_Wtime() - t0, worst = 0.0;
  MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Kokkos::initialize(argc, argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> sizes;
  int reps = 7;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    if (s == "--reps" && a + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++a]));
    } else if (s.rfind("--kokkos", 0) != 0) {
      const int n = std::atoi(s.c_str());
      if (n < 2) {
        if (rank == 0) std::fprintf(stderr, "bench_fft: grid edges must be integers >= 2, got '%s'\n", s.c_str());
        Kokkos::finalize();
        MPI_Finalize();
        return 2;
      }
      sizes.push_back(n);
    }
  }
  if (sizes.empty()) sizes = {32, 64, 128};
  {
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(size, 3, dims);
    int coords[3] = {rank % dims[0], (rank / dims[0]) % dims[1], rank / (dims[0] * dims[1])};
    for (int n : sizes) {
      fft::Box3 box;
      for (int d = 0; d < 3; ++d) {
        box.lo[d] = static_cast<int>(static_cast<long long>(coords[d]) * n / dims[d]);
        box.hi[d] = static_cast<int>(static_cast<long long>(coords[d] + 1) * n / dims[d]);
      }
      fft::DistributedFFT f(MPI_COMM_WORLD, Int3{n, n, n}, box);
      fft::RealBrick in("bench::in", box.extent(2), box.extent(1), box.extent(0));
      fft::RealBrick out("bench::out", box.extent(2), box.extent(1), box.extent(0));
      fft::SpectralPoints spec("bench::spectrum", f.spectral_size());
      Kokkos::parallel_for(
          "bench::fill", Kokkos::RangePolicy<ExecSpace>(0, static_cast<long long>(in.size())),
          KOKKOS_LAMBDA(long long m) { in.data()[m] = ::sin(0.001 * static_cast<double>(m)); });
      // The single-process reference: FFTW's own 3D r2c / c2r plans on rank 0 (FFTW_MEASURE: its best).
      const std::size_t nr = static_cast<std::size_t>(n) * n * n, nc = static_cast<std::size_t>(n) * n * (n / 2 + 1);
      double* r = nullptr;
      fftw_complex* c = nullptr;
      fftw_plan pf = nullptr, pb = nullptr, ef = nullptr, eb = nullptr;
      if (rank == 0) {
        r = fftw_alloc_real(nr);
        c = fftw_alloc_complex(nc);
        pf = fftw_plan_dft_r2c_3d(n, n, n, r, c, FFTW_MEASURE);
        pb = fftw_plan_dft_c2r_3d(n, n, n, c, r, FFTW_MEASURE);
        ef = fftw_plan_dft_r2c_3d(n, n, n, r, c, FFTW_ESTIMATE);  // deterministic plans, as the distributed one
        eb = fftw_plan_dft_c2r_3d(n, n, n, c, r, FFTW_ESTIMATE);
        for (std::size_t m = 0; m < nr; ++m) r[m] = std::sin(0.001 * static_cast<double>(m));
      }
      time_distributed(f, in, spec, out);  // warm-up
      std::vector<double> td, ts, te;
      for (int k = 0; k < reps; ++k) {  // alternate the three
        td.push_back(time_distributed(f, in, spec, out));
        if (rank == 0) {
          double t0 = MPI_Wtime();
          fftw_execute(pf);
          fftw_execute(pb);
          ts.push_back(MPI_Wtime() - t0);
          t0 = MPI_Wtime();
          fftw_execute(ef);
          fftw_execute(eb);
          te.push_back(MPI_Wtime() - t0);
        }
        MPI_Barrier(MPI_COMM_WORLD);
      }
      if (rank == 0) {
        const double a = median(td), b = median(ts), e = median(te);
        std::printf("bench: fft %d^3 %d rank(s) %s (%s): distributed %.3f ms, %.1f Mpoint/s; single-process "
                    "fftw3 %.3f ms (FFTW_MEASURE), %.3f ms (FFTW_ESTIMATE); ratio %.2f, %.2f (forward + backward, "
                    "median of %d)\n",
                    n, size, fft::DistributedFFT::backend(), f.describe().c_str(), 1e3 * a,
                    static_cast<double>(nr) / a * 1e-6, 1e3 * b, 1e3 * e, b / a, e / a, reps);
        std::fflush(stdout);
        fftw_destroy_plan(pf);
        fftw_destroy_plan(pb);
        fftw_destroy_plan(ef);
        fftw_destroy_plan(eb);
        fftw_free(r);
        fftw_free(c);
      }
    }
  }
  Kokkos::finalize();
  MPI_Finalize();
  return 0;
}
