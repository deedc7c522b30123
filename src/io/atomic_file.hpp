// Whole-file replacement that a reader can never catch half-done: the text goes to a temporary next to
// the target (<path>.tmp.<pid>), is flushed to stable storage and renamed over the target. Used for every
// small text file Stratus rewrites while it runs (XDMF indexes, the run report, the metrics file). Local
// and single-writer: nothing here coordinates ranks or processes that write the same path.
#pragma once
#include <string>

namespace stratus {

/// Replaces the file at `path` with `text`: writes path + ".tmp.<pid>", fsyncs it, renames it to `path`
/// and (best effort) fsyncs the directory. A reader sees the old or the new file, never a partial one.
/// Throws Error naming the path and the system's reason on failure; the temporary is removed then.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace stratus
