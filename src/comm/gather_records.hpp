// Gathering per-rank records of doubles on rank 0 (an MD system for a data file), with counts and
// displacements in records rather than in doubles, so that a system of up to 2^31 - 1 records fits MPI's
// int counts: 200 M atoms of 12 doubles are 2.4e9 doubles, more than an int count of doubles can say.
#pragma once
#include <mpi.h>

#include <vector>

namespace stratus {

/// Where each rank's records start on rank 0, in records, for the per-rank record counts; Error (naming
/// the total) when they pass INT_MAX records. Pure: tested for sizes that are never allocated.
std::vector<int> record_displacements(const std::vector<long long>& counts);

/// The records (`width` doubles each) of every rank of comm, in rank order, on rank 0 (empty elsewhere).
/// Collective.
std::vector<double> gather_records(const std::vector<double>& mine, int width, MPI_Comm comm);

}  // namespace stratus
