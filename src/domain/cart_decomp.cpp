// CartDecomp: factorisation of the rank count, the Cartesian communicator and the neighbour table.
#include "domain/cart_decomp.hpp"

#include <limits>
#include <sstream>

#include "core/error.hpp"

namespace stratus {

namespace {
const char* kAxis[3] = {"x", "y", "z"};
}

Int3 CartDecomp::choose_dims(int nranks, Int3 n, Int3 req) {
  STRATUS_INPUT_REQUIRE(nranks >= 1, "decomposition: rank count must be positive, got " << nranks);
  for (int d = 0; d < 3; ++d) {
    STRATUS_INPUT_REQUIRE(n[d] >= 1, "key 'grid.n" << kAxis[d] << "': needs at least one cell, got " << n[d]);
    STRATUS_INPUT_REQUIRE(
        req[d] >= 0, "key 'parallel.decomp': ranks in " << kAxis[d] << " must be >= 0 (0 = automatic), got " << req[d]);
    if (req[d] > 0) {
      STRATUS_INPUT_REQUIRE(n[d] % req[d] == 0, "key 'parallel.decomp': " << req[d] << " ranks in " << kAxis[d]
                                                                          << " do not divide grid.n" << kAxis[d]
                                                                          << " = " << n[d] << " cells");
    }
  }
  // Enumerate every px * py * pz = nranks honouring the fixed entries; keep the one with the smallest
  // total interface area (cells exchanged), ties broken towards splitting z first, then y.
  Int3 best{0, 0, 0};
  double best_cost = std::numeric_limits<double>::max();
  for (int px = 1; px <= nranks; ++px) {
    if (nranks % px) continue;
    for (int py = 1; py <= nranks / px; ++py) {
      if ((nranks / px) % py) continue;
      const int pz = nranks / px / py;
      const Int3 p{px, py, pz};
      bool ok = true;
      for (int d = 0; d < 3; ++d) {
        if (req[d] > 0 && p[d] != req[d]) ok = false;
        if (n[d] % p[d] != 0) ok = false;
      }
      if (!ok) continue;
      const double lx = double(n[0]) / px, ly = double(n[1]) / py, lz = double(n[2]) / pz;
      double cost = 0.0;
      if (px > 1) cost += ly * lz;
      if (py > 1) cost += lx * lz;
      if (pz > 1) cost += lx * ly;
      if (cost < best_cost - 1e-9) {
        best_cost = cost;
        best = p;
      }
    }
  }
  if (best[0] == 0) {
    std::ostringstream os;
    os << "key 'parallel.decomp': no decomposition of " << nranks << " ranks divides the grid " << n[0] << " x " << n[1]
       << " x " << n[2];
    if (req[0] || req[1] || req[2]) os << " with the requested " << req[0] << " " << req[1] << " " << req[2];
    os << " (each direction's rank count must divide its cells, and their product must be " << nranks << ")";
    throw InputError(os.str());
  }
  return best;
}

MPI_Comm create_cart_comm(MPI_Comm comm, Int3 dims, std::array<bool, 3> periodic, Int3& coords) {
  int mdims[3] = {dims[2], dims[1], dims[0]};
  int mper[3] = {periodic[2], periodic[1], periodic[0]};
  MPI_Comm cart = MPI_COMM_NULL;
  STRATUS_MPI_CHECK(MPI_Cart_create(comm, 3, mdims, mper, 0, &cart));
  int rank = 0, mc[3];
  MPI_Comm_rank(cart, &rank);
  STRATUS_MPI_CHECK(MPI_Cart_coords(cart, rank, 3, mc));
  coords = Int3{mc[2], mc[1], mc[0]};
  return cart;
}

CartDecomp::CartDecomp(MPI_Comm comm, Int3 global_cells, Int3 requested, std::array<bool, 3> periodic)
    : global_(global_cells), periodic_(periodic) {
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  dims_ = choose_dims(nranks, global_cells, requested);
  init(comm);
}

CartDecomp::CartDecomp(MPI_Comm comm, Int3 global_cells, Int3 dims, std::array<bool, 3> periodic, Uneven)
    : global_(global_cells), periodic_(periodic) {
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  STRATUS_REQUIRE(dims[0] >= 1 && dims[1] >= 1 && dims[2] >= 1 && dims[0] * dims[1] * dims[2] == nranks,
                  "decomposition " << dims[0] << " x " << dims[1] << " x " << dims[2] << " does not match " << nranks
                                   << " ranks");
  dims_ = dims;
  init(comm);
}

void CartDecomp::init(MPI_Comm comm) {
  cart_ = create_cart_comm(comm, dims_, periodic_, coords_);
  MPI_Comm_rank(cart_, &rank_);
  MPI_Comm_size(cart_, &size_);
  for (int d = 0; d < 3; ++d) {  // equal blocks when dims divides the cells
    offset_[d] = static_cast<int>(static_cast<long long>(coords_[d]) * global_[d] / dims_[d]);
    local_[d] = static_cast<int>(static_cast<long long>(coords_[d] + 1) * global_[d] / dims_[d]) - offset_[d];
  }
  for (int ox = -1; ox <= 1; ++ox)
    for (int oy = -1; oy <= 1; ++oy)
      for (int oz = -1; oz <= 1; ++oz) {
        const int o[3] = {ox, oy, oz};
        int c[3];
        bool wall = false;
        for (int d = 0; d < 3; ++d) {
          c[d] = coords_[d] + o[d];
          if (c[d] < 0 || c[d] >= dims_[d]) {
            if (periodic_[d])
              c[d] = (c[d] + dims_[d]) % dims_[d];
            else
              wall = true;
          }
        }
        int r = MPI_PROC_NULL;
        if (!wall) {
          int mcoord[3] = {c[2], c[1], c[0]};
          STRATUS_MPI_CHECK(MPI_Cart_rank(cart_, mcoord, &r));
        }
        nbr_[ox + 1][oy + 1][oz + 1] = r;
      }
}

CartDecomp::~CartDecomp() {
  int fin = 0;
  MPI_Finalized(&fin);
  if (cart_ != MPI_COMM_NULL && !fin) MPI_Comm_free(&cart_);
}

std::string CartDecomp::describe() const {
  std::ostringstream os;
  os << dims_[0] << " x " << dims_[1] << " x " << dims_[2] << " ranks (" << (periodic_[0] ? "periodic" : "wall") << ", "
     << (periodic_[1] ? "periodic" : "wall") << ", " << (periodic_[2] ? "periodic" : "wall") << "), " << local_[0]
     << " x " << local_[1] << " x " << local_[2] << " cells per rank";
  return os.str();
}

}  // namespace stratus
