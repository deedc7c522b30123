// The lj/cut neighbor row in explicit SIMD, for CPUs that have AVX-512 (8 doubles a vector) or AVX2 (4),
// in host builds with -march=native on such a CPU; GPU builds and other CPUs use the portable loop of
// pair_lj.cpp. What it does that the compiler's vectorisation of the portable loop does not:
//   - every partner is in a full or masked vector: no scalar remainder loop (the portable loop's
//     vectoriser picks 16 lanes and leaves up to 15 partners of each row to a scalar loop with branches);
//   - one type (or every type pair alike): the coefficients are broadcast once a row, no gathers.
// The partners' shares of a half list are left to the caller's scalar loop, a block at a time: on AMD Zen 4
// that is faster than a vector gather, subtract and scatter (which a row's distinct partners would allow),
// 0.45 s against 0.53 s of pair compute for 100 steps of 32,000 atoms. The AVX2 row loads the partners'
// positions by rows and transposes them rather than gathering them, with one thread subtracts the shares
// from f in the loop, two doubles and one at a time, and masks only a row's last, partial vector. On AMD
// Zen 3, for the 32,000-atom melt on one rank (medians of 5 alternating runs): 2.2e6 -> 2.9e6 atom-steps/s
// for the loads and shares, then 2.5e6 -> 3.0e6 for the unmasked full vectors.
// The arithmetic is that of LJCoeffs::fpair / energy, operation by operation (no fused multiply-add, as
// the build's -ffp-contract=off), so each pair's force has the portable loop's bits; only the order of the
// sums over a row differs (lane order, fixed: the same bits on every run of one build).
#pragma once
#if ((defined(__AVX512F__) && defined(__AVX512VL__)) || defined(__AVX2__)) && !defined(KOKKOS_ENABLE_CUDA) && \
    !defined(KOKKOS_ENABLE_HIP)
#include <immintrin.h>

#include <type_traits>

namespace stratus::md::simd {

/// Raw host pointers to LJCoeffs' tables (index ti * stride + tj).
struct LJTable {
  const double *lj1, *lj2, *lj3, *lj4, *cutsq, *offset;
  int stride;
};

/// Sums of one row: i's force, and (EV) its share of the energy and virial.
struct RowSums {
  double fx = 0.0, fy = 0.0, fz = 0.0, e = 0.0, w = 0.0;
};

constexpr int kSimdBlock = 64;  // partners per call of flush (the buffered half-list form)

#if defined(__AVX512F__) && defined(__AVX512VL__)
#define STRATUS_PAIR_SIMD "AVX-512"
using Vec = __m512d;
// Gathers with a defined (zero) source and a horizontal sum in a fixed order: GCC 12's own
// _mm512_i32gather_pd and _mm512_reduce_add_pd start from _mm512_undefined_pd and warn when inlined.
inline __m512d gather(__m256i idx, const double* base) {
  return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), __mmask8(0xFF), idx, base, 8);
}
inline double hsum(__m512d v) {
  alignas(64) double a[8];
  _mm512_store_pd(a, v);
  return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]));
}
#else
#define STRATUS_PAIR_SIMD "AVX2"
using Vec = __m256d;
// Gathers of 4 doubles with a defined (zero) source; a horizontal sum in a fixed order.
inline __m256d gather(__m128i idx, const double* base) {
  return _mm256_mask_i32gather_pd(_mm256_setzero_pd(), base, idx, _mm256_castsi256_pd(_mm256_set1_epi64x(-1)), 8);
}
inline double hsum(__m256d v) {
  alignas(32) double a[4];
  _mm256_store_pd(a, v);
  return (a[0] + a[2]) + (a[1] + a[3]);
}
// A mask of 4 32-bit lanes as 4 64-bit lanes (all ones or zero).
inline __m256d widen(__m128i m) { return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(m)); }
#endif

// The coefficients of the type pairs whose table entries are in the lanes of pidx (the energy's only with EV).
template <bool EV, class Idx>
inline void gather_coeffs(Idx pidx, const LJTable& c, Vec& lj1, Vec& lj2, Vec& cutsq, Vec& lj3, Vec& lj4, Vec& off) {
  lj1 = gather(pidx, c.lj1);
  lj2 = gather(pidx, c.lj2);
  cutsq = gather(pidx, c.cutsq);
  if constexpr (EV) {
    lj3 = gather(pidx, c.lj3);
    lj4 = gather(pidx, c.lj4);
    off = gather(pidx, c.offset);
  }
}

// A row's sums from its lanes.
template <bool EV>
inline RowSums row_sums(Vec fx, Vec fy, Vec fz, Vec e, Vec w) {
  RowSums r;
  r.fx = hsum(fx);
  r.fy = hsum(fy);
  r.fz = hsum(fz);
  if constexpr (EV) {
    r.e = hsum(e);
    r.w = hsum(w);
  }
  return r;
}

/// The row of atom i: partners js[s .. t), positions xs (x, y, z per atom), types ts. HALF: the pair forces
/// are handed to flush(p0, m, gx, gy, gz) a block of up to kSimdBlock partners at a time (gx[q] is the force
/// on i from partner js[p0 + q]; zero for a pair beyond its cutoff); weights of the energy and virial: 1
/// for partners j < nl, else 1/2. UNIFORM: every type pair has the coefficients of (1, 1).
#if defined(__AVX512F__) && defined(__AVX512VL__)
template <bool HALF, bool EV, bool UNIFORM, class Flush>
inline RowSums lj_row(int i, const double* __restrict xs, const int* __restrict ts, const int* __restrict js, int s,
                      int t, int nl, const LJTable& c, double* /*fd*/, Flush&& flush) {
  const __m512d xi = _mm512_set1_pd(xs[3 * i]), yi = _mm512_set1_pd(xs[3 * i + 1]), zi = _mm512_set1_pd(xs[3 * i + 2]);
  const __m512d one = _mm512_set1_pd(1.0), half_w = _mm512_set1_pd(0.5);
  const __m256i iv = _mm256_set1_epi32(i);
  [[maybe_unused]] const __m256i nlv = _mm256_set1_epi32(nl);
  const __m256i base = _mm256_set1_epi32(UNIFORM ? 0 : ts[i] * c.stride);
  const int u = c.stride + 1;  // the (1, 1) entry
  __m512d lj1 = _mm512_set1_pd(c.lj1[u]), lj2 = _mm512_set1_pd(c.lj2[u]), cutsq = _mm512_set1_pd(c.cutsq[u]);
  __m512d lj3 = _mm512_set1_pd(c.lj3[u]), lj4 = _mm512_set1_pd(c.lj4[u]), off = _mm512_set1_pd(c.offset[u]);
  __m512d fx = _mm512_setzero_pd(), fy = fx, fz = fx, e = fx, w = fx;
  alignas(64) double gx[kSimdBlock], gy[kSimdBlock], gz[kSimdBlock];
  for (int p0 = s; p0 < t; p0 += kSimdBlock) {
    const int pend = t - p0 < kSimdBlock ? t : p0 + kSimdBlock;
    for (int p = p0; p < pend; p += 8) {
      const int left = pend - p;
      const __mmask8 valid = left >= 8 ? __mmask8(0xFF) : __mmask8((1u << left) - 1u);
      const __m256i j = _mm256_mask_loadu_epi32(iv, valid, js + p);  // padding lanes: i itself, masked out
      const __m256i j3 = _mm256_add_epi32(_mm256_add_epi32(j, j), j);
      const __m512d dx = _mm512_sub_pd(xi, gather(j3, xs));
      const __m512d dy = _mm512_sub_pd(yi, gather(j3, xs + 1));
      const __m512d dz = _mm512_sub_pd(zi, gather(j3, xs + 2));
      const __m512d rsq =
          _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
      if constexpr (!UNIFORM) {
        gather_coeffs<EV>(_mm256_add_epi32(base, _mm256_i32gather_epi32(ts, j, 4)), c, lj1, lj2, cutsq, lj3, lj4, off);
      }
      const __mmask8 in = _mm512_mask_cmp_pd_mask(valid, rsq, cutsq, _CMP_LT_OQ);
      const __m512d r2i = _mm512_maskz_div_pd(in, one, rsq);  // zero outside: every term below is then zero
      const __m512d r6i = _mm512_mul_pd(_mm512_mul_pd(r2i, r2i), r2i);
      const __m512d fp = _mm512_mul_pd(_mm512_mul_pd(r6i, _mm512_sub_pd(_mm512_mul_pd(lj1, r6i), lj2)), r2i);
      const __m512d ax = _mm512_mul_pd(dx, fp), ay = _mm512_mul_pd(dy, fp), az = _mm512_mul_pd(dz, fp);
      fx = _mm512_add_pd(fx, ax);
      fy = _mm512_add_pd(fy, ay);
      fz = _mm512_add_pd(fz, az);
      if constexpr (EV) {  // a pair counts half when it is listed from both sides
        const __mmask8 newton = HALF ? _mm256_mask_cmplt_epi32_mask(valid, j, nlv) : __mmask8(0);
        const __m512d evdwl =
            _mm512_maskz_sub_pd(in, _mm512_mul_pd(r6i, _mm512_sub_pd(_mm512_mul_pd(lj3, r6i), lj4)), off);
        const __m512d weight = HALF ? _mm512_mask_blend_pd(newton, half_w, one) : half_w;
        e = _mm512_add_pd(e, _mm512_mul_pd(weight, evdwl));
        w = _mm512_add_pd(w, _mm512_mul_pd(_mm512_mul_pd(weight, rsq), fp));
      }
      if constexpr (HALF) {
        _mm512_store_pd(gx + (p - p0), ax);
        _mm512_store_pd(gy + (p - p0), ay);
        _mm512_store_pd(gz + (p - p0), az);
      }
    }
    if constexpr (HALF) flush(p0, pend - p0, gx, gy, gz);
  }
  return row_sums<EV>(fx, fy, fz, e, w);
}
#else  // AVX2: 4 partners a vector
// The positions of partners j (4 lanes) as x, y, z vectors: each partner's x, y, z by one masked load (the
// fourth double is not read: no load past the array) and a 4 x 3 transpose. On AMD Zen 3 three gathers
// cost more than the four loads and seven shuffles.
[[gnu::always_inline]] inline void load_xyz(const double* xs, __m128i j3, __m256d& x, __m256d& y, __m256d& z) {
  alignas(16) int o[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(o), j3);
  const __m256i m = _mm256_setr_epi64x(-1, -1, -1, 0);
  const __m256d a0 = _mm256_maskload_pd(xs + o[0], m), a1 = _mm256_maskload_pd(xs + o[1], m);
  const __m256d a2 = _mm256_maskload_pd(xs + o[2], m), a3 = _mm256_maskload_pd(xs + o[3], m);
  const __m256d t0 = _mm256_unpacklo_pd(a0, a1), t1 = _mm256_unpackhi_pd(a0, a1);  // x0 x1 z0 z1, y0 y1 . .
  const __m256d t2 = _mm256_unpacklo_pd(a2, a3), t3 = _mm256_unpackhi_pd(a2, a3);
  x = _mm256_permute2f128_pd(t0, t2, 0x20);
  y = _mm256_permute2f128_pd(t1, t3, 0x20);
  z = _mm256_permute2f128_pd(t0, t2, 0x31);
}
// f[3 j + c] -= g_c for the 4 partners j (offsets j3) of one vector, in lane order: x and y in one 2-wide
// step, z alone (no access past a partner's three doubles). Each difference is the scalar one's.
[[gnu::always_inline]] inline void subtract_shares(double* f, __m128i j3, __m256d gx, __m256d gy, __m256d gz) {
  alignas(16) int o[4];
  alignas(32) double z[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(o), j3);
  _mm256_store_pd(z, gz);
  const __m256d lo = _mm256_unpacklo_pd(gx, gy), hi = _mm256_unpackhi_pd(gx, gy);  // x0 y0 x2 y2, x1 y1 x3 y3
  const __m128d xy[4] = {_mm256_castpd256_pd128(lo), _mm256_castpd256_pd128(hi), _mm256_extractf128_pd(lo, 1),
                         _mm256_extractf128_pd(hi, 1)};
  for (int k = 0; k < 4; ++k) {
    double* fj = f + o[k];
    _mm_storeu_pd(fj, _mm_sub_pd(_mm_loadu_pd(fj), xy[k]));
    fj[2] -= z[k];
  }
}
// As the AVX-512 row above; with fd (one thread, f written directly) the partners' shares go to fd in the
// loop, a vector at a time (lanes of ghosts, j >= nl, and padding take zero: f - 0 is f), not through flush.
template <bool HALF, bool EV, bool UNIFORM, class Flush>
inline RowSums lj_row(int i, const double* __restrict xs, const int* __restrict ts, const int* __restrict js, int s,
                      int t, int nl, const LJTable& c, double* fd, Flush&& flush) {
  const __m256d xi = _mm256_set1_pd(xs[3 * i]), yi = _mm256_set1_pd(xs[3 * i + 1]), zi = _mm256_set1_pd(xs[3 * i + 2]);
  const __m256d one = _mm256_set1_pd(1.0), half_w = _mm256_set1_pd(0.5);
  const __m128i iv = _mm_set1_epi32(i), lane = _mm_setr_epi32(0, 1, 2, 3);
  [[maybe_unused]] const __m128i nlv = _mm_set1_epi32(nl);
  const __m128i base = _mm_set1_epi32(UNIFORM ? 0 : ts[i] * c.stride);
  const int u = c.stride + 1;  // the (1, 1) entry
  __m256d lj1 = _mm256_set1_pd(c.lj1[u]), lj2 = _mm256_set1_pd(c.lj2[u]), cutsq = _mm256_set1_pd(c.cutsq[u]);
  __m256d lj3 = _mm256_set1_pd(c.lj3[u]), lj4 = _mm256_set1_pd(c.lj4[u]), off = _mm256_set1_pd(c.offset[u]);
  __m256d fx = _mm256_setzero_pd(), fy = fx, fz = fx, e = fx, w = fx;
  alignas(32) double gx[kSimdBlock], gy[kSimdBlock], gz[kSimdBlock];
  const bool buffered = HALF && fd == nullptr;
  for (int p0 = s; p0 < t; p0 += kSimdBlock) {
    const int pend = t - p0 < kSimdBlock ? t : p0 + kSimdBlock;
    auto vector = [&](int p, auto full_vector) {
      constexpr bool full = decltype(full_vector)::value;
      // All ones in a lane to take; a full vector of partners needs no mask.
      const __m128i valid = full ? _mm_set1_epi32(-1) : _mm_cmpgt_epi32(_mm_set1_epi32(pend - p), lane);
      // Padding lanes: i itself (a load that cannot fault), masked out below.
      const __m128i j = full ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(js + p))
                             : _mm_blendv_epi8(iv, _mm_maskload_epi32(js + p, valid), valid);
      const __m128i j3 = _mm_add_epi32(_mm_add_epi32(j, j), j);
      __m256d xj, yj, zj;
      load_xyz(xs, j3, xj, yj, zj);
      const __m256d dx = _mm256_sub_pd(xi, xj), dy = _mm256_sub_pd(yi, yj), dz = _mm256_sub_pd(zi, zj);
      const __m256d rsq =
          _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
      if constexpr (!UNIFORM) {
        gather_coeffs<EV>(_mm_add_epi32(base, _mm_i32gather_epi32(ts, j, 4)), c, lj1, lj2, cutsq, lj3, lj4, off);
      }
      const __m256d in = _mm256_and_pd(widen(valid), _mm256_cmp_pd(rsq, cutsq, _CMP_LT_OQ));
      const __m256d r2i = _mm256_and_pd(in, _mm256_div_pd(one, rsq));  // zero outside: every term below too
      const __m256d r6i = _mm256_mul_pd(_mm256_mul_pd(r2i, r2i), r2i);
      const __m256d fp = _mm256_mul_pd(_mm256_mul_pd(r6i, _mm256_sub_pd(_mm256_mul_pd(lj1, r6i), lj2)), r2i);
      const __m256d ax = _mm256_mul_pd(dx, fp), ay = _mm256_mul_pd(dy, fp), az = _mm256_mul_pd(dz, fp);
      fx = _mm256_add_pd(fx, ax);
      fy = _mm256_add_pd(fy, ay);
      fz = _mm256_add_pd(fz, az);
      [[maybe_unused]] __m128i newton = _mm_setzero_si128();  // HALF: partners that take a share
      if constexpr (HALF) newton = _mm_and_si128(valid, _mm_cmplt_epi32(j, nlv));
      if constexpr (EV) {  // a pair counts half when it is listed from both sides
        const __m256d evdwl =
            _mm256_and_pd(in, _mm256_sub_pd(_mm256_mul_pd(r6i, _mm256_sub_pd(_mm256_mul_pd(lj3, r6i), lj4)), off));
        __m256d weight = half_w;
        if constexpr (HALF) weight = _mm256_blendv_pd(half_w, one, widen(newton));
        e = _mm256_add_pd(e, _mm256_mul_pd(weight, evdwl));
        w = _mm256_add_pd(w, _mm256_mul_pd(_mm256_mul_pd(weight, rsq), fp));
      }
      if constexpr (HALF) {
        if (!buffered) {
          const __m256d take = widen(newton);
          subtract_shares(fd, j3, _mm256_and_pd(take, ax), _mm256_and_pd(take, ay), _mm256_and_pd(take, az));
        } else {
          _mm256_store_pd(gx + (p - p0), ax);
          _mm256_store_pd(gy + (p - p0), ay);
          _mm256_store_pd(gz + (p - p0), az);
        }
      }
    };
    int p = p0;
    for (; p + 4 <= pend; p += 4) vector(p, std::true_type{});
    if (p < pend) vector(p, std::false_type{});
    if (buffered) flush(p0, pend - p0, gx, gy, gz);
  }
  return row_sums<EV>(fx, fy, fz, e, w);
}
#endif

}  // namespace stratus::md::simd
#endif
