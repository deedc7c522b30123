// Small RAII owners for HDF5 C API identifiers (file, group, dataset, dataspace, datatype, property
// list, attribute) and helpers that write scalar, small-array and string attributes with explicit
// little-endian file types. Every failure becomes a stratus::Error naming the operation and object, so
// callers need no return-code checks and nothing leaks when an exception unwinds. These helpers know
// nothing about MPI: whether a call is collective is the caller's business (in parallel HDF5 every rank
// must create and write each attribute with identical values).
#pragma once
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stratus::h5 {

/// Throws Error("<what> failed") when id is negative; returns id otherwise.
hid_t check_id(hid_t id, const std::string& what);
/// Throws Error("<what> failed") when status is negative.
void check_status(herr_t status, const std::string& what);

/// Owns one identifier and closes it with Close. Move-only; a default-constructed handle owns nothing.
template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() = default;
  /// Takes ownership of id; throws (and owns nothing) when id is negative.
  Handle(hid_t id, const std::string& what) : id_(check_id(id, what)) {}
  ~Handle() {
    // A destructor cannot report failure; HDF5 still prints its own error stack if closing fails.
    if (id_ >= 0) Close(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : id_(o.id_) { o.id_ = -1; }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      if (id_ >= 0) Close(id_);
      id_ = o.id_;
      o.id_ = -1;
    }
    return *this;
  }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Closes now and reports failure (for files, whose close flushes data that must reach the disk).
  void close(const std::string& what) {
    if (id_ < 0) return;
    const hid_t id = id_;
    id_ = -1;
    check_status(Close(id), what);
  }

 private:
  hid_t id_ = -1;
};

using File = Handle<H5Fclose>;
using Group = Handle<H5Gclose>;
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using Datatype = Handle<H5Tclose>;
using PropList = Handle<H5Pclose>;
using Attribute = Handle<H5Aclose>;

/// Turns off HDF5's automatic error-stack printing for its lifetime (for calls whose failure is
/// reported through an Error instead, such as opening a file at a bad path).
class QuietErrors {
 public:
  QuietErrors();
  ~QuietErrors();
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

/// The most specific message on the current HDF5 error stack (empty if none): call right after a failure.
std::string last_error();

/// A fixed-length, NUL-terminated UTF-8 string type holding `length` characters (plus the terminator).
Datatype string_type(std::size_t length);

/// Attribute writers. `obj` is a file, group or dataset; an existing attribute of that name is an error.
void write_attribute(hid_t obj, const std::string& name, const std::string& value);
void write_attribute_f64(hid_t obj, const std::string& name, double value);
void write_attribute_i64(hid_t obj, const std::string& name, std::int64_t value);
void write_attribute_i32(hid_t obj, const std::string& name, int value);
void write_attribute_f64(hid_t obj, const std::string& name, const double* values, std::size_t n);
void write_attribute_i32(hid_t obj, const std::string& name, const int* values, std::size_t n);

/// Writes the block `count` at `start` of dataset ds from buf through transfer list dxpl (collective when
/// dxpl says so: every rank calls, a rank with select false or an empty count writes nothing). A dataset
/// without elements is skipped (it has no storage). `what` names the dataset in errors.
void write_selection(hid_t ds, hid_t mem_type, const std::vector<hsize_t>& start, const std::vector<hsize_t>& count,
                     bool select, const void* buf, hid_t dxpl, const std::string& what);

}  // namespace stratus::h5
