// XDMF 2 text for cell-centred fields on a uniform Cartesian grid stored in HDF5: the document of one
// frame (a Uniform grid with a 3DCoRectMesh topology) and of a temporal collection of frames, plus an
// atomic text-file writer (temporary name, then rename). XDMF lists dimensions, origin and spacing in
// (z, y, x) order, matching the (nz, ny, nx) datasets. This module only produces and stores text; it
// does not read HDF5 files or check that the datasets it references exist.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace stratus::xdmf {

/// The global grid of cells, in (x, y, z) order like the rest of Stratus.
struct Mesh {
  Int3 cells{};
  Real3 origin{};
  Real3 spacing{};
};

/// One snapshot: a grid name, the .h5 file relative to the .xmf that references it, the time and the
/// names of the datasets under /fields.
struct Frame {
  std::string name;
  std::string h5_file;
  double time = 0.0;
  std::vector<std::string> fields;
};

/// A complete document holding the single grid of `frame`.
std::string frame_document(const Mesh& mesh, const Frame& frame);
/// A complete document holding a temporal collection named `name` of every frame, in the given order.
std::string series_document(const std::string& name, const Mesh& mesh, const std::vector<Frame>& frames);
/// The element of one frame inside a series document, and the document made of such entries (the same
/// text as the overload above): a writer that rewrites the series as frames come keeps the entries of
/// the earlier frames rather than formatting every number of every frame again.
std::string series_entry(const Mesh& mesh, const Frame& frame);
std::string series_document(const std::string& name, const std::vector<std::string>& entries);

/// When a series (a sidecar listing every frame so far, rewritten whole so that a reader never sees a
/// partial one) is rewritten: at every frame while it is under kEveryFrameBytes, beyond that once the
/// entries not yet in it would add an eighth to it, and whenever its writer flushes (a checkpoint, the end
/// of the run). Rewritten at every frame, the series of a trajectory of 4000 frames cost 80 % of the time
/// spent writing the trajectory (5.7 MB rewritten per frame, the total quadratic in the frames); paced, the
/// bytes rewritten per frame stay bounded (each rewrite of S bytes follows S/8 bytes of new entries), and a
/// run killed without a flush leaves a series that lacks at most the last eighth of its frames.
class SeriesPacing {
 public:
  static constexpr std::size_t kEveryFrameBytes = 256 * 1024;
  /// A frame's entry of `entry_bytes` joined the series: whether to rewrite it now.
  bool add(std::size_t entry_bytes) {
    pending_ += entry_bytes;
    return written_ < kEveryFrameBytes || pending_ * 8 >= written_;
  }
  /// The series was rewritten, `bytes` long, with every entry.
  void written(std::size_t bytes) {
    written_ = bytes;
    pending_ = 0;
  }
  /// Whether entries have joined since the last rewrite.
  bool pending() const { return pending_ > 0; }

 private:
  std::size_t written_ = 0, pending_ = 0;
};

/// Shortest decimal text that reads back as exactly `v`.
std::string format_real(double v);

/// Text with the five XML special characters escaped (for attribute values and element text).
std::string xml_escape(const std::string& s);

/// write_file_atomically (io/atomic_file.hpp) without fsync (Durability::renamed), as for the data the
/// document points to: a reader sees the old or the new file, never a partial one. Throws Error naming
/// the path on failure.
void write_text_atomically(const std::string& path, const std::string& text);

}  // namespace stratus::xdmf
