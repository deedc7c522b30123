// Whole transfers through POSIX file descriptors: the loops every caller of write(2), pwrite(2),
// pwritev(2) and pread(2) needs around a short transfer or an interrupted call. Each returns 0 or the
// errno of the failure (EIO where a call moved no byte), so that the caller names the file in its message.
#pragma once
#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <vector>

namespace stratus::posix_io {

/// Writes the n bytes at p to fd at offset `at`, or at the file position where `at` is negative.
int write_all(int fd, const void* p, std::size_t n, off_t at = -1);

/// Reads n bytes of fd at offset `at` into p; a file that ends first is EIO.
int read_all(int fd, void* p, std::size_t n, off_t at);

/// Writes the pieces of iov (at most IOV_MAX) to fd from offset `at`, one after the other; consumes iov.
int writev_all(int fd, std::vector<iovec>& iov, off_t at);

}  // namespace stratus::posix_io
