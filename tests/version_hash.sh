#!/usr/bin/env bash
# The commit a build records (stratus --version, every snapshot's, checkpoint's and report's git_hash) is
# the one that was built, not the one CMake was configured at:
#  (a) cmake/StratusGitHash.cmake, which every build runs, on a scratch repository: the hash of each new
#      commit, "-dirty" for an uncommitted change to a tracked file (not for an untracked one), "unknown"
#      outside a checkout, and its file left untouched (no recompilation) while nothing changes;
#  (b) this build's stratus --version against the source tree's own commit and state.
#   usage: version_hash.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
require_tools git cmake

R=$T/repo OUT=$T/git_hash.cpp
run_script() { cmake -DSOURCE_DIR="$1" -DOUT="$OUT" -P "$SRC/cmake/StratusGitHash.cmake" || fail "the script failed"; }
recorded() { sed -n 's/.*kGitHash = "\([^"]*\)".*/\1/p' "$OUT"; }
git_in() { git -C "$R" -c user.name=t -c user.email=t@example.org -c commit.gpgsign=false "$@" > /dev/null; }

mkdir -p "$R"
git_in init -q
echo a > "$R/a.txt"
git_in add a.txt
git_in commit -q -m one
run_script "$R"
h1=$(git -C "$R" rev-parse --short=12 HEAD)
[[ $(recorded) == "$h1" ]] || fail "first commit: recorded '$(recorded)', expected '$h1'"
touch -d '2001-01-01' "$OUT"
run_script "$R"
[[ $(stat -c %Y "$OUT") == $(date -d '2001-01-01' +%s) ]] || fail "the file was rewritten with nothing changed"
echo b > "$R/untracked.txt"
run_script "$R"
[[ $(recorded) == "$h1" ]] || fail "an untracked file made the build '$(recorded)'"
echo a2 > "$R/a.txt"
run_script "$R"
[[ $(recorded) == "$h1-dirty" ]] || fail "a changed tracked file: recorded '$(recorded)', expected '$h1-dirty'"
git_in commit -q -a -m two
run_script "$R"
h2=$(git -C "$R" rev-parse --short=12 HEAD)
[[ $h2 != "$h1" && $(recorded) == "$h2" ]] || fail "second commit: recorded '$(recorded)', expected '$h2'"
mkdir -p "$T/plain"
run_script "$T/plain"
[[ $(recorded) == unknown ]] || fail "outside a checkout: recorded '$(recorded)', expected 'unknown'"
pass "the build-time script records each commit, -dirty and unknown, and leaves its file alone when unchanged"

got=$("$STRATUS" --version | sed -n 's/.*(git \([^)]*\)).*/\1/p')
if git -C "$SRC" rev-parse HEAD > /dev/null 2>&1; then
  want=$(git -C "$SRC" rev-parse --short=12 HEAD)
  [[ -z $(git -C "$SRC" status --porcelain --untracked-files=no) ]] || want="$want-dirty"
else
  want=unknown
fi
[[ $got == "$want" ]] || fail "stratus --version says git '$got', the source tree is at '$want' (not rebuilt since?)"
pass "stratus --version names the source tree's commit ($got)"
