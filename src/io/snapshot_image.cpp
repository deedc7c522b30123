// SnapshotImage (io/snapshot_image.hpp).
#include "io/snapshot_image.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "core/error.hpp"
#include "io/hdf5_util.hpp"

namespace stratus {

namespace {

/// pread(2) or pwrite(2) of n bytes at `at`, all of them; throws Error naming the file.
void transfer(bool out, int fd, char* p, std::size_t n, off_t at, const std::string& path) {
  while (n > 0) {
    const ssize_t k = out ? ::pwrite(fd, p, n, at) : ::pread(fd, p, n, at);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      const int err = k < 0 ? errno : EIO;
      throw Error(std::string(out ? "cannot write '" : "cannot read '") + path + "': " + std::strerror(err));
    }
    p += k;
    n -= static_cast<std::size_t>(k);
    at += k;
  }
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
  std::vector<GridVariable> vars;
  std::vector<std::uint64_t> offsets;                 // where each field's cells start
  std::vector<std::pair<off_t, std::size_t>> pieces;  // every other byte of the file: (offset, length)
  std::unique_ptr<char, decltype(&std::free)> bytes{nullptr, &std::free};  // the file, cells zero
  std::string superblock;                                                  // the file's first kSuperblock bytes
  std::size_t size = 0, capacity = 0;
  Lent lent{};    // lent to HDF5 (the callbacks' user data)
  h5::File file;  // `bytes` open through the core driver; closed before bytes is freed (declared after)
  h5::Attribute time, step;
  h5::Dataset time_coordinate;
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
/// itself; `path` names the file they are a copy of.
h5::File open_in_memory(Lent& lent, std::size_t size, const std::string& path) {
  h5::PropList fapl(H5Pcreate(H5P_FILE_ACCESS), "create file access property list");
  constexpr std::size_t kIncrement = 64 * 1024;  // the core driver grows and trims its file in these steps
  h5::check_status(H5Pset_fapl_core(fapl.get(), kIncrement, false), "select the core driver");
  H5FD_file_image_callbacks_t callbacks = {&lent_malloc,     &lent_memcpy,     &lent_realloc, &lent_free,
                                           &lent_udata_copy, &lent_udata_free, &lent};
  h5::check_status(H5Pset_file_image_callbacks(fapl.get(), &callbacks), "set file image callbacks");
  h5::check_status(H5Pset_file_image(fapl.get(), lent.bytes, size), "set the file image");
  return h5::File(H5Fopen(("copy of " + path).c_str(), H5F_ACC_RDWR, fapl.get()), "open a copy of '" + path + "'");
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
    c->bytes.reset(static_cast<char*>(std::calloc(c->capacity, 1)));
    if (!c->bytes) throw Error("no memory for a copy of '" + path + "'");
    const off_t cells = static_cast<off_t>(sizeof(double)) * g.global_n[0] * g.global_n[1] * g.global_n[2];
    std::vector<off_t> starts(offsets.begin(), offsets.end());
    std::sort(starts.begin(), starts.end());
    starts.push_back(st.st_size);  // then the bytes after the last field, up to the end
    off_t at = 0;
    for (off_t b : starts) {
      if (b > at) {
        const std::size_t n = static_cast<std::size_t>(b - at);
        transfer(false, fd, c->bytes.get() + at, n, at, path);
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
  const unsigned char* b = reinterpret_cast<const unsigned char*>(c->bytes.get());
  if (c->size < kSuperblock || b[8] != 2 || b[9] != 8)
    throw Error("'" + path + "' does not start with a version 2 superblock of 8-byte addresses");
  c->superblock.assign(c->bytes.get(), kSuperblock);
  c->lent = Lent{c->bytes.get(), c->capacity};
  c->file = open_in_memory(c->lent, c->size, path);
  c->time = h5::Attribute(H5Aopen(c->file.get(), "time", H5P_DEFAULT), "open attribute time of the copy");
  c->step = h5::Attribute(H5Aopen(c->file.get(), "step", H5P_DEFAULT), "open attribute step of the copy");
  c->time_coordinate = h5::Dataset(H5Dopen2(c->file.get(), "time", H5P_DEFAULT), "open /time of the copy");
  c->vars = vars;
  c->offsets = offsets;
  copy_ = std::move(c);
}

void SnapshotImage::stamp(long step, double time) {
  Copy& c = *copy_;
  const std::int64_t step64 = step;
  h5::check_status(H5Awrite(c.time.get(), H5T_NATIVE_DOUBLE, &time), "set the time of a copy");
  h5::check_status(H5Awrite(c.step.get(), H5T_NATIVE_INT64, &step64), "set the step of a copy");
  h5::check_status(H5Dwrite(c.time_coordinate.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &time),
                   "set /time of a copy");
  h5::check_status(H5Fflush(c.file.get(), H5F_SCOPE_LOCAL), "flush a copy");
  // The flush writes the superblock, marked open for writing; its addresses (base, extension, end of file,
  // root group: bytes 12-43) must be the file's, or the copy would have grown past the bytes put() writes.
  if (std::memcmp(c.bytes.get() + 12, c.superblock.data() + 12, 32) != 0)
    throw Error("the copy of a snapshot changed its layout");
  std::memcpy(c.bytes.get(), c.superblock.data(), kSuperblock);
}

void SnapshotImage::put(const std::string& path) const {
  const Copy& c = *copy_;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw Error("cannot open '" + path + "' for writing: " + std::strerror(errno));
  try {
    for (const auto& [at, n] : c.pieces) transfer(true, fd, c.bytes.get() + at, n, at, path);
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
