// write_file_atomically and write_files_atomically with POSIX calls rather than streams, so that a
// failure (a full disk, a missing directory) reports the system's reason. The pid in the temporary's name
// keeps two processes that write the same path from writing into one temporary; output_dir's stale-file
// clean-up recognises the ".tmp.<digits>" suffix. Several files written together share the waits: all
// temporaries are written before any is synced, and each directory is synced once after the renames, so
// two files cost about what one did while every file is still synced before its rename. Durability::renamed
// skips every sync: the rename is what a kill cannot split. It also replaces an existing file by exchanging
// the two names (renameat2 RENAME_EXCHANGE) and removing the old file: ext4 writes back a file renamed over
// another at once (auto_da_alloc, a guard against empty files after a power loss, which these files are
// allowed), a journal wait of 0.1 ms on a quiet disk and milliseconds on a busy one; an exchange skips
// it. Where the file system cannot exchange, a plain rename does.
#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <system_error>

#include "core/error.hpp"
#include "io/posix_io.hpp"

namespace stratus {

namespace {

/// Writes all of text to fd; 0 or the errno of the failure.
int write_all(int fd, const std::string& text) { return posix_io::write_all(fd, text.data(), text.size()); }

struct Pending {
  std::string path, tmp;
  int fd = -1;
};

/// Closes every open temporary and removes every temporary not yet renamed.
void discard(std::vector<Pending>& files, std::size_t renamed) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (files[i].fd >= 0) ::close(files[i].fd);
    files[i].fd = -1;
    if (i >= renamed && !files[i].tmp.empty()) ::unlink(files[i].tmp.c_str());
  }
}

/// Moves tmp to path; synced files by rename, others as the file comment says.
std::error_code move_into_place(const std::string& tmp, const std::string& path, bool sync) {
#ifdef RENAME_EXCHANGE
  struct stat st {};
  if (!sync && ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    (void)::unlink(tmp.c_str());  // the old file now; a kill before this leaves it as a stale temporary
    return {};
  }
#endif
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return ec;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text, Durability durability) {
  write_files_atomically({{path, text}}, durability);
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files, Durability durability) {
  const bool sync = durability == Durability::synced;
  std::vector<Pending> p(files.size());
  const auto fail = [&](std::size_t i, const std::string& what, std::size_t renamed) {
    discard(p, renamed);
    throw Error(what.empty() ? "cannot write '" + files[i].first + "'" : what);
  };
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string& path = files[i].first;
    p[i].path = path;
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    p[i].fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (p[i].fd < 0) fail(i, "cannot write '" + path + "': cannot create '" + tmp + "': " + std::strerror(errno), 0);
    p[i].tmp = tmp;
    const int err = write_all(p[i].fd, files[i].second);
    if (err != 0) fail(i, "cannot write '" + path + "' (through '" + tmp + "'): " + std::strerror(err), 0);
#ifdef SYNC_FILE_RANGE_WRITE
    // Starts this file's write-back now, so that the first fsync below can commit the others' data too.
    if (sync) (void)::sync_file_range(p[i].fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
  }
  for (std::size_t i = 0; i < p.size(); ++i) {
    int err = 0;
    if (sync && ::fsync(p[i].fd) != 0 && errno != EINVAL && errno != EROFS) err = errno;  // EINVAL: no sync
    if (::close(p[i].fd) != 0 && err == 0) err = errno;
    p[i].fd = -1;
    if (err != 0) fail(i, "cannot write '" + p[i].path + "' (through '" + p[i].tmp + "'): " + std::strerror(err), 0);
  }
  std::set<std::string> dirs;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const std::error_code ec = move_into_place(p[i].tmp, p[i].path, sync);
    if (ec) fail(i, "cannot rename '" + p[i].tmp + "' to '" + p[i].path + "': " + ec.message(), i);
    const std::string dir = std::filesystem::path(p[i].path).parent_path().string();
    dirs.insert(dir.empty() ? "." : dir);
  }
  // The renames are durable once their directories are; some file systems cannot sync a directory, and
  // the renames stand either way.
  if (!sync) return;
  for (const auto& dir : dirs) {
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      (void)::fsync(dfd);
      ::close(dfd);
    }
  }
}

}  // namespace stratus
