// LocalGrid construction and field allocation.
#include "domain/local_grid.hpp"

#include <type_traits>

#include "core/error.hpp"
#include "core/host_memory.hpp"

namespace stratus {

Field4D LocalGrid::allocate(const std::string& label, int nvar) const {
  if constexpr (!std::is_same_v<MemSpace, Kokkos::HostSpace>) {
    return Field4D(label, nvar, extent(2), extent(1), extent(0));
  } else {
    // Zeroed after the hint, so that the first touch takes huge pages where the kernel gives them: the
    // start of a 3D run at 128^3 spent about half its time in the page faults of its fields.
    Field4D f(Kokkos::view_alloc(label, Kokkos::WithoutInitializing), nvar, extent(2), extent(1), extent(0));
    advise_huge_pages(f.data(), f.span() * sizeof(double));
    Kokkos::deep_copy(f, 0.0);
    return f;
  }
}

LocalGrid make_local_grid(const CartDecomp& decomp, Real3 lo, Real3 length, int ghost) {
  static const char* axis[3] = {"x", "y", "z"};
  STRATUS_REQUIRE(ghost >= 0, "ghost width must be >= 0");
  LocalGrid g;
  for (int d = 0; d < 3; ++d) {
    STRATUS_INPUT_REQUIRE(length[d] > 0.0, "key 'grid.l" << axis[d] << "': domain length must be > 0, got " << length[d]);
    g.n[d] = decomp.local_cells()[d];
    g.global_n[d] = decomp.global_cells()[d];
    g.offset[d] = decomp.offset()[d];
    g.ng[d] = g.global_n[d] > 1 ? ghost : 0;
    g.lo[d] = lo[d];
    g.dx[d] = length[d] / g.global_n[d];
    STRATUS_INPUT_REQUIRE(decomp.dims()[d] == 1 || g.n[d] >= g.ng[d],
                          "decomposition: " << decomp.dims()[d] << " ranks in " << axis[d] << " leave " << g.n[d]
                                            << " cells per rank, fewer than the ghost width " << g.ng[d]
                                            << " (use fewer ranks in " << axis[d] << " or more cells)");
    // A periodic direction held by one rank still needs n >= ghost for the self-exchange to be valid.
    STRATUS_INPUT_REQUIRE(g.n[d] >= g.ng[d], "grid.n" << axis[d] << " = " << g.global_n[d]
                                                      << " cells is fewer than the ghost width " << g.ng[d]);
  }
  return g;
}

}  // namespace stratus
