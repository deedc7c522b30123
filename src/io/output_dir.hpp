// The output directory of a run: its validation before any work (shared by `stratus check` and `stratus
// run`, so that check rejects whatever run would), and the lock a run holds on it while it writes. The
// lock is an flock on DIR/.NAME.lock, so two runs of the same name cannot race on the same temporary
// files; the kernel drops it when the process ends, however it ends, so a killed run never leaves a
// stale lock. Once it holds the lock, a run removes the temporaries that an earlier, killed run of the
// same name left behind (its ".tmp" and ".reserve" files; finished files are never touched). Nothing here
// decides what is written.
#pragma once
#include <mpi.h>

#include <string>
#include <utility>

namespace stratus {

/// The longest run.name: every file name the run writes (NAME_chk_<step>.h5.tmp, ...) must stay below
/// the 255-byte limit of common file systems.
constexpr std::size_t kMaxRunName = 200;

/// Local, writes nothing. InputError naming the key when run.name is empty, longer than kMaxRunName,
/// holds '/' or a control character, or is "." or ".."; or when run.output_dir is empty, exists but is
/// not a directory or not writable, or cannot be created (the nearest existing ancestor is not a
/// writable directory).
void check_output_location(const std::string& dir, const std::string& name);

/// Local, writes nothing. InputError naming `key` unless `file` is a plain file name (no directory part,
/// not "." or "..", no control character) of at most 255 bytes: files named in a deck are written inside
/// the output directory and nowhere else.
void check_output_file_name(const std::string& key, const std::string& file);

/// Collective. Creates the directory (rank 0), takes the lock DIR/.NAME.lock (non-blocking) and removes
/// stale temporaries of run NAME. InputError when another process holds the lock (naming it, from the
/// pid and host the holder wrote into the lock file); CollectiveError when the directory cannot be
/// created. A file system without flock support is used without a lock (with a warning).
class OutputLock {
 public:
  OutputLock(MPI_Comm comm, const std::string& dir, const std::string& name);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  int fd_ = -1;
};

/// Whether `file` (a name in the output directory) is a temporary of run `name`: a ".tmp" (also
/// ".tmp.<pid>") or ".reserve" file whose base is NAME.xmf, NAME_history.csv, NAME_<digits>.h5/.xmf,
/// NAME_chk_<digits>.h5 or NAME_traj<anything>.h5/.xmf.
bool is_stale_temporary(const std::string& file, const std::string& name);

/// Whether `file` (a name in the output directory) is a finished output of run `name`: NAME.xmf,
/// NAME.h5md, NAME_history.csv, NAME_report.json, NAME.done, NAME_<digits>.h5/.xmf,
/// NAME_chk_<digits>.h5 or NAME_from_<digits>.h5md/.xmf.
bool is_run_output(const std::string& file, const std::string& name);

/// Collective; call with the lock held. Moves the finished outputs of an earlier run `name` in `dir`
/// (is_run_output) into the new directory DIR/NAME.earlier-K (the lowest free K), so that a fresh run
/// never mixes its files with another's and nothing is lost. Returns the number of files moved and the
/// directory (logged). CollectiveError when a move fails.
std::pair<int, std::string> move_aside_earlier_run(MPI_Comm comm, const std::string& dir, const std::string& name);

}  // namespace stratus
