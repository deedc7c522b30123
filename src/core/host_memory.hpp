// Resident memory of this process on the host, as the kernel reports it: the current resident set and
// its high-water mark since the process started. Linux first (/proc/self/status); elsewhere the high
// water falls back to getrusage. Device memory is not counted here. And a hint for large host arrays
// about to be first touched: transparent huge pages.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace stratus {

/// Peak resident set size of this process in bytes (VmHWM; getrusage ru_maxrss when /proc is not
/// readable); 0 when neither is available.
double host_rss_high_water_bytes();

/// Current resident set size of this process in bytes (VmRSS); 0 when it cannot be read.
double host_rss_bytes();

/// Asks the kernel to back the whole 2 MiB pages within [p, p + bytes) with transparent huge pages
/// (madvise MADV_HUGEPAGE), for host memory not yet touched: the first touch then faults a page in 512
/// times fewer times. On the development machine (a virtual machine whose kernel gives huge pages only on
/// request) touching fresh 4 KiB pages ran at about 360 MB/s and 2 MiB pages at about 12 GB/s. A hint:
/// nothing happens where the kernel has no such pages or refuses, and nothing changes but the speed.
void advise_huge_pages(void* p, std::size_t bytes);

/// Memory for HostBuffer: blocks of kHugeBlock bytes or more are rounded up to whole 2 MiB pages, aligned
/// to them and advised huge pages (advise_huge_pages) before anything touches them; smaller ones come from
/// operator new. From 1 MiB on, the rounding costs at most as much again (a block just over 1 MiB takes a
/// whole 2 MiB page, resident once touched where the kernel gives huge pages), and a block of 1 MiB on 4
/// KiB pages took about 3 ms to first touch here: the rows of a 256k-atom trajectory frame include blocks
/// of 1, 2 and 3 MiB (types, ids and charges, image flags). Throws std::bad_alloc.
constexpr std::size_t kHugeBlock = std::size_t{1} << 20;
void* huge_page_allocate(std::size_t bytes);
void huge_page_free(void* p, std::size_t bytes) noexcept;

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "operator new serves the small blocks");
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / 2 / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(huge_page_allocate(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { huge_page_free(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const HugePageAllocator<U>&) const noexcept {
    return false;
  }
};

/// A host buffer that may grow large (the rows of a trajectory frame or of a checkpoint): its first touch
/// takes huge pages where the kernel gives them.
template <class T>
using HostBuffer = std::vector<T, HugePageAllocator<T>>;

/// A read-only view of the values of a std::vector, a HostBuffer or n values in host memory (C++17 has
/// no std::span), for functions that take any: it holds no memory, and is valid while they are left alone.
template <class T>
class HostSpan {
 public:
  HostSpan() = default;
  template <class Alloc>
  HostSpan(const std::vector<T, Alloc>& v) noexcept : data_(v.data()), size_(v.size()) {}  // NOLINT: implicit
  HostSpan(const T* data, std::size_t size) noexcept : data_(data), size_(size) {}
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }

 private:
  const T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace stratus
