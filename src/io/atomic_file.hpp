// Whole-file replacement that a reader can never catch half-done: the text goes to a temporary next to
// the target (<path>.tmp.<pid>) and is renamed over the target. Used for every small text file Stratus
// rewrites while it runs (XDMF indexes, the run report, the metrics file, the completion marker). The
// rename alone guarantees, against a kill or crash of the process, that a reader sees the old or the new
// file; Durability::synced adds the fsyncs that extend this to a power loss or kernel crash, and costs a
// journal commit (0.1 to 20 ms) each time. Local and single-writer: nothing here coordinates ranks or
// processes that write the same path.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace stratus {

/// What a replacement survives besides a kill of the process (which it always survives).
///   renamed: nothing more. After a power loss the path may hold the old text, the new text or, on file
///            systems that do not flush a file renamed over another as ext4 does, an empty file; for files
///            that describe data which is not synced either (the XDMF sidecars of snapshots and
///            trajectories), so that a sync would promise what the data cannot keep.
///   synced:  a power loss or kernel crash too: the file is fsynced before its rename and its directory
///            (best effort) after; for files a restart reads (the completion marker, the run report).
enum class Durability { renamed, synced };

/// Replaces the file at `path` with `text`: writes path + ".tmp.<pid>", renames it to `path`, with the
/// fsyncs `durability` asks for. A reader sees the old or the new file, never a partial one. Throws Error
/// naming the path and the system's reason on failure; the temporary is removed then.
void write_file_atomically(const std::string& path, const std::string& text,
                           Durability durability = Durability::synced);

/// write_file_atomically for several (path, text) pairs at once, each file with the same guarantee, for
/// about the waits of one: all are written (and synced) before the first rename, and each directory is
/// synced once after the last. Renamed in the order given. When a file cannot be written none is replaced;
/// when a rename fails the files before it stay replaced; no temporary is left either way.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files,
                            Durability durability = Durability::synced);

/// write_files_atomically in two halves, for files that may only appear once other work has succeeded
/// (the XDMF sidecars of a snapshot, after its HDF5 file is in place) but can be written while it runs:
/// the constructor writes (and syncs) every temporary, or throws as write_files_atomically does with none
/// left; commit() renames them in the order given and syncs their directories. Temporaries not renamed
/// are removed when the object goes away (a commit that failed, or none). After a commit, failed or not,
/// the object holds nothing (a second commit renames nothing).
class StagedFiles {
 public:
  StagedFiles() = default;
  explicit StagedFiles(const std::vector<std::pair<std::string, std::string>>& files,
                       Durability durability = Durability::synced);
  StagedFiles(StagedFiles&& other) noexcept;
  StagedFiles& operator=(StagedFiles&& other) noexcept;
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;
  ~StagedFiles();
  void commit();

 private:
  struct Pending {
    std::string path, tmp;
  };
  void discard() noexcept;
  std::vector<Pending> files_;
  std::size_t renamed_ = 0;
  bool sync_ = true;
};

}  // namespace stratus
