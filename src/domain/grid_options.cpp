// [grid] and [parallel] deck options, declared and read by one binding each (GridParams::bind).
#include "domain/grid_options.hpp"

#include "core/error.hpp"
#include "input/options.hpp"

namespace stratus {

namespace {
const Choices<bool> kBoundary = {{"periodic", true}, {"wall", false}};
const Choices<HaloTransport> kTransport = {{"host-staged", HaloTransport::host_staged},
                                           {"gpu-aware", HaloTransport::gpu_aware}};
}  // namespace

template <class B>
void GridParams::bind(B& o) {
  o.integer([](GridParams& p) -> int& { return p.cells[0]; }, "grid.nx", 64, "cells", "global cells in x").at_least(1);
  o.integer([](GridParams& p) -> int& { return p.cells[1]; }, "grid.ny", 64, "cells",
            "global cells in y (1 for a 1D or x-z problem)")
      .at_least(1);
  o.integer([](GridParams& p) -> int& { return p.cells[2]; }, "grid.nz", 64, "cells",
            "global cells in z (1 for a 1D or 2D x-y problem)")
      .at_least(1);
  o.reals(&GridParams::lo, "grid.lo", {0.0, 0.0, 0.0}, "m", "lower corner of the domain (x y z)");
  o.reals(&GridParams::length, "grid.length", {1.0, 1.0, 1.0}, "m", "domain extent (x y z)").greater_than(0.0);
  o.choice([](GridParams& p) -> bool& { return p.periodic[0]; }, "grid.bc_x", kBoundary, true, "boundary in x");
  o.choice([](GridParams& p) -> bool& { return p.periodic[1]; }, "grid.bc_y", kBoundary, true, "boundary in y");
  o.choice([](GridParams& p) -> bool& { return p.periodic[2]; }, "grid.bc_z", kBoundary, true, "boundary in z");
}

template <class B>
void ParallelParams::bind(B& o) {
  o.integers(&ParallelParams::decomp, "parallel.decomp", {0, 0, 0}, "ranks",
             "MPI ranks per direction (x y z); 0 = chosen automatically; each must divide its cells")
      .at_least(0)
      .may_change_on_restart();
  o.choice(&ParallelParams::transport, "parallel.halo_transport", kTransport, HaloTransport::host_staged,
           "how halo buffers reach MPI on GPUs: copied through host memory, or passed to a GPU-aware MPI")
      .may_change_on_restart();
}

void declare_grid_options(OptionRegistry& reg) {
  declare_options<GridParams>(reg);
  declare_options<ParallelParams>(reg);
}

GridParams GridParams::from_deck(const Deck& deck) {
  GridParams p = read_options<GridParams>(deck);
  const ParallelParams par = ParallelParams::from_deck(deck);
  p.decomp = par.decomp;
  p.transport = par.transport;
  return p;
}

ParallelParams ParallelParams::from_deck(const Deck& deck) {
  ParallelParams p = read_options<ParallelParams>(deck);
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
