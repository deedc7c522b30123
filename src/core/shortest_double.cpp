// to_chars_shortest (core/shortest_double.hpp). For v = m2 * 2^e2 with e2 in [-65, -1], the bounds of the
// values that read back as v (Ryu's mm, mv, mp: 4 m2 - 1 or - 2, 4 m2, 4 m2 + 2, times 2^(e2 - 2)) are
// scaled by 10^q, q the fewest decimal places at which their interval is at least 15 units wide (q <= 21,
// so that the products fit in 128 bits), and floored; whether each floor was exact is known from the bits
// shifted out. Ryu's digit removal then runs on those integers (at least one digit goes, so the last one
// removed decides the rounding, with exact ties to even): the same digits as Ryu, which is what
// std::to_chars prints, since both find the shortest decimal in the same interval, nearest to v.
#include "core/shortest_double.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>

namespace stratus {

namespace {

using u128 = unsigned __int128;

struct Tables {
  u128 pow10[22];
  std::uint64_t pow10_64[20];
  int places[70];  // by the shift s = 2 - e2: q
  constexpr Tables() : pow10(), pow10_64(), places() {
    u128 p = 1;
    for (int k = 0; k < 22; ++k, p *= 10) {
      pow10[k] = p;
      if (k < 20) pow10_64[k] = static_cast<std::uint64_t>(p);
    }
    for (int s = 3; s < 70; ++s) {
      const u128 need = (u128{1} << (s - 1)) * 10;  // the interval is 3 or 4 times 2^-s wide
      int k = 0;
      while (k < 21 && pow10[k] < need) ++k;
      places[s] = k;
    }
  }
};
constexpr Tables kTables{};

constexpr char kDigits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

int decimal_length(std::uint64_t v) {
  const int approx = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12;  // floor(log10(2^bits)): at most one low
  return approx + (v >= kTables.pow10_64[approx] ? 1 : 0);
}

void put2(char* p, unsigned v) { std::memcpy(p, kDigits2 + 2 * v, 2); }

/// The 8 digits of v < 10^8 at p, leading zeros included (four independent pairs).
void put8(char* p, std::uint32_t v) {
  const std::uint32_t hi = v / 10000, lo = v % 10000;
  put2(p, hi / 100);
  put2(p + 2, hi % 100);
  put2(p + 4, lo / 100);
  put2(p + 6, lo % 100);
}

/// The n digits of v < 10^9 at out.
void put_small(char* out, std::uint32_t v, int n) {
  char* p = out + n;
  while (v >= 100) {
    const std::uint32_t r = v % 100;
    v /= 100;
    p -= 2;
    put2(p, r);
  }
  if (v >= 10)
    put2(p - 2, v);
  else
    p[-1] = static_cast<char>('0' + v);
}

/// The n = decimal_length(v) <= 18 digits of v at out.
void put_digits(char* out, std::uint64_t v, int n) {
  if (n <= 8) return put_small(out, static_cast<std::uint32_t>(v), n);
  const std::uint64_t hi = v / 100000000;
  put8(out + n - 8, static_cast<std::uint32_t>(v - hi * 100000000));
  if (n <= 16) return put_small(out, static_cast<std::uint32_t>(hi), n - 8);
  const std::uint64_t top = hi / 100000000;
  put8(out + n - 16, static_cast<std::uint32_t>(hi - top * 100000000));
  put_small(out, static_cast<std::uint32_t>(top), n - 16);
}

}  // namespace

char* to_chars_shortest(char* out, double v) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, 8);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t frac = bits & ((std::uint64_t{1} << 52) - 1);
  const int e2 = biased - 1075;  // v = m2 * 2^e2
  if (biased == 0 || e2 < -65 || e2 > -1) return std::to_chars(out, out + 32, v).ptr;
  if (bits >> 63) *out++ = '-';
  const std::uint64_t m2 = frac | (std::uint64_t{1} << 52);
  const bool even = (m2 & 1) == 0;  // the bounds themselves read back as v (round half to even)
  const std::uint64_t mv = 4 * m2, mp = mv + 2, mm = mv - 1 - (frac != 0 ? 1 : 0);
  const int s = 2 - e2;
  const int q = kTables.places[s];
  const u128 scale = kTables.pow10[q], below = (u128{1} << s) - 1;
  const u128 a = u128{mm} * scale, r = u128{mv} * scale, b = u128{mp} * scale;
  std::uint64_t vm = static_cast<std::uint64_t>(a >> s), vr = static_cast<std::uint64_t>(r >> s),
                vp = static_cast<std::uint64_t>(b >> s);
  bool vm_exact = (a & below) == 0, vr_exact = (r & below) == 0;
  if (!even && (b & below) == 0) --vp;  // the upper bound is excluded
  int removed = 0;
  unsigned last_removed = 0;
  const auto remove = [&] {
    vr_exact &= last_removed == 0;
    last_removed = static_cast<unsigned>(vr % 10);
    vr /= 10;
    vp /= 10;
    vm /= 10;
    ++removed;
  };
  while (vp / 10 > vm / 10) {
    vm_exact &= vm % 10 == 0;
    remove();
  }
  if (even && vm_exact)  // the lower bound is allowed and has zeros to give
    while (vm % 10 == 0) remove();
  if (vr_exact && last_removed == 5 && vr % 2 == 0) last_removed = 4;  // a tie goes to the even digit
  const std::uint64_t digits = vr + (((vr == vm && (!even || !vm_exact)) || last_removed >= 5) ? 1 : 0);
  const int exp10 = removed - q;  // v reads as digits * 10^exp10

  // Fixed or scientific, whichever is shorter (fixed on a tie), as std::to_chars.
  const int n = decimal_length(digits);
  const int sci_exp = exp10 + n - 1;
  const int abs_exp = sci_exp < 0 ? -sci_exp : sci_exp;
  const int sci_len = n + (n > 1 ? 1 : 0) + 2 + (abs_exp >= 100 ? 3 : 2);
  const int whole = n + exp10;  // digits before the point
  const int fixed_len = exp10 >= 0 ? n + exp10 : (whole > 0 ? n + 1 : 2 - exp10);
  if (fixed_len <= sci_len) {
    if (exp10 >= 0) {
      put_digits(out, digits, n);
      for (int k = 0; k < exp10; ++k) out[n + k] = '0';
      return out + n + exp10;
    }
    if (whole > 0) {
      put_digits(out + 1, digits, n);
      for (int k = 0; k < whole; ++k) out[k] = out[k + 1];
      out[whole] = '.';
      return out + n + 1;
    }
    out[0] = '0';
    out[1] = '.';
    for (int k = 0; k < -whole; ++k) out[2 + k] = '0';
    put_digits(out + 2 - whole, digits, n);
    return out + 2 - whole + n;
  }
  put_digits(out + 1, digits, n);
  out[0] = out[1];  // the first digit, then the point
  char* p = out + 1;
  if (n > 1) {
    *p = '.';
    p += n;
  }
  *p++ = 'e';
  *p++ = sci_exp < 0 ? '-' : '+';
  if (abs_exp >= 100) *p++ = static_cast<char>('0' + abs_exp / 100);
  put2(p, static_cast<unsigned>(abs_exp % 100));
  return p + 2;
}

}  // namespace stratus
