// mpi_call_counter (tests/mpi_call_counter.hpp).
#include "mpi_call_counter.hpp"

#include <mpi.h>

namespace {
long long g_calls = 0;
}

namespace stratus::test {
long long mpi_p2p_calls() { return g_calls; }
}  // namespace stratus::test

extern "C" {
int MPI_Isend(const void* b, int n, MPI_Datatype t, int to, int tag, MPI_Comm c, MPI_Request* r) {
  ++g_calls;
  return PMPI_Isend(b, n, t, to, tag, c, r);
}
int MPI_Irecv(void* b, int n, MPI_Datatype t, int from, int tag, MPI_Comm c, MPI_Request* r) {
  ++g_calls;
  return PMPI_Irecv(b, n, t, from, tag, c, r);
}
int MPI_Send(const void* b, int n, MPI_Datatype t, int to, int tag, MPI_Comm c) {
  ++g_calls;
  return PMPI_Send(b, n, t, to, tag, c);
}
int MPI_Recv(void* b, int n, MPI_Datatype t, int from, int tag, MPI_Comm c, MPI_Status* s) {
  ++g_calls;
  return PMPI_Recv(b, n, t, from, tag, c, s);
}
int MPI_Sendrecv(const void* sb, int sn, MPI_Datatype st, int to, int stag, void* rb, int rn, MPI_Datatype rt,
                 int from, int rtag, MPI_Comm c, MPI_Status* s) {
  ++g_calls;
  return PMPI_Sendrecv(sb, sn, st, to, stag, rb, rn, rt, from, rtag, c, s);
}
int MPI_Wait(MPI_Request* r, MPI_Status* s) {
  ++g_calls;
  return PMPI_Wait(r, s);
}
int MPI_Waitall(int n, MPI_Request r[], MPI_Status s[]) {
  ++g_calls;
  return PMPI_Waitall(n, r, s);
}
}
