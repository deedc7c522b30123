// Cartesian domain decomposition of a global grid of cells over the ranks of a communicator, in 1, 2 or
// 3 directions, each periodic or walled. Blocks are equal: the ranks in a direction must divide the
// cells in it (an InputError otherwise, naming the keys); or, for grids that follow another
// decomposition (PPPM's charge grid over the particle sub-domains), as even as integer division allows. It owns the Cartesian communicator; it does not
// know about fields, ghosts or physics.
#pragma once
#include <mpi.h>

#include <array>
#include <string>

#include "core/types.hpp"

namespace stratus {

/// MPI_Cart_create of dims (x, y, z) with reorder off, in MPI order (z, y, x) so that x varies fastest with
/// the rank (x-neighbours, the contiguous direction, stay on nearby ranks). Collective. Returns the new
/// communicator and this rank's coordinates in (x, y, z).
MPI_Comm create_cart_comm(MPI_Comm comm, Int3 dims, std::array<bool, 3> periodic, Int3& coords);

class CartDecomp {
 public:
  /// global_cells: cells in x, y, z (each >= 1); requested: ranks per direction, 0 = choose
  /// (a direction with one cell always gets one rank); periodic: per direction.
  /// Collective over comm. Throws InputError when no valid decomposition exists.
  CartDecomp(MPI_Comm comm, Int3 global_cells, Int3 requested, std::array<bool, 3> periodic);
  /// Exactly dims ranks per direction (the same Cartesian layout as any other decomposition of comm
  /// with these dims), the cells of direction d split into blocks [c n / p, (c + 1) n / p) that may differ
  /// by one cell. Collective over comm.
  struct Uneven {};
  CartDecomp(MPI_Comm comm, Int3 global_cells, Int3 dims, std::array<bool, 3> periodic, Uneven);
  ~CartDecomp();
  CartDecomp(const CartDecomp&) = delete;
  CartDecomp& operator=(const CartDecomp&) = delete;

  /// The rank counts per direction for nranks ranks: honours the non-zero entries of requested, fills
  /// the zeros so that every direction divides evenly and the total halo surface is smallest, a cut across
  /// x (the unit-stride direction) counting three times its area.
  /// Pure (no MPI). Throws InputError if impossible.
  static Int3 choose_dims(int nranks, Int3 global_cells, Int3 requested);

  MPI_Comm comm() const { return cart_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const Int3& dims() const { return dims_; }
  const Int3& coords() const { return coords_; }
  const Int3& global_cells() const { return global_; }
  const Int3& local_cells() const { return local_; }
  /// Global index of this rank's first cell in each direction.
  const Int3& offset() const { return offset_; }
  bool periodic(int d) const { return periodic_[d]; }
  /// Rank of the neighbour at offset (ox, oy, oz), each in {-1, 0, 1}; MPI_PROC_NULL across a wall.
  int neighbor(int ox, int oy, int oz) const { return nbr_[ox + 1][oy + 1][oz + 1]; }
  /// "2 x 1 x 2 (periodic, periodic, wall)".
  std::string describe() const;

 private:
  void init(MPI_Comm comm);  // the Cartesian communicator, blocks and neighbours for dims_
  MPI_Comm cart_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  Int3 dims_{}, coords_{}, global_{}, local_{}, offset_{};
  std::array<bool, 3> periodic_{};
  int nbr_[3][3][3] = {};
};

}  // namespace stratus
