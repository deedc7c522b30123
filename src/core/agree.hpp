// Collective agreement on rank 0's outcome, for work that only rank 0 does (writing a text file,
// creating a directory): every rank returns, or every rank throws the same CollectiveError.
#pragma once
#include <mpi.h>

#include <string>

namespace stratus {

/// Collective over comm. Returns if ok on rank 0; otherwise every rank throws CollectiveError(rank 0's msg). Only
/// rank 0's arguments matter.
void agree_or_throw(MPI_Comm comm, bool ok, const std::string& msg);

/// Collective over comm. Returns if ok on every rank; otherwise every rank throws CollectiveError with the
/// message of the lowest failing rank.
void agree_all_or_throw(MPI_Comm comm, bool ok, const std::string& msg);

/// Collective over comm. Rank 0's string on every rank.
std::string bcast_string(MPI_Comm comm, std::string s);

}  // namespace stratus
