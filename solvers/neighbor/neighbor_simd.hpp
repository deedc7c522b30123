// The list build of CPUs that have AVX-512 (8 candidates a vector) or AVX2 (4), bin by bin: the candidates
// of one bin's owned atoms (the bin itself, then the parts of the stencil rows around it, in the order of
// neighbor_stencil.hpp) are gathered once into consecutive arrays, and each of the bin's atoms then tests
// them in one straight loop of plain vector loads, with no row ends and no partial vectors (the gathered
// set ends in entries that are no one's partner); the partners taken are compressed into the row in one
// store. A half list starts an atom's loop after the atom itself in its own
// bin (the bin's atoms are in index order, owned first), so the owned atoms it would not take are never
// tested. GPU builds and other CPUs use the portable for_each_candidate of neighbor_list.cpp, one atom at a
// time; the lists are the same, entry for entry and in the same order (a test compares them).
#pragma once
#if ((defined(__AVX512F__) && defined(__AVX512VL__)) || defined(__AVX2__)) && !defined(KOKKOS_ENABLE_CUDA) && \
    !defined(KOKKOS_ENABLE_HIP)
#include <immintrin.h>

#include <limits>

#include "neighbor/neighbor_stencil.hpp"

namespace stratus::neighbor_detail::simd {

/// Stencil rows (flat offset of the first bin, bins in the row, RowKind), the bins' atom ranges and first
/// ghosts, and the packed positions (bin order), all host pointers.
struct Candidates {
  const int* rows;
  int nr;
  const int* bin_start;
  const int* bin_atoms;
  const int* bin_ghost;
  const double *px, *py, *pz;
};
constexpr int kSlack = 8;      // a row has room for cap + kSlack entries: the last store may write 8 past cap
constexpr int kPadding = 8;    // entries after a gathered set, read by an atom's last vector
constexpr int kOvershoot = 3;  // entries past the last atom that gather() reads (and never uses)

/// One bin's candidates, consecutive: positions and atom indices.
struct Gathered {
  double *x, *y, *z;
  int* j;
};

/// Gathers the candidates of bin b's atoms into g: b's own atoms, then the parts of every stencil row
/// (for_each_row_part), then kPadding entries that are no one's partner (NaN positions: never closer than
/// the cutoff). Returns their number, the padding left out. g must hold gather_bound() entries.
inline int gather(const Candidates& cd, int b, bool half, const Gathered& g) {
  int n = 0;
  // Runs of a few atoms (a bin holds about 2.5 in a liquid): whole vectors of 4, past the run's end by up
  // to 3 entries (the packed arrays hold kOvershoot more than their atoms), which the next run overwrites.
  auto put = [&](int p, int e) {
    for (int q = 0; q < e - p; q += 4) {
      _mm256_storeu_pd(g.x + n + q, _mm256_loadu_pd(cd.px + p + q));
      _mm256_storeu_pd(g.y + n + q, _mm256_loadu_pd(cd.py + p + q));
      _mm256_storeu_pd(g.z + n + q, _mm256_loadu_pd(cd.pz + p + q));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(g.j + n + q),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(cd.bin_atoms + p + q)));
    }
    n += e - p;
  };
  put(cd.bin_start[b], cd.bin_start[b + 1]);
  for (int r = 0; r < cd.nr; ++r) {
    const int b0 = b + cd.rows[3 * r];
    for_each_row_part(half, cd.rows[3 * r + 2], b0, b0 + cd.rows[3 * r + 1], b, [&](int bf, int bl, bool ghosts_only) {
      put(ghosts_only ? cd.bin_ghost[bf] : cd.bin_start[bf], cd.bin_start[bl]);
    });
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int k = n; k < n + kPadding; ++k) {
    g.x[k] = g.y[k] = g.z[k] = nan;
    g.j[k] = -1;
  }
  return n;
}

/// The most entries gather() writes for any bin: the bin and every row's bins, each holding at most
/// max_bin atoms, and the padding.
inline long long gather_bound(const Candidates& cd, int max_bin) {
  long long bins = 1;
  for (int r = 0; r < cd.nr; ++r) bins += cd.rows[3 * r + 1];
  return bins * max_bin + kPadding;
}

#if defined(__AVX512F__) && defined(__AVX512VL__)
#define STRATUS_NEIGHBOR_SIMD "AVX-512"
/// Writes the partners of atom i (at xi, yi, zi) among the gathered candidates first .. n - 1 into out
/// (past cap: the count only, as the portable loop) and returns their number. self: i may be among them
/// (full lists); newton_ghost: a ghost only when it lies above i (z, then y, then x).
inline int fill_row(int i, double xi, double yi, double zi, int first, int n, int n_local, double rc2, bool self,
                    bool newton_ghost, const Gathered& g, int* __restrict out, int cap) {
  const __m512d vx = _mm512_set1_pd(xi), vy = _mm512_set1_pd(yi), vz = _mm512_set1_pd(zi);
  const __m512d vrc2 = _mm512_set1_pd(rc2);
  const __m256i vi = _mm256_set1_epi32(i), vnl = _mm256_set1_epi32(n_local);
  int c = 0;
  for (int p = first; p < n; p += 8) {
    const __m512d xj = _mm512_loadu_pd(g.x + p), yj = _mm512_loadu_pd(g.y + p), zj = _mm512_loadu_pd(g.z + p);
    const __m256i j = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g.j + p));
    const __m512d dx = _mm512_sub_pd(vx, xj), dy = _mm512_sub_pd(vy, yj), dz = _mm512_sub_pd(vz, zj);
    const __m512d rsq =
        _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
    __mmask8 take = _mm512_cmp_pd_mask(rsq, vrc2, _CMP_LT_OQ);
    if (self) take &= _mm256_cmpneq_epi32_mask(j, vi);
    if (newton_ghost) {
      const __mmask8 below = _mm512_cmp_pd_mask(zj, vz, _CMP_LT_OQ) |
                             (_mm512_cmp_pd_mask(zj, vz, _CMP_EQ_OQ) &
                              (_mm512_cmp_pd_mask(yj, vy, _CMP_LT_OQ) |
                               (_mm512_cmp_pd_mask(yj, vy, _CMP_EQ_OQ) & _mm512_cmp_pd_mask(xj, vx, _CMP_LT_OQ))));
      take &= static_cast<__mmask8>(~(_mm256_cmpge_epi32_mask(j, vnl) & below));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (c < cap ? c : cap)), _mm256_maskz_compress_epi32(take, j));
    c += __builtin_popcount(take);
  }
  return c;
}

#else  // AVX2: 4 candidates a vector
#define STRATUS_NEIGHBOR_SIMD "AVX2"
/// _mm_shuffle_epi8 controls that move the 32-bit lanes set in a 4-bit mask to the front, in order.
struct CompressTable {
  alignas(16) unsigned char c[16][16];
  CompressTable() {
    for (int m = 0; m < 16; ++m) {
      int k = 0;
      for (int l = 0; l < 4; ++l)
        if (m >> l & 1) {
          for (int b = 0; b < 4; ++b) c[m][4 * k + b] = static_cast<unsigned char>(4 * l + b);
          ++k;
        }
      for (int b = 4 * k; b < 16; ++b) c[m][b] = 0x80;  // zero
    }
  }
};
inline const CompressTable kCompress{};

// 4-bit masks of 4 lanes.
inline int bits(__m128i m) { return _mm_movemask_ps(_mm_castsi128_ps(m)); }
inline int bits(__m256d m) { return _mm256_movemask_pd(m); }

/// Writes the partners of atom i (at xi, yi, zi) among the gathered candidates first .. n - 1 into out
/// (past cap: the count only, as the portable loop) and returns their number. self: i may be among them
/// (full lists); newton_ghost: a ghost only when it lies above i (z, then y, then x).
inline int fill_row(int i, double xi, double yi, double zi, int first, int n, int n_local, double rc2, bool self,
                    bool newton_ghost, const Gathered& g, int* __restrict out, int cap) {
  const __m256d vx = _mm256_set1_pd(xi), vy = _mm256_set1_pd(yi), vz = _mm256_set1_pd(zi);
  const __m256d vrc2 = _mm256_set1_pd(rc2);
  const __m128i vi = _mm_set1_epi32(i), last_owned = _mm_set1_epi32(n_local - 1);
  int c = 0;
  for (int p = first; p < n; p += 4) {
    const __m256d xj = _mm256_loadu_pd(g.x + p), yj = _mm256_loadu_pd(g.y + p), zj = _mm256_loadu_pd(g.z + p);
    const __m128i j = _mm_loadu_si128(reinterpret_cast<const __m128i*>(g.j + p));
    const __m256d dx = _mm256_sub_pd(vx, xj), dy = _mm256_sub_pd(vy, yj), dz = _mm256_sub_pd(vz, zj);
    const __m256d rsq =
        _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
    int take = bits(_mm256_cmp_pd(rsq, vrc2, _CMP_LT_OQ));
    if (self) take &= ~bits(_mm_cmpeq_epi32(j, vi));
    if (newton_ghost) {
      const int below = bits(_mm256_cmp_pd(zj, vz, _CMP_LT_OQ)) |
                        (bits(_mm256_cmp_pd(zj, vz, _CMP_EQ_OQ)) &
                         (bits(_mm256_cmp_pd(yj, vy, _CMP_LT_OQ)) |
                          (bits(_mm256_cmp_pd(yj, vy, _CMP_EQ_OQ)) & bits(_mm256_cmp_pd(xj, vx, _CMP_LT_OQ)))));
      take &= ~(bits(_mm_cmpgt_epi32(j, last_owned)) & below);
    }
    if (!take) continue;  // the store skipped: 136 against 138 ms a 256k-atom build without this branch (Zen 3)
    const __m128i ctl = _mm_load_si128(reinterpret_cast<const __m128i*>(kCompress.c[take]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (c < cap ? c : cap)), _mm_shuffle_epi8(j, ctl));
    c += __builtin_popcount(static_cast<unsigned>(take));
  }
  return c;
}

#endif

}  // namespace stratus::neighbor_detail::simd
#endif
