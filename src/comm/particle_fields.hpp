// Which per-atom arrays travel when atoms migrate or are copied as ghosts, and the generic device kernels
// that pack and unpack them. A ParticleFields is a list of views (positions first), each entry either
// copied to ghosts and migrated with its owner, or (owned_only) migrated only. Each component of each view
// becomes one column: a double per atom in the message, in list order with the ghost columns first, so a
// border message holds ghost_width() doubles per atom and a migration message width(). The kernels loop
// over the columns, so adding an array to the list is the whole change. Integers travel exactly (int as a
// double value, 64-bit integers bit for bit). The list holds raw pointers: build it again after the
// arrays are reallocated (Particles::reserve). It does not select atoms or talk to MPI.
#pragma once
#include <cstring>
#include <type_traits>

#include "core/error.hpp"
#include "core/types.hpp"

namespace stratus {

/// A view that migrates with its owner but is not copied to ghosts (velocities, image flags).
template <class V>
struct OwnedOnly {
  V view;
};
template <class V>
OwnedOnly<V> owned_only(const V& v) {
  return {v};
}

/// One component of a per-atom array: element of row i at data[i * stride].
struct FieldColumn {
  enum Kind : int { real, int32, int64 };
  Kind kind = real;
  long long stride = 1;
  void* data = nullptr;

  KOKKOS_INLINE_FUNCTION double load(int i) const {
    const long long at = static_cast<long long>(i) * stride;
    if (kind == real) return static_cast<const double*>(data)[at];
    if (kind == int32) return static_cast<double>(static_cast<const int*>(data)[at]);
    double d;  // 64-bit integers travel as their bits, exact for every value
    std::memcpy(&d, static_cast<const long long*>(data) + at, sizeof d);
    return d;
  }
  KOKKOS_INLINE_FUNCTION void store(int i, double v) const {
    const long long at = static_cast<long long>(i) * stride;
    if (kind == real)
      static_cast<double*>(data)[at] = v;
    else if (kind == int32)
      static_cast<int*>(data)[at] = static_cast<int>(v);
    else
      std::memcpy(static_cast<long long*>(data) + at, &v, sizeof v);
  }
};

class ParticleFields {
 public:
  static constexpr int kMaxColumns = 24;

  /// positions x(i, 0..2) (copied to ghosts, shifted by the periodic image) and any further per-atom
  /// views: rank 1 or rank 2 (i, k), of double, int or long long, each one either plain (copied to
  /// ghosts too) or wrapped in owned_only().
  template <class... Rest>
  explicit ParticleFields(const ParticleVec& x, const Rest&... rest) {
    add(x);
    (add_entry(rest, true), ...);  // the ghost columns first, then the owned-only ones
    n_ghost_ = n_;
    (add_entry(rest, false), ...);
  }

  /// Doubles per atom in a migration message (every column) and in a border message (ghost columns).
  KOKKOS_INLINE_FUNCTION int width() const { return n_; }
  KOKKOS_INLINE_FUNCTION int ghost_width() const { return n_ghost_; }
  /// Column c: 0 .. 2 are the positions, then the other ghost columns, then the owned-only ones.
  KOKKOS_INLINE_FUNCTION const FieldColumn& column(int c) const { return col_[c]; }

 private:
  template <class V>
  void add_entry(const V& v, bool ghost_pass) {
    if (ghost_pass) add(v);
  }
  template <class V>
  void add_entry(const OwnedOnly<V>& o, bool ghost_pass) {
    if (!ghost_pass) add(o.view);
  }
  template <class V>
  void add(const V& v) {
    using T = typename V::non_const_value_type;
    static_assert(std::is_same<T, double>::value || std::is_same<T, int>::value || std::is_same<T, long long>::value,
                  "ParticleFields: per-atom arrays hold double, int or long long");
    static_assert(V::rank == 1 || V::rank == 2, "ParticleFields: per-atom arrays are (i) or (i, k)");
    const FieldColumn::Kind kind = std::is_same<T, double>::value ? FieldColumn::real
                                   : std::is_same<T, int>::value  ? FieldColumn::int32
                                                                  : FieldColumn::int64;
    const int ncomp = V::rank == 2 ? static_cast<int>(v.extent(1)) : 1;
    for (int k = 0; k < ncomp; ++k) {
      STRATUS_REQUIRE(n_ < kMaxColumns,
                      "ParticleFields: more than " << kMaxColumns << " per-atom columns ('" << v.label() << "')");
      FieldColumn c;
      c.kind = kind;
      c.stride = static_cast<long long>(v.stride(0));
      c.data = const_cast<T*>(v.data()) + (V::rank == 2 ? k * static_cast<long long>(v.stride(1)) : 0);
      col_[n_++] = c;
    }
  }

  FieldColumn col_[kMaxColumns];
  int n_ = 0, n_ghost_ = 0;
};

using RowList = Kokkos::View<int*, MemSpace>;
using MoveCounts = Kokkos::View<long long*, MemSpace>;

/// Borders: the ghost columns of rows list(0 .. count - 1) into buf (ghost_width() doubles per atom), with
/// `shift` added to position d.
void pack_ghosts(const ParticleFields& f, const RowList& list, int count, int d, double shift, const Buffer1D& buf);
/// Borders: count atoms of buf into rows first .. first + count - 1 (ghost columns).
void unpack_ghosts(const ParticleFields& f, const Buffer1D& buf, int first, int count);
/// Borders to this rank itself: rows list(j) copied to first + j (beyond every listed row), shifted.
void copy_ghosts(const ParticleFields& f, const RowList& list, int count, int d, double shift, int first);

/// Migration: every row 0 .. n - 1 into buf (width() doubles per atom) at the slot dest(i) gives it:
/// flag(i) == to_lower: n_keep + (atoms to_lower before i), flag(i) == to_upper: n_keep + n_lower + (atoms
/// to_upper before i), otherwise i - (atoms moving before i). prefix(i) holds the counts moving down
/// (high 32 bits) and up (low 32 bits) before row i.
void pack_migrants(const ParticleFields& f, const RowList& flag, int to_lower, int to_upper, const MoveCounts& prefix,
                   int n, int n_keep, int n_lower, const Buffer1D& buf);
/// Migration: count atoms of buf (from atom `from`) into rows first .. first + count - 1. With check, returns
/// the first written row whose position d lies outside [slo, shi), or INT_MAX.
int unpack_migrants(const ParticleFields& f, const Buffer1D& buf, int from, int first, int count, bool check, int d,
                    double slo, double shi);

}  // namespace stratus
