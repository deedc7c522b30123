// [grid] and [parallel] deck options.
#include "domain/grid_options.hpp"

#include "core/error.hpp"

namespace stratus {

void declare_grid_options(OptionRegistry& reg) {
  reg.add_int("grid.nx", 64, "cells", "global cells in x").at_least(1);
  reg.add_int("grid.ny", 64, "cells", "global cells in y (1 for a 1D or x-z problem)").at_least(1);
  reg.add_int("grid.nz", 64, "cells", "global cells in z (1 for a 1D or 2D x-y problem)").at_least(1);
  reg.add_reals("grid.lo", {0.0, 0.0, 0.0}, "m", "lower corner of the domain (x y z)").size(3);
  reg.add_reals("grid.length", {1.0, 1.0, 1.0}, "m", "domain extent (x y z)").size(3).greater_than(0.0);
  reg.add_string("grid.bc_x", "periodic", "", "boundary in x").one_of({"periodic", "wall"});
  reg.add_string("grid.bc_y", "periodic", "", "boundary in y").one_of({"periodic", "wall"});
  reg.add_string("grid.bc_z", "periodic", "", "boundary in z").one_of({"periodic", "wall"});
  reg.add_ints("parallel.decomp", {0, 0, 0}, "ranks",
               "MPI ranks per direction (x y z); 0 = chosen automatically; each must divide its cells")
      .size(3)
      .at_least(0);
  reg.add_string("parallel.halo_transport", "host-staged", "",
                 "how halo buffers reach MPI on GPUs: copied through host memory, or passed to a GPU-aware MPI")
      .one_of({"host-staged", "gpu-aware"});
}

GridParams GridParams::from_deck(const Deck& deck) {
  GridParams p;
  p.cells = Int3{deck.get_int32("grid.nx"), deck.get_int32("grid.ny"), deck.get_int32("grid.nz")};
  const auto lo = deck.get_reals("grid.lo");
  const auto len = deck.get_reals("grid.length");
  const auto dec = deck.get_ints32("parallel.decomp");
  const char* bc[3] = {"grid.bc_x", "grid.bc_y", "grid.bc_z"};
  for (int d = 0; d < 3; ++d) {
    p.lo[d] = lo[d];
    p.length[d] = len[d];
    p.decomp[d] = static_cast<int>(dec[d]);
    p.periodic[d] = deck.get_string(bc[d]) == "periodic";
  }
  p.transport =
      deck.get_string("parallel.halo_transport") == "gpu-aware" ? HaloTransport::gpu_aware : HaloTransport::host_staged;
  // Handing device pointers to an MPI that cannot read them crashes inside MPI: refuse up front.
  constexpr bool device_memory = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  if (device_memory && p.transport == HaloTransport::gpu_aware) {
    STRATUS_INPUT_REQUIRE(mpi_cuda_support() != MpiGpuSupport::no,
                          "key 'parallel.halo_transport' = 'gpu-aware', but this MPI library reports no CUDA "
                          "support; use 'host-staged' or an MPI built with CUDA");
  }
  return p;
}

std::unique_ptr<CartDecomp> GridParams::decompose(MPI_Comm comm) const {
  return std::make_unique<CartDecomp>(comm, cells, decomp, periodic);
}

}  // namespace stratus
