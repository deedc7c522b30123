// Deck options shared by every grid physics ([grid] extent, cells and boundaries; [parallel] rank
// layout and halo transport) and the code that turns them into a decomposition. Physics-specific keys
// live with their physics.
#pragma once
#include <mpi.h>

#include <memory>

#include "comm/grid_halo.hpp"
#include "domain/cart_decomp.hpp"
#include "input/deck.hpp"

namespace stratus {

void declare_grid_options(OptionRegistry& reg);

/// The [parallel] keys: ranks per direction and the halo transport (grid and particle physics alike).
struct ParallelParams {
  Int3 decomp{};  // requested ranks per direction, 0 = automatic
  HaloTransport transport{};

  /// Reads [parallel]; InputError for a GPU-aware transport that this MPI cannot serve.
  static ParallelParams from_deck(const Deck& deck);
  template <class B>
  static void bind(B& o);
};

struct GridParams {
  Int3 cells{};
  Real3 lo{}, length{};
  std::array<bool, 3> periodic{};
  Int3 decomp{};  // requested ranks per direction, 0 = automatic
  HaloTransport transport{};

  /// [grid] and [parallel] (ParallelParams::from_deck).
  static GridParams from_deck(const Deck& deck);
  /// One statement per [grid] key (input/options.hpp); defaults are the bindings'.
  template <class B>
  static void bind(B& o);
  /// Collective: the decomposition for these parameters (InputError if none fits).
  std::unique_ptr<CartDecomp> decompose(MPI_Comm comm) const;
};

}  // namespace stratus
