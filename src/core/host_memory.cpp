// Reads VmHWM / VmRSS ("<number> kB" lines) from /proc/self/status; getrusage backs up the high water.
// ru_maxrss is in kilobytes on Linux. Never throws: a missing value is reported as 0.
#include "core/host_memory.hpp"

#include <sys/mman.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>

namespace stratus {
namespace {

constexpr std::size_t kHugePage = std::size_t{1} << 21;  // 2 MiB, the transparent huge page of x86-64

/// The value of `field` ("VmHWM:") in /proc/self/status in bytes, or -1 when absent.
double proc_status_bytes(const char* field) {
  std::ifstream in("/proc/self/status");
  const std::string f(field);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, f.size(), f) != 0) continue;
    char* end = nullptr;
    const double kb = std::strtod(line.c_str() + f.size(), &end);
    if (end == line.c_str() + f.size()) return -1.0;
    return kb * 1024.0;
  }
  return -1.0;
}

}  // namespace

double host_rss_high_water_bytes() {
  const double hwm = proc_status_bytes("VmHWM:");
  if (hwm >= 0.0) return hwm;
  struct rusage ru {};
  if (::getrusage(RUSAGE_SELF, &ru) == 0) return static_cast<double>(ru.ru_maxrss) * 1024.0;
  return 0.0;
}

double host_rss_bytes() {
  const double rss = proc_status_bytes("VmRSS:");
  return rss >= 0.0 ? rss : 0.0;
}

void advise_huge_pages(void* p, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t kHuge = kHugePage;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (p != nullptr && end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

void* huge_page_allocate(std::size_t bytes) {
  if (bytes < kHugeBlock) return ::operator new(bytes);
  const std::size_t rounded = (bytes + kHugePage - 1) & ~(kHugePage - 1);  // aligned_alloc wants a multiple
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
  advise_huge_pages(p, rounded);
  return p;
}

void huge_page_free(void* p, std::size_t bytes) noexcept {
  if (bytes < kHugeBlock)
    ::operator delete(p);
  else
    std::free(p);
}

}  // namespace stratus
