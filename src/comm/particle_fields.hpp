// Which per-atom arrays travel when atoms migrate or are copied as ghosts, and the generic device kernels
// that pack and unpack them. A ParticleFields is a list of views (positions first), each entry either
// copied to ghosts and migrated with its owner, or (owned_only) migrated only. Each component of each view
// travels as one double in the message, the ghost arrays first, so a border message holds ghost_width()
// doubles per atom and a migration message width(). The list is a type (ParticleFields<...>, deduced
// from the views), so the kernels' loops over it unroll at compile time into the code one would write by
// hand, and adding an array to the list is the whole change. Integers travel exactly (int as a double
// value, 64-bit integers bit for bit). The list holds the views as they are: build it again after the
// arrays are reallocated (Particles::reserve). It does not select atoms or talk to MPI.
#pragma once
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

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

namespace fields_detail {
template <class V>
struct Entry {  // a plain view: copied to ghosts and migrated
  static constexpr bool ghost = true;
  KOKKOS_INLINE_FUNCTION static const V& view(const V& v) { return v; }
};
template <class V>
struct Entry<OwnedOnly<V>> {
  static constexpr bool ghost = false;
  KOKKOS_INLINE_FUNCTION static const V& view(const OwnedOnly<V>& o) { return o.view; }
};

// One element on the wire: doubles as they are, int as a double value, 64-bit integers as their bits.
KOKKOS_INLINE_FUNCTION double to_wire(double v) { return v; }
KOKKOS_INLINE_FUNCTION double to_wire(int v) { return static_cast<double>(v); }
KOKKOS_INLINE_FUNCTION double to_wire(long long v) {
  double d;
  std::memcpy(&d, &v, sizeof d);
  return d;
}
KOKKOS_INLINE_FUNCTION void from_wire(double w, double& v) { v = w; }
KOKKOS_INLINE_FUNCTION void from_wire(double w, int& v) { v = static_cast<int>(w); }
KOKKOS_INLINE_FUNCTION void from_wire(double w, long long& v) { std::memcpy(&v, &w, sizeof v); }

template <class V>
int components(const V& v) {
  static_assert(V::rank == 1 || V::rank == 2, "ParticleFields: per-atom arrays are (i) or (i, k)");
  return V::rank == 1 ? 1 : static_cast<int>(v.extent(1));
}

// The views as a recursive list, so that every loop over them unrolls at compile time.
template <class... E>
struct List {
  KOKKOS_INLINE_FUNCTION double* pack(int, bool, double* out) const { return out; }
  KOKKOS_INLINE_FUNCTION const double* unpack(int, bool, const double* in) const { return in; }
  KOKKOS_INLINE_FUNCTION void copy(int, int) const {}
  void widths(int&, int&) const {}
};
template <class H, class... T>
struct List<H, T...> {
  using V = std::remove_cv_t<std::remove_reference_t<decltype(Entry<H>::view(std::declval<H>()))>>;
  using Value = typename V::non_const_value_type;
  static_assert(std::is_same<Value, double>::value || std::is_same<Value, int>::value ||
                    std::is_same<Value, long long>::value,
                "ParticleFields: per-atom arrays hold double, int or long long");
  H head;
  List<T...> tail;

  List(const H& h, const T&... t) : head(h), tail(t...) {}

  /// The entries whose ghost flag is `ghost` of row i into out (then the rest of the list).
  KOKKOS_INLINE_FUNCTION double* pack(int i, bool ghost, double* out) const {
    if (Entry<H>::ghost == ghost) {
      const V& v = Entry<H>::view(head);
      if constexpr (V::rank == 1) {
        *out++ = to_wire(v(i));
      } else {
        for (int k = 0; k < static_cast<int>(v.extent(1)); ++k) *out++ = to_wire(v(i, k));
      }
    }
    return tail.pack(i, ghost, out);
  }
  KOKKOS_INLINE_FUNCTION const double* unpack(int i, bool ghost, const double* in) const {
    if (Entry<H>::ghost == ghost) {
      const V& v = Entry<H>::view(head);
      if constexpr (V::rank == 1) {
        from_wire(*in++, v(i));
      } else {
        for (int k = 0; k < static_cast<int>(v.extent(1)); ++k) from_wire(*in++, v(i, k));
      }
    }
    return tail.unpack(i, ghost, in);
  }
  /// The ghost entries of row i into row j.
  KOKKOS_INLINE_FUNCTION void copy(int i, int j) const {
    if (Entry<H>::ghost) {
      const V& v = Entry<H>::view(head);
      if constexpr (V::rank == 1) {
        v(j) = v(i);
      } else {
        for (int k = 0; k < static_cast<int>(v.extent(1)); ++k) v(j, k) = v(i, k);
      }
    }
    tail.copy(i, j);
  }
  void widths(int& ghost, int& owned) const {
    (Entry<H>::ghost ? ghost : owned) += components(Entry<H>::view(head));
    tail.widths(ghost, owned);
  }
};
}  // namespace fields_detail

/// The per-atom arrays that travel: positions x(i, 0..2) first (copied to ghosts, shifted by the periodic
/// image), then any views (i) or (i, k) of double, int or long long, each plain (copied to ghosts too) or
/// wrapped in owned_only(). Built with class template argument deduction:
///   ParticleFields fields{x, owned_only(v), type, id};
template <class... E>
class ParticleFields {
 public:
  explicit ParticleFields(const ParticleVec& x, const E&... rest) : list_{x, rest...} {
    int owned = 0;
    list_.widths(ghost_width_, owned);
    width_ = ghost_width_ + owned;
  }

  /// Doubles per atom in a migration message (every array) and in a border message (ghost arrays).
  KOKKOS_INLINE_FUNCTION int width() const { return width_; }
  KOKKOS_INLINE_FUNCTION int ghost_width() const { return ghost_width_; }

  /// Row i into out[0 .. ghost_width()) (all = false) or out[0 .. width()); out[0 .. 2] are the positions.
  KOKKOS_INLINE_FUNCTION void pack(int i, bool all, double* out) const {
    out = list_.pack(i, true, out);
    if (all) list_.pack(i, false, out);
  }
  /// The inverse of pack(): in[0 ..] into row i.
  KOKKOS_INLINE_FUNCTION void unpack(int i, bool all, const double* in) const {
    in = list_.unpack(i, true, in);
    if (all) list_.unpack(i, false, in);
  }
  /// The ghost arrays of row i into row j.
  KOKKOS_INLINE_FUNCTION void copy_ghost(int i, int j) const { list_.copy(i, j); }
  /// Position d of row i.
  KOKKOS_INLINE_FUNCTION double& position(int i, int d) const { return list_.head(i, d); }

 private:
  fields_detail::List<ParticleVec, E...> list_;
  int width_ = 0, ghost_width_ = 0;
};

using RowList = Kokkos::View<int*, MemSpace>;
using MoveCounts = Kokkos::View<long long*, MemSpace>;

/// Borders: the ghost arrays of rows list(0 .. count - 1) into buf (ghost_width() doubles per atom), with
/// `shift` added to position d.
template <class F>
void pack_ghosts(const F& f, const RowList& list, int count, int d, double shift, const Buffer1D& buf) {
  Kokkos::parallel_for(
      "particle_comm::pack_ghosts", Kokkos::RangePolicy<ExecSpace>(0, count), KOKKOS_LAMBDA(int j) {
        const long long b = static_cast<long long>(j) * f.ghost_width();
        f.pack(list(j), false, &buf(b));
        buf(b + d) += shift;  // columns 0 .. 2 are the positions
      });
}

/// Borders: count atoms of buf into rows first .. first + count - 1 (ghost arrays).
template <class F>
void unpack_ghosts(const F& f, const Buffer1D& buf, int first, int count) {
  Kokkos::parallel_for(
      "particle_comm::unpack_ghosts", Kokkos::RangePolicy<ExecSpace>(0, count),
      KOKKOS_LAMBDA(int j) { f.unpack(first + j, false, &buf(static_cast<long long>(j) * f.ghost_width())); });
}

/// Borders to this rank itself: rows list(j) copied to first + j (beyond every listed row), shifted.
template <class F>
void copy_ghosts(const F& f, const RowList& list, int count, int d, double shift, int first) {
  Kokkos::parallel_for(
      "particle_comm::copy_ghosts", Kokkos::RangePolicy<ExecSpace>(0, count), KOKKOS_LAMBDA(int j) {
        const int i = list(j), g = first + j;
        f.copy_ghost(i, g);
        f.position(g, d) = f.position(i, d) + shift;
      });
}

/// Migration: every row 0 .. n - 1 into buf (width() doubles per atom) at the slot dest(i) gives it:
/// flag(i) == to_lower: n_keep + (atoms to_lower before i), flag(i) == to_upper: n_keep + n_lower + (atoms
/// to_upper before i), otherwise i - (atoms moving before i). prefix(i) holds the counts moving down
/// (high 32 bits) and up (low 32 bits) before row i.
template <class F>
void pack_migrants(const F& f, const RowList& flag, int to_lower, int to_upper, const MoveCounts& prefix, int n,
                   int n_keep, int n_lower, const Buffer1D& buf) {
  Kokkos::parallel_for(
      "particle_comm::pack_migrants", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(int i) {
        const long long pre = prefix(i);
        const int below_lower = static_cast<int>(pre >> 32);
        const int below_upper = static_cast<int>(pre & 0xffffffffLL);
        const int fl = flag(i);
        const int dest = fl == to_lower   ? n_keep + below_lower
                         : fl == to_upper ? n_keep + n_lower + below_upper
                                          : i - below_lower - below_upper;
        f.pack(i, true, &buf(static_cast<long long>(dest) * f.width()));
      });
}

/// Migration: count atoms of buf (from atom `from`) into rows first .. first + count - 1. With check,
/// returns the first written row whose position d lies outside [slo, shi), or INT_MAX.
template <class F>
int unpack_migrants(const F& f, const Buffer1D& buf, int from, int first, int count, bool check, int d, double slo,
                    double shi) {
  int bad_row = std::numeric_limits<int>::max();
  Kokkos::parallel_reduce(
      "particle_comm::unpack_migrants", Kokkos::RangePolicy<ExecSpace>(0, count),
      KOKKOS_LAMBDA(int j, int& bad) {
        const int i = first + j;
        const long long b = static_cast<long long>(from + j) * f.width();
        f.unpack(i, true, &buf(b));
        const double xd = buf(b + d);
        if (check && !(xd >= slo && xd < shi) && i < bad) bad = i;
      },
      Kokkos::Min<int>(bad_row));
  return bad_row;
}

}  // namespace stratus
