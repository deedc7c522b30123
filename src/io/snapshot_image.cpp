// SnapshotImage (io/snapshot_image.hpp).
#include "io/snapshot_image.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "core/error.hpp"
#include "io/hdf5_util.hpp"
#include "io/posix_io.hpp"

namespace stratus {

namespace {

/// pread(2) or pwrite(2) of n bytes at `at`, all of them; throws Error naming the file.
void transfer(bool out, int fd, char* p, std::size_t n, off_t at, const std::string& path) {
  if (const int err = out ? posix_io::write_all(fd, p, n, at) : posix_io::read_all(fd, p, n, at))
    throw Error(std::string(out ? "cannot write '" : "cannot read '") + path + "': " + std::strerror(err));
}

constexpr std::size_t kSuperblock = 48;  // version 2, 8-byte addresses and lengths

/// Memory lent to HDF5's core driver by file image callbacks (open_in_memory): no copy of it, no
/// allocation or release, and growth only within the capacity allocated.
struct Lent {
  char* bytes;
  std::size_t capacity;
};

}  // namespace

struct SnapshotImage::Copy {
  Copy() = default;
  Copy(const Copy&) = delete;
  Copy& operator=(const Copy&) = delete;
  /// Closes the in-memory file before its memory goes. Raw closes, not h5::Handle's: those leave a handle
  /// open while an exception unwinds after a failed HDF5 call with an output file open, and HDF5 would then
  /// keep a file on freed memory. If the file will not close, its memory is kept (leaked) for the same
  /// reason.
  ~Copy() {
    for (hid_t a : {time, step})
      if (a >= 0) H5Aclose(a);
    if (time_coordinate >= 0) H5Dclose(time_coordinate);
    const bool closed = file < 0 || H5Fclose(file) >= 0;
    if (bytes && closed) ::munmap(bytes, capacity);
  }
  std::vector<GridVariable> vars;
  std::vector<std::uint64_t> offsets;                 // where each field's cells start
  std::vector<std::pair<off_t, std::size_t>> pieces;  // every other byte of the file: (offset, length)
  char* bytes = nullptr;                              // the file, cells zero: capacity bytes mapped
  std::string superblock;                             // the file's first kSuperblock bytes
  std::size_t size = 0, capacity = 0;
  Lent lent{};                                                  // lent to HDF5 (the callbacks' user data)
  hid_t file = -1, time = -1, step = -1, time_coordinate = -1;  // `bytes` open through the core driver
};

SnapshotImage::SnapshotImage() = default;
SnapshotImage::~SnapshotImage() = default;

bool SnapshotImage::fits(const std::vector<GridVariable>& v) const {
  if (!copy_ || v.size() != copy_->vars.size()) return false;
  for (std::size_t q = 0; q < v.size(); ++q)
    if (v[q].name != copy_->vars[q].name || v[q].unit != copy_->vars[q].unit) return false;
  return true;
}

const std::vector<std::uint64_t>& SnapshotImage::offsets() const { return copy_->offsets; }

void SnapshotImage::clear() { copy_.reset(); }

namespace {

/// File image callbacks (H5Pset_file_image_callbacks) on a Lent: see there.
void* lent_malloc(std::size_t size, H5FD_file_image_op_t, void* u) {
  Lent* l = static_cast<Lent*>(u);
  return size <= l->capacity ? l->bytes : nullptr;
}
void* lent_memcpy(void* dest, const void* src, std::size_t size, H5FD_file_image_op_t, void*) {
  if (dest != src) std::memcpy(dest, src, size);
  return dest;
}
void* lent_realloc(void* ptr, std::size_t size, H5FD_file_image_op_t, void* u) {
  Lent* l = static_cast<Lent*>(u);
  return ptr == l->bytes && size <= l->capacity ? ptr : nullptr;
}
herr_t lent_free(void*, H5FD_file_image_op_t, void*) { return 0; }
void* lent_udata_copy(void* u) { return u; }
herr_t lent_udata_free(void*) { return 0; }

/// Opens the `size` bytes of `lent` read-write through the core driver (nothing on disk), on that memory
/// itself, under a name of its own (the core driver takes files of the same name for one file).
hid_t open_in_memory(Lent& lent, std::size_t size) {
  static std::atomic<unsigned long> count{0};
  const std::string name = "stratus-snapshot-copy-" + std::to_string(::getpid()) + "-" + std::to_string(++count);
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return -1;
  constexpr std::size_t kIncrement = 64 * 1024;  // the core driver grows and trims its file in these steps
  H5FD_file_image_callbacks_t callbacks = {&lent_malloc,     &lent_memcpy,     &lent_realloc, &lent_free,
                                           &lent_udata_copy, &lent_udata_free, &lent};
  hid_t file = -1;
  if (H5Pset_fapl_core(fapl, kIncrement, false) >= 0 && H5Pset_file_image_callbacks(fapl, &callbacks) >= 0 &&
      H5Pset_file_image(fapl, lent.bytes, size) >= 0)
    file = H5Fopen(name.c_str(), H5F_ACC_RDWR, fapl);
  H5Pclose(fapl);
  return file;
}

/// Throws Error for a failed HDF5 call on the copy. Not h5::check_status: the copy is no output file, and
/// its failure is no reason to abandon the files open for writing.
void need(bool ok, const char* what) {
  if (!ok) throw Error(std::string("HDF5: ") + what + " failed");
}

}  // namespace

void SnapshotImage::take(const std::string& path, const std::vector<GridVariable>& vars,
                         const std::vector<std::uint64_t>& offsets, const LocalGrid& g) {
  copy_.reset();
  auto c = std::make_unique<Copy>();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open '" + path + "': " + std::strerror(errno));
  try {
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw Error("cannot stat '" + path + "': " + std::strerror(errno));
    c->size = static_cast<std::size_t>(st.st_size);
    c->capacity = c->size + 128 * 1024;  // room for the core driver's rounding up (64 KiB steps)
    // Mapped, not allocated: zero pages that only the pieces touch, and no reservation of the cells'
    // size against a strict overcommit limit.
    void* m = ::mmap(nullptr, c->capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) throw Error("no memory for a copy of '" + path + "': " + std::strerror(errno));
    c->bytes = static_cast<char*>(m);
    const off_t cells = static_cast<off_t>(sizeof(double)) * g.global_n[0] * g.global_n[1] * g.global_n[2];
    std::vector<off_t> starts(offsets.begin(), offsets.end());
    std::sort(starts.begin(), starts.end());
    starts.push_back(st.st_size);  // then the bytes after the last field, up to the end
    off_t at = 0;
    for (off_t b : starts) {
      if (b > at) {
        const std::size_t n = static_cast<std::size_t>(b - at);
        transfer(false, fd, c->bytes + at, n, at, path);
        c->pieces.emplace_back(at, n);
      }
      at = std::max(at, b + cells);
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  // HDF5 marks a superblock it opens for writing (its consistency flags, and so its checksum) until the
  // close, which the copy never has: put() writes the file's own superblock (version 2 with 8-byte
  // addresses: 48 bytes, whose end-of-file and root addresses the time and step do not change).
  const unsigned char* b = reinterpret_cast<const unsigned char*>(c->bytes);
  if (c->size < kSuperblock || b[8] != 2 || b[9] != 8)
    throw Error("'" + path + "' does not start with a version 2 superblock of 8-byte addresses");
  c->superblock.assign(c->bytes, kSuperblock);
  c->lent = Lent{c->bytes, c->capacity};
  h5::QuietErrors quiet;
  need((c->file = open_in_memory(c->lent, c->size)) >= 0, "open a copy of a snapshot");
  need((c->time = H5Aopen(c->file, "time", H5P_DEFAULT)) >= 0, "open attribute time of a copy");
  need((c->step = H5Aopen(c->file, "step", H5P_DEFAULT)) >= 0, "open attribute step of a copy");
  need((c->time_coordinate = H5Dopen2(c->file, "time", H5P_DEFAULT)) >= 0, "open /time of a copy");
  c->vars = vars;
  c->offsets = offsets;
  copy_ = std::move(c);
}

void SnapshotImage::stamp(long step, double time) {
  Copy& c = *copy_;
  const std::int64_t step64 = step;
  h5::QuietErrors quiet;
  need(H5Awrite(c.time, H5T_NATIVE_DOUBLE, &time) >= 0, "set the time of a copy");
  need(H5Awrite(c.step, H5T_NATIVE_INT64, &step64) >= 0, "set the step of a copy");
  need(H5Dwrite(c.time_coordinate, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &time) >= 0,
       "set /time of a copy");
  need(H5Fflush(c.file, H5F_SCOPE_LOCAL) >= 0, "flush a copy");
  // The flush writes the superblock, marked open for writing; its addresses (base, extension, end of file,
  // root group: bytes 12-43) must be the file's, or the copy would have grown past the bytes put() writes.
  if (std::memcmp(c.bytes + 12, c.superblock.data() + 12, 32) != 0)
    throw Error("the copy of a snapshot changed its layout");
  std::memcpy(c.bytes, c.superblock.data(), kSuperblock);
}

void SnapshotImage::put(const std::string& path) const {
  const Copy& c = *copy_;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw Error("cannot open '" + path + "' for writing: " + std::strerror(errno));
  try {
    for (const auto& [at, n] : c.pieces) transfer(true, fd, c.bytes + at, n, at, path);
    struct stat st {};
    const off_t end = static_cast<off_t>(c.size);
    if (::fstat(fd, &st) != 0 || (st.st_size > end && ::ftruncate(fd, end) != 0))
      throw Error("cannot write '" + path + "': " + std::strerror(errno));
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) throw Error("cannot write '" + path + "': " + std::strerror(errno));
}

}  // namespace stratus
