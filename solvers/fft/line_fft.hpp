// Batched 1D transforms along the contiguous direction of a pencil: howmany lines of n points, line l at
// element l * n (complex lines of a real-to-complex transform: l * (n / 2 + 1)). The one place that chooses
// the library: FFTW on the host, cuFFT in the CUDA build (STRATUS_HAVE_CUFFT). Unnormalised; forward has
// the sign -1 in the exponent. Arrays are doubles, a complex number two of them (Kokkos::complex layout).
#pragma once
#include <memory>

namespace stratus::fft::detail {

class LineFFT {
 public:
  enum class Kind { r2c, c2r, forward, backward };
  /// Plans with the arrays it will run on (or arrays of the same alignment, see accepts()); in == out for
  /// an in-place transform. Planning does not touch the arrays. c2r may overwrite its input.
  LineFFT(Kind kind, int n, long long howmany, double* in, double* out);
  ~LineFFT();
  LineFFT(const LineFFT&) = delete;
  LineFFT& operator=(const LineFFT&) = delete;

  /// Whether execute() may run on these arrays instead of the planned ones (FFTW needs the planned
  /// alignment and in-placeness).
  bool accepts(const double* in, const double* out) const;
  /// Runs the transform (asynchronously on the device stream with cuFFT; after a fence with FFTW).
  void execute(double* in, double* out) const;

  /// "fftw3" or "cufft".
  static const char* backend();

 private:
  struct Plan;
  Kind kind_;
  int n_;
  long long howmany_;
  bool in_place_;
  std::unique_ptr<Plan> plan_;  // none when there is nothing to plan (no lines, or lines of one point)
};

}  // namespace stratus::fft::detail
