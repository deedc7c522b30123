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
  // total interface area (cells exchanged), an x cut counted kXCut times, ties broken towards splitting z
  // first, then y. Rows along x are the unit-stride direction: the CPU line kernels sweep them whole (the
  // Euler x sweep keeps its three stages in cache only along rows that are not cut) and an x cut's halo
  // cells lie a row apart. 2D thermal at 2 ranks, three alternating pairs: 2048 x 1024 split along z
  // 5.44-5.46e7 cell-updates/s against 3.71-4.21e7 along x, 400 x 200 7.17-7.29e7 against 5.46-5.96e7.
  // A layout that leaves a rank fewer cells along a cut than the ghost width (kMinCells, that of every
  // grid physics here) is taken only where no other divides the grid (make_local_grid then says why).
  constexpr double kXCut = 3.0;
  constexpr int kMinCells = 2;
  Int3 best{0, 0, 0}, best_thin{0, 0, 0};
  double best_cost = std::numeric_limits<double>::max(), best_thin_cost = best_cost;
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
      if (px > 1) cost += kXCut * ly * lz;
      if (py > 1) cost += lx * lz;
      if (pz > 1) cost += lx * ly;
      bool thin = false;
      for (int d = 0; d < 3; ++d) thin = thin || (p[d] > 1 && n[d] / p[d] < kMinCells);
      double& top = thin ? best_thin_cost : best_cost;
      if (cost < top - 1e-9) {
        top = cost;
        (thin ? best_thin : best) = p;
      }
    }
  }
  if (best[0] == 0) best = best_thin;
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
