// A distributed 3D real-to-complex FFT over the ranks of a communicator (LAMMPS' and heFFTe's design):
// the caller holds the real grid in any brick decomposition (each rank one box, the boxes tiling the grid);
// the transform remaps the bricks into pencils (messages to the ranks whose boxes overlap), runs batched 1D
// transforms along the contiguous direction of each pencil stage (x: real-to-complex, then y and z:
// complex), and leaves the spectrum in z-pencils. The backward transform runs the same stages in reverse
// and returns the real grid in the caller's bricks. The 1D transforms are FFTW on the host and cuFFT in the
// CUDA build, chosen here and nowhere else; the grid stays in the default memory space (messages are staged
// through host buffers only when MPI cannot read device memory, as in GridHalo).
#pragma once
#include <mpi.h>

#include <Kokkos_Complex.hpp>
#include <memory>
#include <string>

#include "comm/staging.hpp"
#include "core/types.hpp"

namespace stratus::fft {

using Complex = Kokkos::complex<double>;
/// A rank's real-space brick, (z, y, x) with x contiguous, exactly the extent of its box.
using RealBrick = Kokkos::View<double***, Kokkos::LayoutRight, MemSpace>;
/// A rank's spectral points, flat (SpectralMap names the wave numbers of each).
using SpectralPoints = Kokkos::View<Complex*, MemSpace>;

/// Half-open global index ranges [lo, hi) in x, y, z.
struct Box3 {
  Int3 lo{}, hi{};
  int extent(int d) const { return hi[d] > lo[d] ? hi[d] - lo[d] : 0; }
  long long size() const { return static_cast<long long>(extent(0)) * extent(1) * extent(2); }
};

/// Which global wave-number indices (kx in 0 .. nx/2, ky in 0 .. ny - 1, kz in 0 .. nz - 1) the flat
/// spectral index m of this rank holds. Copyable into kernels.
struct SpectralMap {
  int lo[3];  // first global index held in x, y, z
  int n[3];   // points held in x, y, z
  // m runs over x slowest, then y, then z fastest (z-pencils: z contiguous).
  KOKKOS_INLINE_FUNCTION void index(long long m, int& kx, int& ky, int& kz) const {
    kz = lo[2] + static_cast<int>(m % n[2]);
    const long long r = m / n[2];
    ky = lo[1] + static_cast<int>(r % n[1]);
    kx = lo[0] + static_cast<int>(r / n[1]);
  }
};

class DistributedFFT {
 public:
  /// Collective over comm. global: grid points (nx, ny, nz), each >= 1; mine: this rank's real-space box
  /// (the boxes of all ranks tile the grid without overlap; a box may be empty). Plans and buffers are
  /// made here, once.
  DistributedFFT(MPI_Comm comm, Int3 global, Box3 mine, HaloTransport transport = HaloTransport::host_staged);
  ~DistributedFFT();
  DistributedFFT(const DistributedFFT&) = delete;
  DistributedFFT& operator=(const DistributedFFT&) = delete;

  const Int3& global() const;
  const Box3& real_box() const;
  /// Points of the half spectrum ((nx/2 + 1) x ny x nz) held by this rank, and their wave numbers.
  long long spectral_size() const;
  SpectralMap spectral_map() const;

  /// Collective. Unnormalised forward transform of the real grid (this rank's brick, extents of
  /// real_box(), in (z, y, x)): out(k) = sum_r in(r) exp(-2 pi i (kx x / nx + ky y / ny + kz z / nz)).
  /// `in` is not modified.
  void forward(const RealBrick& in, const SpectralPoints& out);
  /// Collective. Unnormalised backward transform from the half spectrum (Hermitian symmetry implied):
  /// backward(forward(f)) = nx ny nz f. `in` is not modified.
  void backward(const SpectralPoints& in, const RealBrick& out);

  /// "fftw3" or "cufft".
  static const char* backend();
  /// "pencils 2 x 2 over 4 ranks, 64 x 64 x 64, fftw3".
  std::string describe() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stratus::fft
