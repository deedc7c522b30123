// reserve_space and space_hint (io/space.hpp).
#include "io/space.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/agree.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

namespace stratus {

namespace {

std::string dir_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

/// Bytes available to this user on the file system of dir, or -1 when statvfs fails.
double free_bytes(const std::string& dir) {
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0) return -1.0;
  return static_cast<double>(st.f_bavail) * static_cast<double>(st.f_frsize);
}

bool check_disabled() {
  const char* env = std::getenv("STRATUS_IO_RESERVE");
  return env && std::strcmp(env, "0") == 0;
}

/// Rank 0's check; empty when the bytes fit.
std::string try_reserve(const std::string& path, double bytes) {
  const std::string dir = dir_of(path);
  const auto shortage = [&](int err) {
    return "cannot write '" + path + "': " + std::strerror(err) + " (" +
           log::bytes_text(std::max(0.0, free_bytes(dir))) + " free in '" + dir + "', about " + log::bytes_text(bytes) +
           " needed)";
  };
  const std::string scratch = path + ".reserve";
  const int fd = ::open(scratch.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOSPC || err == EDQUOT) return shortage(err);
    return "cannot write '" + path + "': cannot create a file in '" + dir + "': " + std::strerror(err);
  }
  const off_t len = static_cast<off_t>(std::ceil(bytes));
  // fallocate(2) itself, not posix_fallocate: glibc would emulate a missing one by writing every block.
  int rc = len > 0 && ::fallocate(fd, 0, 0, len) != 0 ? errno : 0;
  ::close(fd);
  ::unlink(scratch.c_str());
  if (rc == EOPNOTSUPP || rc == ENOSYS || rc == EINVAL) {
    // No fallocate here (some network file systems): compare with the free space instead.
    const double avail = free_bytes(dir);
    rc = (avail >= 0.0 && avail < bytes) ? ENOSPC : 0;
  }
  return rc == 0 ? std::string() : shortage(rc);
}

/// Rank 0's check for a file about to be created at path: creates it empty and allocates its data bytes
/// beyond its end, where the writer's blocks will land, and asks statvfs for the metadata's few more;
/// empty when they fit (the file stays), else why (the file is removed).
std::string try_reserve_in_file(const std::string& path, double data_bytes, double bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return try_reserve(path, bytes);  // the same check reports why
  const off_t len = static_cast<off_t>(std::ceil(data_bytes));
  const int rc = len > 0 && ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, len) != 0 ? errno : 0;
  ::close(fd);
  if (rc == 0) {
    const double avail = free_bytes(dir_of(path));
    if (avail < 0.0 || avail >= bytes - data_bytes) return {};
  }
  // No room, or no fallocate here: the scratch-file check decides, with its message.
  ::unlink(path.c_str());
  return try_reserve(path, bytes);
}

/// Rank 0's check for bytes appended to the existing file at path; empty when they fit.
std::string try_reserve_appended(const std::string& path, double bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return try_reserve(path, bytes);  // the same check reports why
  struct stat st {};
  int rc = ::fstat(fd, &st) == 0 ? 0 : errno;
  const off_t len = static_cast<off_t>(std::ceil(bytes));
  if (rc == 0 && len > 0 && ::fallocate(fd, FALLOC_FL_KEEP_SIZE, st.st_size, len) != 0) {
    rc = errno;
    (void)::ftruncate(fd, st.st_size);  // frees what a failed allocation left beyond the end
  }
  ::close(fd);
  // No room, or no fallocate here: the scratch-file check decides, with its message.
  return rc == 0 ? std::string() : try_reserve(path, bytes);
}

/// Collective: rank 0's check (unless STRATUS_IO_RESERVE=0), its outcome on every rank.
template <class Check>
void check_on_rank0(MPI_Comm comm, Check check) {
  int rank = 0;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  std::string msg;
  if (rank == 0 && !check_disabled()) msg = check();
  agree_or_throw(comm, msg.empty(), msg);
}

}  // namespace

double with_metadata(double raw_bytes) { return raw_bytes * 1.01 + 16.0 * 1024.0; }

void reserve_space(MPI_Comm comm, const std::string& path, double bytes) {
  check_on_rank0(comm, [&] { return try_reserve(path, bytes); });
}

void reserve_in_file(MPI_Comm comm, const std::string& path, double data_bytes) {
  check_on_rank0(comm, [&] { return try_reserve_in_file(path, data_bytes, with_metadata(data_bytes)); });
}

void reserve_appended(MPI_Comm comm, const std::string& path, double bytes) {
  check_on_rank0(comm, [&] { return try_reserve_appended(path, bytes); });
}

void trim_reserved(const std::string& path, double data_bytes) {
  struct stat st {};
  // Truncating to the present length frees the blocks allocated beyond it (ext4, XFS, tmpfs); it costs a
  // journal transaction, so only a file shorter than its data (compressed) gets it.
  if (!check_disabled() && ::stat(path.c_str(), &st) == 0 && static_cast<double>(st.st_size) < std::ceil(data_bytes))
    (void)::truncate(path.c_str(), st.st_size);
}

std::string space_hint(const std::string& path) {
  const double avail = free_bytes(dir_of(path));
  if (avail < 0.0 || avail >= 1024.0 * 1024.0) return {};
  return " (" + std::string(std::strerror(ENOSPC)) + ": " + log::bytes_text(avail) + " free in '" + dir_of(path) + "')";
}

}  // namespace stratus
