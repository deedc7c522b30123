// Halo exchange checked cell by cell: every owned cell is stamped with its owner's rank and its global
// index, and after an exchange every ghost cell must hold exactly the stamp of the cell it images (with
// periodic wrap-around), walls and (when switched off) corners must stay untouched. Runs over every
// decomposition of the rank count for 3D, 2D and 1D grids, several widths and variable counts; a rank
// alone along its periodic directions makes no MPI call (mpi_call_counter.cpp counts them).
#include <array>
#include <catch2/catch.hpp>
#include <vector>

#include "comm/grid_halo.hpp"
#include "domain/cart_decomp.hpp"
#include "domain/local_grid.hpp"
#include "mpi_call_counter.hpp"

using namespace stratus;

namespace {

constexpr double kUntouched = -1.0;

// Global linear index of a cell (x fastest) combined with the variable: unique and exactly representable.
KOKKOS_INLINE_FUNCTION double stamp(int v, long long gi, long long gj, long long gk, const Int3& n) {
  return static_cast<double>(v) * 1e9 + static_cast<double>((gk * n[1] + gj) * n[0] + gi);
}

std::vector<Int3> all_dims(int np, const Int3& n) {
  std::vector<Int3> out;
  for (int px = 1; px <= np; ++px)
    for (int py = 1; py <= np; ++py)
      for (int pz = 1; pz <= np; ++pz)
        if (px * py * pz == np && n[0] % px == 0 && n[1] % py == 0 && n[2] % pz == 0) out.push_back(Int3{px, py, pz});
  return out;
}

int rank_of(const CartDecomp& dc, const Int3& g) {  // owner of a global cell (in range)
  int c[3] = {g[2] / dc.local_cells()[2], g[1] / dc.local_cells()[1], g[0] / dc.local_cells()[0]};
  int r = -1;
  MPI_Cart_rank(dc.comm(), c, &r);
  return r;
}

// Fills the field: owned cells get (stamp, owner rank) pairs, ghosts kUntouched; returns mismatches.
// only >= 0: the halo of the face links along that direction alone (the other ghosts stay untouched).
long long run_case(const Int3& n, const Int3& dims, std::array<bool, 3> periodic, int width, int nvar, bool corners,
                   bool overlap_work, bool fused, int only = -1) {
  CartDecomp dc(MPI_COMM_WORLD, n, dims, periodic);
  LocalGrid grid = make_local_grid(dc, Real3{0, 0, 0}, Real3{1, 1, 1}, 3);
  Field4D f = grid.allocate("test::f", 2 * nvar);
  Kokkos::deep_copy(f, kUntouched);
  const LocalGrid g = grid;
  const int me = dc.rank();
  using P3 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>;
  Kokkos::parallel_for(
      "test::stamp", P3({g.ng[2], g.ng[1], g.ng[0]}, {g.ng[2] + g.n[2], g.ng[1] + g.n[1], g.ng[0] + g.n[0]}),
      KOKKOS_LAMBDA(int k, int j, int i) {
        for (int v = 0; v < nvar; ++v) {
          f(2 * v, k, j, i) =
              stamp(v, g.offset[0] + i - g.ng[0], g.offset[1] + j - g.ng[1], g.offset[2] + k - g.ng[2], g.global_n);
          f(2 * v + 1, k, j, i) = me;
        }
      });
  GridHalo halo(dc, grid, 2 * nvar, width, corners, HaloTransport::host_staged, only);
  halo.set_fused_packing(fused);
  halo.start(f);
  if (overlap_work) {  // interior work between start and finish must not disturb the exchange
    double s = 0.0;
    Kokkos::parallel_reduce(
        "test::interior", 1000, KOKKOS_LAMBDA(int i, double& acc) { acc += i; }, s);
  }
  halo.finish(f);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);

  long long bad = 0;
  for (int k = 0; k < g.extent(2); ++k)
    for (int j = 0; j < g.extent(1); ++j)
      for (int i = 0; i < g.extent(0); ++i) {
        const int idx[3] = {i, j, k};
        Int3 gl;
        int outside = 0;       // directions in which the cell is a ghost
        int outdir = -1;       // one of them
        bool in_layer = true;  // within `width` layers of the owned region in every ghost direction
        bool wall = false;
        for (int d = 0; d < 3; ++d) {
          const int rel = idx[d] - g.ng[d];
          if (rel < 0 || rel >= g.n[d]) {
            ++outside;
            outdir = d;
            if (rel < -width || rel >= g.n[d] + width) in_layer = false;
          }
          long long gd = g.offset[d] + rel;
          if (gd < 0 || gd >= g.global_n[d]) {
            if (periodic[d])
              gd = (gd + g.global_n[d]) % g.global_n[d];
            else
              wall = true;
          }
          gl[d] = static_cast<int>(gd);
        }
        const bool expect_filled = outside > 0 && in_layer && !wall && (corners || outside == 1) &&
                                   (only < 0 || (outside == 1 && outdir == only));
        for (int v = 0; v < nvar; ++v) {
          const double val = h(2 * v, k, j, i), owner = h(2 * v + 1, k, j, i);
          if (outside == 0) continue;
          if (expect_filled) {
            if (val != stamp(v, gl[0], gl[1], gl[2], g.global_n) || owner != rank_of(dc, gl)) ++bad;
          } else if (val != kUntouched || owner != kUntouched) {
            ++bad;
          }
        }
      }
  return bad;
}

}  // namespace

TEST_CASE("halo fills every ghost cell with its image's owner and global index", "[halo][mpi]") {
  int np = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  struct Shape {
    Int3 n;
    const char* name;
  };
  const Shape shapes[] = {{Int3{12, 12, 12}, "3D"}, {Int3{12, 12, 1}, "2D"}, {Int3{24, 1, 1}, "1D"}};
  const std::array<bool, 3> bcs[] = {{true, true, true}, {true, false, true}, {false, true, false}};
  for (const auto& s : shapes) {
    for (const Int3& dims : all_dims(np, s.n)) {
      for (const auto& bc : bcs) {
        for (int width : {1, 2, 3}) {
          for (bool corners : {true, false}) {
            // Half of the cases pack all links in one kernel (the GPU default), half link by link.
            const bool fused = (width + corners) % 2 == 0;
            INFO(s.name << " decomposition " << dims[0] << "x" << dims[1] << "x" << dims[2] << " periodic " << bc[0]
                        << bc[1] << bc[2] << " width " << width << " corners " << corners << " fused " << fused);
            const int nvar = width == 2 ? 3 : 1;
            REQUIRE(run_case(s.n, dims, bc, width, nvar, corners, width == 1, fused) == 0);
          }
          for (int only = 0; only < 3; ++only) {  // one direction's faces (a dimensionally split sweep)
            INFO(s.name << " decomposition " << dims[0] << "x" << dims[1] << "x" << dims[2] << " periodic " << bc[0]
                        << bc[1] << bc[2] << " width " << width << " only direction " << only);
            REQUIRE(run_case(s.n, dims, bc, width, 1, false, false, only == 1, only) == 0);
          }
        }
      }
    }
  }
}

TEST_CASE("scatter_add returns every ghost contribution to its owner exactly once", "[halo][mpi]") {
  int np = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  for (const Int3& n : {Int3{8, 8, 8}, Int3{16, 8, 1}}) {
    for (const Int3& dims : all_dims(np, n)) {
      const bool fused = n[2] == 1;  // fused packing of the ghost boxes in the 2D case
      INFO("decomposition " << dims[0] << "x" << dims[1] << "x" << dims[2] << " fused " << fused);
      CartDecomp dc(MPI_COMM_WORLD, n, dims, {true, true, true});
      const int width = 2;
      LocalGrid g = make_local_grid(dc, Real3{0, 0, 0}, Real3{1, 1, 1}, width);
      Field4D f = g.allocate("test::deposit", 1);
      // Every cell, ghosts included, holds 1: after scatter_add an owned cell holds 1 + the number of
      // ghost cells (on all ranks) that image it: with periodic wrap and width <= n, the product over ghost
      // directions of (1 + [within width of the rank's low face] + [within width of its high face]) - 1.
      Kokkos::deep_copy(f, 1.0);
      GridHalo halo(dc, g, 1, width, true);
      halo.set_fused_packing(fused);
      halo.scatter_add(f);
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
      long long bad = 0;
      double total = 0.0;
      for (int k = g.ng[2]; k < g.ng[2] + g.n[2]; ++k)
        for (int j = g.ng[1]; j < g.ng[1] + g.n[1]; ++j)
          for (int i = g.ng[0]; i < g.ng[0] + g.n[0]; ++i) {
            const int idx[3] = {i, j, k};
            long long images = 1;
            for (int d = 0; d < 3; ++d) {
              if (g.ng[d] == 0) continue;
              const int rel = idx[d] - g.ng[d];  // ghosts of the neighbours image the cells near this rank's faces
              images *= 1 + (rel < width ? 1 : 0) + (rel >= g.n[d] - width ? 1 : 0);
            }
            if (h(0, k, j, i) != static_cast<double>(images)) ++bad;
            total += h(0, k, j, i);
          }
      REQUIRE(bad == 0);
      // Conservation: the sum over owned cells equals the sum over all cells of all ranks before.
      double all = 0.0;
      MPI_Allreduce(&total, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      double cells_with_ghosts = static_cast<double>(g.extent(0)) * g.extent(1) * g.extent(2);
      double expect = 0.0;
      MPI_Allreduce(&cells_with_ghosts, &expect, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      // Only ghosts within the exchanged width count; the grid's ghost width equals `width` here.
      REQUIRE(all == expect);
    }
  }
}

TEST_CASE("a rank alone along every periodic direction exchanges its halo without MPI", "[halo]") {
  // Every link goes to the rank itself: slices copied on the device, no message, no wait (MPI_COMM_SELF,
  // so every rank of the world does this alone). The cell values are run_case's business (at np = 1 all
  // its links are self links, at np = 2 and 4 some are).
  const Int3 n{8, 6, 4};
  CartDecomp dc(MPI_COMM_SELF, n, Int3{1, 1, 1}, {true, true, true});
  const LocalGrid grid = make_local_grid(dc, Real3{0, 0, 0}, Real3{1, 1, 1}, 3);
  Field4D f = grid.allocate("test::f", 5);
  Kokkos::deep_copy(f, 1.0);
  for (const bool fused : {false, true}) {
    GridHalo halo(dc, grid, 5, 3, true, HaloTransport::host_staged);
    halo.set_fused_packing(fused);
    CHECK(halo.message_count() == 0);
    CHECK(halo.self_link_count() == 26);
    const long long before = test::mpi_p2p_calls();
    halo.exchange(f);
    halo.scatter_add(f);
    for (int d = 0; d < 3; ++d) {
      GridHalo sweep(dc, grid, 5, 3, false, HaloTransport::host_staged, d);
      CHECK(sweep.self_link_count() == 2);
      sweep.exchange(f);
    }
    CHECK(test::mpi_p2p_calls() == before);
  }
  // Along a wall there is no link at all; along a direction split over ranks there are messages (world).
  CartDecomp walls(MPI_COMM_SELF, n, Int3{1, 1, 1}, {true, true, false});
  const LocalGrid gw = make_local_grid(walls, Real3{0, 0, 0}, Real3{1, 1, 1}, 3);
  CHECK(GridHalo(walls, gw, 1, 1, true).self_link_count() == 8);
}

TEST_CASE("the automatic decomposition has the smallest halo, an x cut counting three times its area", "[halo]") {
  const Int3 any{0, 0, 0};
  using A = std::array<int, 3>;  // Int3 (a Kokkos::Array) has no ==
  const auto dims = [](int np, Int3 n, Int3 req) {
    const Int3 d = CartDecomp::choose_dims(np, n, req);
    return A{d[0], d[1], d[2]};
  };
  // The default 2D decks at 2 ranks: split along z, where an x cut would exchange half as many cells
  // but cut the rows the line kernels sweep whole.
  CHECK(dims(2, Int3{2048, 1, 1024}, any) == A{1, 1, 2});
  CHECK(dims(2, Int3{400, 1, 200}, any) == A{1, 1, 2});
  // x is still cut where that saves more than two thirds of the halo, or where nothing else divides.
  CHECK(dims(2, Int3{4096, 1, 256}, any) == A{2, 1, 1});
  CHECK(dims(4, Int3{64, 1, 1}, any) == A{4, 1, 1});
  // Among the others, the smallest area; ties go to z, then y.
  CHECK(dims(2, Int3{16, 12, 8}, any) == A{1, 2, 1});
  CHECK(dims(4, Int3{128, 128, 128}, any) == A{1, 1, 4});
  CHECK(dims(8, Int3{64, 64, 64}, any) == A{1, 2, 4});
  // A rank keeps at least the ghost width (2 cells) along a cut where some layout allows it; where none
  // does, the thinnest is still named (make_local_grid then says why it cannot run).
  CHECK(dims(4, Int3{8, 4, 4}, any) == A{1, 2, 2});
  CHECK(dims(2, Int3{1, 1, 2}, any) == A{1, 1, 2});
  // A requested count is honoured, x included.
  CHECK(dims(2, Int3{400, 1, 200}, Int3{2, 0, 0}) == A{2, 1, 1});
}
