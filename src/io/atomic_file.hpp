// Whole-file replacement that a reader can never catch half-done: the text goes to a temporary next to
// the target (<path>.tmp.<pid>), is flushed to stable storage and renamed over the target. Used for every
// small text file Stratus rewrites while it runs (XDMF indexes, the run report, the metrics file). Local
// and single-writer: nothing here coordinates ranks or processes that write the same path.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace stratus {

/// Replaces the file at `path` with `text`: writes path + ".tmp.<pid>", fsyncs it, renames it to `path`
/// and (best effort) fsyncs the directory. A reader sees the old or the new file, never a partial one.
/// Throws Error naming the path and the system's reason on failure; the temporary is removed then.
void write_file_atomically(const std::string& path, const std::string& text);

/// write_file_atomically for several (path, text) pairs at once, each file with the same guarantee, for
/// about the waits of one: all are written and synced before the first rename, and each directory is
/// synced once after the last. Renamed in the order given. When a file cannot be written none is replaced;
/// when a rename fails the files before it stay replaced; no temporary is left either way.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace stratus
