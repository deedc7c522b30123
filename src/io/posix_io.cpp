// posix_io (io/posix_io.hpp).
#include "io/posix_io.hpp"

#include <unistd.h>

#include <cerrno>

namespace stratus::posix_io {

namespace {

/// The errno of a call that returned k (negative) or moved nothing (0).
int failure(ssize_t k) { return k < 0 ? errno : EIO; }

}  // namespace

int write_all(int fd, const void* p, std::size_t n, off_t at) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t k = at < 0 ? ::write(fd, c, n) : ::pwrite(fd, c, n, at);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return failure(k);
    c += k;
    n -= static_cast<std::size_t>(k);
    if (at >= 0) at += k;
  }
  return 0;
}

int read_all(int fd, void* p, std::size_t n, off_t at) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t k = ::pread(fd, c, n, at);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return failure(k);
    c += k;
    n -= static_cast<std::size_t>(k);
    at += k;
  }
  return 0;
}

int writev_all(int fd, std::vector<iovec>& iov, off_t at) {
  std::size_t first = 0;
  while (first < iov.size()) {
    if (iov[first].iov_len == 0) {
      ++first;
      continue;
    }
    const ssize_t k = ::pwritev(fd, iov.data() + first, static_cast<int>(iov.size() - first), at);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return failure(k);
    at += k;
    for (std::size_t done = static_cast<std::size_t>(k); done > 0;) {  // a short write: skip what went
      const std::size_t d = done < iov[first].iov_len ? done : iov[first].iov_len;
      iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + d;
      iov[first].iov_len -= d;
      done -= d;
      if (iov[first].iov_len == 0) ++first;
    }
  }
  iov.clear();
  return 0;
}

}  // namespace stratus::posix_io
