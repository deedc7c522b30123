// Message buffers between device kernels and MPI, shared by the grid halo and the particle comm: a device
// send and receive buffer, grown on demand, and host mirrors when MPI must not see device memory (the
// default memory space is not host-accessible and the transport is host_staged). This is the one place
// that decides which pointer MPI gets and copies between the device buffers and their mirrors. It packs
// nothing and knows no message pattern: callers pack into send(), post or exchange slices of the buffers
// by offset, and unpack from recv().
#pragma once
#include <mpi.h>

#include <string>

#include "core/types.hpp"

namespace stratus {

/// How message buffers reach MPI when the default memory space is not host-accessible.
enum class HaloTransport { host_staged, gpu_aware };

/// Whether the MPI library can read and write CUDA device memory, as it reports itself (MPICH's
/// MPIX_GPU_query_support, Open MPI's MPIX_Query_cuda_support); unknown for other MPIs. Needs MPI initialised.
enum class MpiGpuSupport { yes, no, unknown };
MpiGpuSupport mpi_cuda_support();
const char* to_string(MpiGpuSupport s);

/// Pinned host memory for staged messages where the backend has it (faster copies to and from a GPU).
#if defined(KOKKOS_ENABLE_CUDA)
using HaloStagingSpace = Kokkos::CudaHostPinnedSpace;
#else
using HaloStagingSpace = Kokkos::HostSpace;
#endif

class StagedBuffers {
 public:
  /// Buffers labelled "<label>::send" etc.; nothing is allocated until reserve().
  explicit StagedBuffers(std::string label, HaloTransport transport = HaloTransport::host_staged);

  /// Room for at least n_send and n_recv doubles (20 % headroom when a buffer grows; contents are not kept).
  void reserve(long long n_send, long long n_recv);
  /// The device buffers kernels pack into and unpack from.
  const Buffer1D& send() const { return send_; }
  const Buffer1D& recv() const { return recv_; }
  /// Whether MPI sees host mirrors instead of the device buffers.
  bool staged() const { return staged_; }

  /// Before MPI reads send()[off, off + n): fences the packing kernels and copies the slice to the mirror
  /// when staged.
  void stage_send(long long off, long long n);
  /// After MPI wrote recv()[off, off + n): copies the slice from the mirror when staged.
  void unstage_recv(long long off, long long n);
  /// What MPI reads and writes for the element off of send() and recv().
  double* send_ptr(long long off) { return (staged_ ? send_host_.data() : send_.data()) + off; }
  double* recv_ptr(long long off) { return (staged_ ? recv_host_.data() : recv_.data()) + off; }

  /// Non-blocking messages of count doubles from send()[off ..] to rank, or into recv()[off ..] from rank
  /// (stage_send() first; unstage_recv() after the wait).
  void isend(long long off, int count, int rank, int tag, MPI_Comm comm, MPI_Request* req);
  void irecv(long long off, int count, int rank, int tag, MPI_Comm comm, MPI_Request* req);
  /// Blocking: sends n_send doubles of send() from s_off to `to` and receives n_recv doubles into recv()
  /// from r_off from `from`, staging both ways; a negative rank means no message that way.
  void sendrecv(long long s_off, int n_send, int to, long long r_off, int n_recv, int from, int tag, MPI_Comm comm);

 private:
  std::string label_;
  bool staged_;
  Buffer1D send_, recv_;
  Kokkos::View<double*, HaloStagingSpace> send_host_, recv_host_;  // only when staged
};

/// Exchanges message sizes: sends n to `to`, returns what `from` sends (0 when from < 0). Blocking.
int sendrecv_count(int n, int to, int from, int tag, MPI_Comm comm);

}  // namespace stratus
