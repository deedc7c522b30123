// LineFFT: FFTW's or cuFFT's batched plans (the only file that names either library's transforms), and
// lines of one point, which need no library (identity; a real line's single mode is its value).
#include "fft/line_fft.hpp"

#include <climits>
#include <type_traits>

#include "core/error.hpp"
#include "core/types.hpp"

#ifdef STRATUS_HAVE_CUFFT
#include <cufft.h>
#else
#include <fftw3.h>
#endif

namespace stratus::fft::detail {

namespace {

using LongPolicy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long long>>;

// Lines of one point: r2c gives (v, 0), c2r the real part, c2c copies (nothing to do in place).
void length_one(LineFFT::Kind kind, long long howmany, const double* in, double* out) {
  using Kind = LineFFT::Kind;
  if (kind == Kind::r2c) {
    Kokkos::parallel_for(
        "fft::length_one_r2c", LongPolicy(0, howmany), KOKKOS_LAMBDA(long long l) {
          out[2 * l] = in[l];
          out[2 * l + 1] = 0.0;
        });
  } else if (kind == Kind::c2r) {
    Kokkos::parallel_for(
        "fft::length_one_c2r", LongPolicy(0, howmany), KOKKOS_LAMBDA(long long l) { out[l] = in[2 * l]; });
  } else if (in != out) {
    Kokkos::parallel_for(
        "fft::length_one_c2c", LongPolicy(0, 2 * howmany), KOKKOS_LAMBDA(long long l) { out[l] = in[l]; });
  }
}

}  // namespace

#ifdef STRATUS_HAVE_CUFFT

static_assert(std::is_same<ExecSpace, Kokkos::Cuda>::value, "cuFFT transforms run on Kokkos' CUDA execution space");

struct LineFFT::Plan {
  cufftHandle handle = 0;
};

namespace {
void cufft_check(cufftResult r, const char* what) {
  STRATUS_REQUIRE(r == CUFFT_SUCCESS, "cuFFT: " << what << " failed (cufftResult " << static_cast<int>(r) << ")");
}
}  // namespace

const char* LineFFT::backend() { return "cufft"; }

LineFFT::LineFFT(Kind kind, int n, long long howmany, double* in, double* out)
    : kind_(kind), n_(n), howmany_(howmany), in_place_(in == out) {
  STRATUS_REQUIRE(n >= 1 && howmany >= 0 && howmany <= INT_MAX, "fft: " << howmany << " lines of " << n << " points");
  if (howmany == 0 || n == 1) return;
  int nn = n, nh = n / 2 + 1;
  int idist = n, odist = n;
  cufftType type = CUFFT_Z2Z;
  if (kind == Kind::r2c) {
    type = CUFFT_D2Z;
    odist = nh;
  } else if (kind == Kind::c2r) {
    type = CUFFT_Z2D;
    idist = nh;
  }
  int inembed = idist, onembed = odist;
  plan_ = std::make_unique<Plan>();
  cufft_check(
      cufftPlanMany(&plan_->handle, 1, &nn, &inembed, 1, idist, &onembed, 1, odist, type, static_cast<int>(howmany)),
      "cufftPlanMany");
  cufft_check(cufftSetStream(plan_->handle, ExecSpace().cuda_stream()), "cufftSetStream");
}

LineFFT::~LineFFT() {
  if (plan_) cufftDestroy(plan_->handle);
}

bool LineFFT::accepts(const double* in, const double* out) const { return (in == out) == in_place_; }

void LineFFT::execute(double* in, double* out) const {
  if (howmany_ == 0) return;
  if (n_ == 1) return length_one(kind_, howmany_, in, out);
  const cufftHandle h = plan_->handle;
  switch (kind_) {
    case Kind::r2c:
      cufft_check(cufftExecD2Z(h, reinterpret_cast<cufftDoubleReal*>(in), reinterpret_cast<cufftDoubleComplex*>(out)),
                  "cufftExecD2Z");
      break;
    case Kind::c2r:
      cufft_check(cufftExecZ2D(h, reinterpret_cast<cufftDoubleComplex*>(in), reinterpret_cast<cufftDoubleReal*>(out)),
                  "cufftExecZ2D");
      break;
    case Kind::forward:
    case Kind::backward:
      cufft_check(cufftExecZ2Z(h, reinterpret_cast<cufftDoubleComplex*>(in), reinterpret_cast<cufftDoubleComplex*>(out),
                               kind_ == Kind::forward ? CUFFT_FORWARD : CUFFT_INVERSE),
                  "cufftExecZ2Z");
      break;
  }
}

#else  // FFTW on the host

static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible,
              "FFTW transforms need the default memory space to be host-accessible (build with cuFFT otherwise)");

struct LineFFT::Plan {
  fftw_plan plan = nullptr;
  int align_in = 0, align_out = 0;
};

const char* LineFFT::backend() { return "fftw3"; }

LineFFT::LineFFT(Kind kind, int n, long long howmany, double* in, double* out)
    : kind_(kind), n_(n), howmany_(howmany), in_place_(in == out) {
  STRATUS_REQUIRE(n >= 1 && howmany >= 0 && howmany <= INT_MAX, "fft: " << howmany << " lines of " << n << " points");
  if (howmany == 0 || n == 1) return;
  int nn = n;
  const int nh = n / 2 + 1, hm = static_cast<int>(howmany);
  auto* cin = reinterpret_cast<fftw_complex*>(in);
  auto* cout = reinterpret_cast<fftw_complex*>(out);
  plan_ = std::make_unique<Plan>();
  switch (kind) {
    case Kind::r2c:
      plan_->plan = fftw_plan_many_dft_r2c(1, &nn, hm, in, nullptr, 1, n, cout, nullptr, 1, nh, FFTW_ESTIMATE);
      break;
    case Kind::c2r:
      plan_->plan = fftw_plan_many_dft_c2r(1, &nn, hm, cin, nullptr, 1, nh, out, nullptr, 1, n, FFTW_ESTIMATE);
      break;
    case Kind::forward:
    case Kind::backward:
      plan_->plan = fftw_plan_many_dft(1, &nn, hm, cin, nullptr, 1, n, cout, nullptr, 1, n,
                                       kind == Kind::forward ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
      break;
  }
  STRATUS_REQUIRE(plan_->plan != nullptr, "FFTW could not plan " << howmany << " lines of " << n << " points");
  plan_->align_in = fftw_alignment_of(in);
  plan_->align_out = fftw_alignment_of(out);
}

LineFFT::~LineFFT() {
  if (plan_ && plan_->plan) fftw_destroy_plan(plan_->plan);
}

bool LineFFT::accepts(const double* in, const double* out) const {
  if ((in == out) != in_place_) return false;
  if (!plan_) return true;
  return fftw_alignment_of(const_cast<double*>(in)) == plan_->align_in &&
         fftw_alignment_of(const_cast<double*>(out)) == plan_->align_out;
}

void LineFFT::execute(double* in, double* out) const {
  if (howmany_ == 0) return;
  if (n_ == 1) return length_one(kind_, howmany_, in, out);
  ExecSpace().fence();  // the kernels that wrote the input are done
  switch (kind_) {
    case Kind::r2c:
      fftw_execute_dft_r2c(plan_->plan, in, reinterpret_cast<fftw_complex*>(out));
      break;
    case Kind::c2r:
      fftw_execute_dft_c2r(plan_->plan, reinterpret_cast<fftw_complex*>(in), out);
      break;
    case Kind::forward:
    case Kind::backward:
      fftw_execute_dft(plan_->plan, reinterpret_cast<fftw_complex*>(in), reinterpret_cast<fftw_complex*>(out));
      break;
  }
}

#endif

}  // namespace stratus::fft::detail
