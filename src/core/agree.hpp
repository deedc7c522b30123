// Collective agreement on rank 0's outcome, for work that only rank 0 does (writing a text file,
// creating a directory): every rank returns, or every rank throws the same Error.
#pragma once
#include <mpi.h>

#include <string>

namespace stratus {

/// Collective over comm. Returns if ok on rank 0; otherwise every rank throws Error(rank 0's msg). Only
/// rank 0's arguments matter.
void agree_or_throw(MPI_Comm comm, bool ok, const std::string& msg);

/// Collective over comm. Rank 0's string on every rank.
std::string bcast_string(MPI_Comm comm, std::string s);

}  // namespace stratus
