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
  StagedFiles(files, durability).commit();
}

StagedFiles::StagedFiles(const std::vector<std::pair<std::string, std::string>>& files, Durability durability)
    : sync_(durability == Durability::synced) {
  std::vector<int> fds;
  try {
    fds.reserve(files.size());
    files_.reserve(files.size());
    for (const auto& [path, text] : files) {
      const std::string tmp = path + ".tmp." + std::to_string(::getpid());
      const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) throw Error("cannot write '" + path + "': cannot create '" + tmp + "': " + std::strerror(errno));
      fds.push_back(fd);
      files_.push_back(Pending{path, tmp});
      const int err = write_all(fd, text);
      if (err != 0) throw Error("cannot write '" + path + "' (through '" + tmp + "'): " + std::strerror(err));
#ifdef SYNC_FILE_RANGE_WRITE
      // Starts this file's write-back now, so that the first fsync below can commit the others' data too.
      if (sync_) (void)::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      int err = 0;
      if (sync_ && ::fsync(fds[i]) != 0 && errno != EINVAL && errno != EROFS) err = errno;  // EINVAL: no sync
      if (::close(fds[i]) != 0 && err == 0) err = errno;
      fds[i] = -1;
      if (err != 0)
        throw Error("cannot write '" + files_[i].path + "' (through '" + files_[i].tmp + "'): " + std::strerror(err));
    }
  } catch (...) {
    // (The destructor does not run for an object whose constructor throws.)
    for (int fd : fds)
      if (fd >= 0) ::close(fd);
    discard();
    throw;
  }
}

StagedFiles::StagedFiles(StagedFiles&& other) noexcept
    : files_(std::move(other.files_)), renamed_(other.renamed_), sync_(other.sync_) {
  other.files_.clear();
  other.renamed_ = 0;
}

StagedFiles& StagedFiles::operator=(StagedFiles&& other) noexcept {
  if (this != &other) {
    discard();
    files_ = std::move(other.files_);
    renamed_ = other.renamed_;
    sync_ = other.sync_;
    other.files_.clear();
    other.renamed_ = 0;
  }
  return *this;
}

StagedFiles::~StagedFiles() { discard(); }

void StagedFiles::discard() noexcept {
  for (std::size_t i = renamed_; i < files_.size(); ++i) (void)::unlink(files_[i].tmp.c_str());
  files_.clear();
  renamed_ = 0;
}

void StagedFiles::commit() {
  std::set<std::string> dirs;
  for (; renamed_ < files_.size(); ++renamed_) {
    const Pending& p = files_[renamed_];
    const std::error_code ec = move_into_place(p.tmp, p.path, sync_);
    if (ec) {
      const std::string what = "cannot rename '" + p.tmp + "' to '" + p.path + "': " + ec.message();
      discard();
      throw Error(what);
    }
    const std::string dir = std::filesystem::path(p.path).parent_path().string();
    dirs.insert(dir.empty() ? "." : dir);
  }
  files_.clear();
  renamed_ = 0;
  // The renames are durable once their directories are; some file systems cannot sync a directory, and
  // the renames stand either way.
  if (!sync_) return;
  for (const auto& dir : dirs) {
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      (void)::fsync(dfd);
      ::close(dfd);
    }
  }
}

}  // namespace stratus
