// The MPI side of fused reductions: one MPI_Allreduce per operation present.
#include "core/reduction.hpp"

#include "core/error.hpp"

namespace stratus {

void LocalReductions::reset() {
  values.resize(ops.size());
  for (std::size_t s = 0; s < ops.size(); ++s) values[s] = reduce_identity(ops[s]);
}

std::vector<double> allreduce(MPI_Comm comm, const LocalReductions& local) {
  STRATUS_REQUIRE(local.values.size() == local.ops.size(),
                  "reductions: " << local.values.size() << " values for " << local.ops.size() << " slots");
  std::vector<double> out(local.values.size());
  const ReduceOp kinds[3] = {ReduceOp::sum, ReduceOp::min, ReduceOp::max};
  const MPI_Op mpi_ops[3] = {MPI_SUM, MPI_MIN, MPI_MAX};
  for (int o = 0; o < 3; ++o) {
    std::vector<double> in;
    for (std::size_t s = 0; s < local.ops.size(); ++s)
      if (local.ops[s] == kinds[o]) in.push_back(local.values[s]);
    if (in.empty()) continue;
    std::vector<double> res(in.size());
    MPI_Allreduce(in.data(), res.data(), static_cast<int>(in.size()), MPI_DOUBLE, mpi_ops[o], comm);
    std::size_t n = 0;
    for (std::size_t s = 0; s < local.ops.size(); ++s)
      if (local.ops[s] == kinds[o]) out[s] = res[n++];
  }
  return out;
}

double global_max(MPI_Comm comm, double x) {
  double g = 0.0;
  MPI_Allreduce(&x, &g, 1, MPI_DOUBLE, MPI_MAX, comm);
  return g;
}

long long global_min(MPI_Comm comm, long long x) {
  long long g = 0;
  MPI_Allreduce(&x, &g, 1, MPI_LONG_LONG, MPI_MIN, comm);
  return g;
}

}  // namespace stratus
