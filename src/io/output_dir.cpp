// check_output_location, check_output_file_name, OutputLock and is_stale_temporary (io/output_dir.hpp).
#include "io/output_dir.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/agree.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

namespace stratus {

namespace fs = std::filesystem;

namespace {

bool has_control(const std::string& s) {
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

std::string shorten(const std::string& s) { return s.size() <= 80 ? s : s.substr(0, 77) + "..."; }

bool all_digits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }
bool ends_with(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

}  // namespace

void check_output_location(const std::string& dir, const std::string& name) {
  STRATUS_INPUT_REQUIRE(!name.empty(), "key 'run.name' must not be empty");
  STRATUS_INPUT_REQUIRE(name.size() <= kMaxRunName, "key 'run.name' is " << name.size() << " characters long, at most "
                                                                         << kMaxRunName << " are allowed");
  STRATUS_INPUT_REQUIRE(!has_control(name), "key 'run.name' contains a control character");
  STRATUS_INPUT_REQUIRE(name.find('/') == std::string::npos && name != "." && name != "..",
                        "key 'run.name' = '" << shorten(name) << "' must be a file prefix without '/'");
  STRATUS_INPUT_REQUIRE(!dir.empty(), "key 'run.output_dir' must not be empty");
  STRATUS_INPUT_REQUIRE(!has_control(dir), "key 'run.output_dir' contains a control character");
  std::error_code ec;
  const fs::path d(dir);
  if (fs::exists(d, ec)) {
    STRATUS_INPUT_REQUIRE(fs::is_directory(d, ec),
                          "key 'run.output_dir' = '" << shorten(dir) << "' exists and is not a directory");
    STRATUS_INPUT_REQUIRE(::access(dir.c_str(), W_OK | X_OK) == 0,
                          "key 'run.output_dir' = '" << shorten(dir) << "' is not writable: " << std::strerror(errno));
    return;
  }
  // The directory will be created: its nearest existing ancestor must be a writable directory.
  fs::path a = d.has_parent_path() ? d.parent_path() : fs::path(".");
  while (!a.empty() && !fs::exists(a, ec))
    a = a.has_parent_path() && a.parent_path() != a ? a.parent_path() : fs::path();
  if (a.empty()) a = ".";
  STRATUS_INPUT_REQUIRE(fs::is_directory(a, ec), "key 'run.output_dir' = '" << shorten(dir) << "' cannot be created: '"
                                                                            << shorten(a.string())
                                                                            << "' is not a directory");
  STRATUS_INPUT_REQUIRE(::access(a.c_str(), W_OK | X_OK) == 0,
                        "key 'run.output_dir' = '" << shorten(dir) << "' cannot be created in '" << shorten(a.string())
                                                   << "': " << std::strerror(errno));
}

void check_output_file_name(const std::string& key, const std::string& file) {
  STRATUS_INPUT_REQUIRE(!has_control(file), "key '" << key << "' contains a control character");
  STRATUS_INPUT_REQUIRE(!file.empty() && file.find('/') == std::string::npos && file != "." && file != "..",
                        "key '" << key << "' = '" << shorten(file)
                                << "' must be a plain file name: it is written into run.output_dir, nowhere else");
  STRATUS_INPUT_REQUIRE(file.size() <= 240,
                        "key '" << key << "' is " << file.size() << " characters long, at most 240 are allowed");
}

namespace {
/// NAME + `rest` is a finished output name (the shared part of is_stale_temporary and is_run_output).
bool is_output_suffix(const std::string& rest) {
  if (rest == ".xmf" || rest == "_history.csv" || rest == ".h5md" || rest == ".data") return true;
  for (const char* ext : {".h5", ".xmf", ".h5md", ".data"}) {
    if (!ends_with(rest, ext)) continue;
    const std::string mid = rest.substr(0, rest.size() - std::strlen(ext));
    if (starts_with(mid, "_chk_") && all_digits(mid.substr(5))) return true;
    if (starts_with(mid, "_from_") && all_digits(mid.substr(6))) return true;
    if (starts_with(mid, "_") && all_digits(mid.substr(1))) return true;
  }
  return false;
}
}  // namespace

bool is_run_output(const std::string& file, const std::string& name) {
  if (!starts_with(file, name)) return false;
  const std::string rest = file.substr(name.size());
  return rest == "_report.json" || rest == ".done" || is_output_suffix(rest);
}

bool is_stale_temporary(const std::string& file, const std::string& name) {
  std::string base;
  if (ends_with(file, ".reserve")) {
    base = file.substr(0, file.size() - 8);
  } else if (ends_with(file, ".tmp")) {
    base = file.substr(0, file.size() - 4);
  } else {
    const std::size_t p = file.rfind(".tmp.");
    if (p == std::string::npos || !all_digits(file.substr(p + 5))) return false;
    base = file.substr(0, p);
  }
  if (!starts_with(base, name)) return false;
  const std::string rest = base.substr(name.size());
  return rest == "_report.json" || rest == ".done" || is_output_suffix(rest);
}

std::pair<int, std::string> move_aside_earlier_run(MPI_Comm comm, const std::string& dir, const std::string& name) {
  int rank = 0;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  int moved = 0;
  std::string target, msg;
  if (rank == 0) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code ec2;
      if (is_run_output(it->path().filename().string(), name) && it->is_regular_file(ec2)) files.push_back(it->path());
    }
    if (!files.empty()) {
      for (int k = 1;; ++k) {
        target = (fs::path(dir) / (name + ".earlier-" + std::to_string(k))).string();
        if (!fs::exists(target, ec)) break;
      }
      if (!fs::create_directory(target, ec) || ec) {
        msg =
            "cannot create '" + target + "' to move the files of an earlier run '" + name + "' aside: " + ec.message();
      } else {
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
          fs::rename(f, fs::path(target) / f.filename(), ec);
          if (ec) {
            msg = "cannot move '" + f.string() + "' into '" + target + "': " + ec.message();
            break;
          }
          ++moved;
        }
      }
    }
  }
  int flag = msg.empty() ? 0 : 1;
  STRATUS_MPI_CHECK(MPI_Bcast(&flag, 1, MPI_INT, 0, comm));
  if (flag) throw CollectiveError(bcast_string(comm, msg));
  STRATUS_MPI_CHECK(MPI_Bcast(&moved, 1, MPI_INT, 0, comm));
  if (moved > 0 && rank == 0)
    log::info("moved " + std::to_string(moved) + " file(s) of an earlier run '" + name + "' to " + target +
              " (a fresh start; to continue that run instead: --restart auto)");
  return {moved, target};
}

OutputLock::OutputLock(MPI_Comm comm, const std::string& dir, const std::string& name) {
  int rank = 0;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  std::string msg;
  bool busy = false;
  if (rank == 0) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    const std::string path = (fs::path(dir) / ("." + name + ".lock")).string();
    if (ec || !fs::is_directory(dir)) {
      msg = "cannot create output directory '" + dir + "': " + (ec ? ec.message() : "not a directory");
    } else if ((fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
      msg = "cannot create the lock file '" + path + "': " + std::strerror(errno);
    } else if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      if (err == EWOULDBLOCK) {
        char holder[256] = {0};
        const ssize_t n = ::pread(fd_, holder, sizeof holder - 1, 0);
        std::string who = n > 0 ? std::string(holder, static_cast<std::size_t>(n)) : std::string();
        while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
        busy = true;
        msg = "run '" + name + "' in '" + dir + "' is being written by another process" +
              (who.empty() ? std::string() : " (" + who + ")") + " (lock file '" + path +
              "'): use another run.name or run.output_dir, or wait for it to end";
      } else {
        // Some network file systems do not support flock: go on without the lock.
        log::warn("cannot lock '" + path + "' (" + std::strerror(err) + "); two runs into '" + dir +
                  "' with the same run.name would overwrite each other");
      }
      if (busy) {
        ::close(fd_);
        fd_ = -1;
      }
    }
    if (msg.empty() && fd_ >= 0) {
      char host[256] = "unknown";
      ::gethostname(host, sizeof host - 1);
      const std::string who = "pid " + std::to_string(static_cast<long>(::getpid())) + " on " + host + "\n";
      if (::ftruncate(fd_, 0) == 0) {
        const ssize_t w = ::pwrite(fd_, who.data(), who.size(), 0);
        (void)w;  // only informative
      }
      // Temporaries of an earlier run of this name that was killed while writing.
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string f = it->path().filename().string();
        std::error_code ec2;
        if (is_stale_temporary(f, name) && it->is_regular_file(ec2)) {
          fs::remove(it->path(), ec2);
          if (!ec2) log::info("removed '" + it->path().string() + "', left by an earlier run that was stopped");
        }
      }
    }
  }
  int flags[2] = {msg.empty() ? 0 : 1, busy ? 1 : 0};
  STRATUS_MPI_CHECK(MPI_Bcast(flags, 2, MPI_INT, 0, comm));
  if (!flags[0]) return;
  msg = bcast_string(comm, msg);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (flags[1]) throw InputError(msg);
  throw CollectiveError(msg);
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the flock
}

}  // namespace stratus
