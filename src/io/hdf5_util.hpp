// Small RAII owners for HDF5 C API identifiers (file, group, dataset, dataspace, datatype, property
// list, attribute) and helpers that write scalar, small-array and string attributes with explicit
// little-endian file types. Every failure becomes a stratus::Error naming the operation and object, so
// callers need no return-code checks and nothing leaks when an exception unwinds. These helpers know
// nothing about MPI: whether a call is collective is the caller's business (in parallel HDF5 every rank
// must create and write each attribute with identical values).
#pragma once
#include <hdf5.h>

#include <exception>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stratus::h5 {

/// Throws Error("HDF5: <what> failed: <HDF5's innermost message>") when id is negative; returns id otherwise.
hid_t check_id(hid_t id, const std::string& what);
/// Throws Error("HDF5: <what> failed: ...") when status is negative.
void check_status(herr_t status, const std::string& what);
/// Turns HDF5's automatic error-stack printing off for the process: failures are reported through
/// Error messages that carry HDF5's innermost message (the executable calls this once at start-up).
void silence_library_errors();

/// Output files (created or opened for writing) currently open in this process, and whether an HDF5 call
/// failed while one was. After such a failure the library's state on this rank may no longer match the
/// other ranks', and closing a file under MPI-IO is collective: a close then can block for ever, or crash at
/// MPI_Finalize. So while an exception unwinds after a failed HDF5 call with an output file open, handles
/// are abandoned, not closed, and `abandoned()` turns true: the process must then end without finalising
/// HDF5 (the executable calls MPI_Abort, or _Exit on one rank). An output file whose close failed (its
/// metadata could not be written: a full disk) stays open inside HDF5 and is abandoned the same way.
int output_files_open();
bool abandoned();
/// A write into an open output file failed outside HDF5 (raw data written with POSIX calls): its handles
/// are abandoned like after a failed HDF5 call.
void output_write_failed();
namespace detail {
void output_file_opened();
void output_file_closed();
void note_failure();
bool abandon_on_unwind();
void abandon_failed_close();
}  // namespace detail

/// Owns one identifier and closes it with Close. Move-only; a default-constructed handle owns nothing.
template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() = default;
  /// Takes ownership of id; throws (and owns nothing) when id is negative.
  Handle(hid_t id, const std::string& what) : id_(check_id(id, what)) {}
  ~Handle() {
    // A destructor cannot report failure; HDF5's error printing is off, so a failed close is silent.
    release();
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : id_(o.id_), output_(o.output_) {
    o.id_ = -1;
    o.output_ = false;
  }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      release();
      id_ = o.id_;
      output_ = o.output_;
      o.id_ = -1;
      o.output_ = false;
    }
    return *this;
  }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Marks a file handle as an output file (see output_files_open()).
  void mark_output() {
    if (id_ >= 0 && !output_) {
      output_ = true;
      detail::output_file_opened();
    }
  }
  /// Closes now and reports failure (for files, whose close flushes data that must reach the disk).
  void close(const std::string& what) {
    if (id_ < 0) return;
    const hid_t id = id_;
    id_ = -1;
    const herr_t status = Close(id);
    if (status < 0 && output_) detail::abandon_failed_close();
    if (output_) detail::output_file_closed();
    output_ = false;
    check_status(status, what);
  }

 private:
  void release() noexcept {
    if (id_ < 0) return;
    if (!detail::abandon_on_unwind()) Close(id_);
    if (output_) detail::output_file_closed();
    id_ = -1;
    output_ = false;
  }
  hid_t id_ = -1;
  bool output_ = false;
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

/// A creation property list of class `cls` (H5P_FILE_CREATE for the root group, H5P_GROUP_CREATE,
/// H5P_DATASET_CREATE) whose objects record no access, modification or change times: the same content
/// makes the same bytes, and a snapshot file rewritten from another's bytes (io/grid_file.hpp) states
/// nothing stale.
PropList untimed(hid_t cls);

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
