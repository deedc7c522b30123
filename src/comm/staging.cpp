// StagedBuffers and the MPI library's CUDA support query.
#include "comm/staging.hpp"

#include <utility>

#include "core/error.hpp"
#include "core/gpu_paths.hpp"
#include "core/view_grow.hpp"

#if defined(OPEN_MPI) && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace stratus {

MpiGpuSupport mpi_cuda_support() {
#if defined(MPIX_GPU_SUPPORT_CUDA)  // MPICH >= 4.0
  int yes = 0;
  if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes) != MPI_SUCCESS) return MpiGpuSupport::unknown;
  return yes ? MpiGpuSupport::yes : MpiGpuSupport::no;
#elif defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT  // Open MPI built with CUDA
  return MPIX_Query_cuda_support() ? MpiGpuSupport::yes : MpiGpuSupport::no;
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  return MpiGpuSupport::no;
#else
  return MpiGpuSupport::unknown;
#endif
}

const char* to_string(MpiGpuSupport s) {
  switch (s) {
    case MpiGpuSupport::yes:
      return "yes";
    case MpiGpuSupport::no:
      return "no";
    default:
      return "unknown";
  }
}

namespace {
std::pair<long long, long long> range(long long off, long long n) { return {off, off + n}; }
}  // namespace

StagedBuffers::StagedBuffers(std::string label, HaloTransport transport)
    : label_(std::move(label)), staged_(gpu_paths() && transport == HaloTransport::host_staged) {}

void StagedBuffers::reserve(long long n_send, long long n_recv) {
  grow_rows(send_, n_send, label_ + "::send");
  grow_rows(recv_, n_recv, label_ + "::recv");
  if (staged_) {  // the mirrors match the device buffers, so offsets are the same in both
    if (send_host_.extent(0) != send_.extent(0))
      send_host_ = decltype(send_host_)(Kokkos::view_alloc(Kokkos::WithoutInitializing, label_ + "::send_host"),
                                        send_.extent(0));
    if (recv_host_.extent(0) != recv_.extent(0))
      recv_host_ = decltype(recv_host_)(Kokkos::view_alloc(Kokkos::WithoutInitializing, label_ + "::recv_host"),
                                        recv_.extent(0));
  }
}

void StagedBuffers::stage_send(long long off, long long n) {
  ExecSpace().fence();  // the pack kernels are done before MPI (or the copy) reads
  if (staged_ && n > 0)
    Kokkos::deep_copy(Kokkos::subview(send_host_, range(off, n)), Kokkos::subview(send_, range(off, n)));
}

void StagedBuffers::unstage_recv(long long off, long long n) {
  if (staged_ && n > 0)
    Kokkos::deep_copy(Kokkos::subview(recv_, range(off, n)), Kokkos::subview(recv_host_, range(off, n)));
}

void StagedBuffers::isend(long long off, int count, int rank, int tag, MPI_Comm comm, MPI_Request* req) {
  STRATUS_MPI_CHECK(MPI_Isend(send_ptr(off), count, MPI_DOUBLE, rank, tag, comm, req));
}

void StagedBuffers::irecv(long long off, int count, int rank, int tag, MPI_Comm comm, MPI_Request* req) {
  STRATUS_MPI_CHECK(MPI_Irecv(recv_ptr(off), count, MPI_DOUBLE, rank, tag, comm, req));
}

void StagedBuffers::sendrecv(long long s_off, int n_send, int to, long long r_off, int n_recv, int from, int tag,
                             MPI_Comm comm) {
  if (to < 0) n_send = 0;
  if (from < 0) n_recv = 0;
  stage_send(s_off, n_send);
  double* sp = n_send > 0 ? send_ptr(s_off) : nullptr;
  double* rp = n_recv > 0 ? recv_ptr(r_off) : nullptr;
  if (to >= 0 && from >= 0)
    STRATUS_MPI_CHECK(
        MPI_Sendrecv(sp, n_send, MPI_DOUBLE, to, tag, rp, n_recv, MPI_DOUBLE, from, tag, comm, MPI_STATUS_IGNORE));
  else if (to >= 0)
    STRATUS_MPI_CHECK(MPI_Send(sp, n_send, MPI_DOUBLE, to, tag, comm));
  else if (from >= 0)
    STRATUS_MPI_CHECK(MPI_Recv(rp, n_recv, MPI_DOUBLE, from, tag, comm, MPI_STATUS_IGNORE));
  unstage_recv(r_off, n_recv);
}

int sendrecv_count(int n, int to, int from, int tag, MPI_Comm comm) {
  int got = 0;
  if (to >= 0 && from >= 0)
    STRATUS_MPI_CHECK(MPI_Sendrecv(&n, 1, MPI_INT, to, tag, &got, 1, MPI_INT, from, tag, comm, MPI_STATUS_IGNORE));
  else if (to >= 0)
    STRATUS_MPI_CHECK(MPI_Send(&n, 1, MPI_INT, to, tag, comm));
  else if (from >= 0)
    STRATUS_MPI_CHECK(MPI_Recv(&got, 1, MPI_INT, from, tag, comm, MPI_STATUS_IGNORE));
  return got;
}

}  // namespace stratus
