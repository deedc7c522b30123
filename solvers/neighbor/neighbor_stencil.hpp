// The order in which a neighbor list build (neighbor_list.cpp) searches the stencil's bins around an atom's
// bin, shared by the portable candidate loop (one atom at a time) and the SIMD one (neighbor_simd.hpp: the
// candidates of one bin's atoms gathered once), so that both list the same partners in the same order.
#pragma once
#include <Kokkos_Core.hpp>

namespace stratus::neighbor_detail {

/// Which owned partners a half list takes from a stencil row: all (forward rows: oz > 0, or oz = 0 and
/// oy > 0), none (backward rows), or, in i's own row, those in the bins after i's and those above i in its
/// own bin; ghosts come from every row.
enum RowKind : int { kBackward = 0, kOwnRow = 1, kForward = 2 };

/// Calls part(first_bin, end_bin, ghosts_only) for the parts of stencil row (bins b0 .. b1 - 1, kind)
/// around bin bi, in order, leaving out bin bi itself (searched first, apart from the rows). A half list
/// takes no owned partner from a backward row nor from the bins of bi's own row before bi: those bins come
/// one by one with ghosts_only (a bin's atoms are in index order, owned first, so its ghosts are one range,
/// empty in the interior: half the stencil's atoms are never tested there); the others as one or two runs
/// of whole bins, every atom of which is a candidate.
template <class Part>
KOKKOS_INLINE_FUNCTION void for_each_row_part(bool half, int kind, int b0, int b1, int bi, Part&& part) {
  const int gb = !half ? b0 : (kind == kBackward ? b1 : (kind == kOwnRow ? bi : b0));
  for (int b = b0; b < gb; ++b) part(b, b + 1, true);
  if (bi >= gb && bi < b1) {
    if (gb < bi) part(gb, bi, false);
    if (bi + 1 < b1) part(bi + 1, b1, false);
  } else if (gb < b1) {
    part(gb, b1, false);
  }
}

}  // namespace stratus::neighbor_detail
