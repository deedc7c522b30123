// Counts the point-to-point MPI calls of the test executable it is linked into (MPI_Isend, MPI_Irecv,
// MPI_Send, MPI_Recv, MPI_Sendrecv, MPI_Wait, MPI_Waitall), through MPI's profiling interface: its
// definitions of those functions take the place of the library's and call the PMPI_ ones.
#pragma once

namespace stratus::test {

/// Point-to-point calls made by this process so far.
long long mpi_p2p_calls();

}  // namespace stratus::test
