// The closing "output in DIR: ..." line of a run: every file of the run's name in its output directory,
// numbered series folded into one entry with their count.
#pragma once
#include <string>

namespace stratus {

/// "NAME.h5md, NAME.xmf (open in ParaView or VisIt), NAME_NNNNNN.h5 (5 snapshots), NAME_chk_NNNNNNNN.h5
/// (2 checkpoints), NAME_history.csv, ..." for the regular files of dir that are outputs of run NAME
/// (is_run_output: no temporaries, no other files), sorted; runs of 6 or more digits become N's. Empty if
/// there are none.
std::string list_outputs(const std::string& dir, const std::string& name);

}  // namespace stratus
