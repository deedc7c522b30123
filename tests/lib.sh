# shellcheck shell=bash
# Shared prologue of the shell tests (tests/*.sh), sourced as their first command:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
# It takes the arguments CTest passes (STRATUS MPIEXEC SOURCE_DIR, each required), makes them absolute,
# sets strict mode, one OpenMP thread per rank unless the environment says otherwise, a private temporary
# directory $T (removed on exit, whatever the exit status) as the working directory, and defines the
# helpers below. It does not run anything or check any tool the test may need: see require_tools.
#
# Variables set:  STRATUS (the executable), MPIEXEC (the MPI launcher), SRC (the source tree), T.
# Hooks a test may define: test_cleanup (runs on exit before $T is removed, e.g. to unmount);
#   FAIL_LOGS=(files...) whose first 40 lines fail prints after its message.
# Helpers: fail MSG (exit 1), pass MSG, skip MSG (exit 77, CTest's SKIP_RETURN_CODE),
#   require_tools TOOL... (fail unless each is on PATH), expect_rc WANT LOG CMD... (CMD's exit status must
#   be WANT; its stdout and stderr go to LOG and are shown when it is not), wait_for_line REGEX FILE PID
#   [SECONDS] (until a line of FILE matches, PID ends, or SECONDS (default 30) pass).
# The tests write only under $T: nothing in the source tree or the build tree.

set -euo pipefail

_stratus_test=$(basename "$0" .sh)
_stratus_usage="usage: $_stratus_test.sh STRATUS MPIEXEC SOURCE_DIR"
STRATUS=${1:?$_stratus_usage}
MPIEXEC=${2:?$_stratus_usage}
SRC=${3:?$_stratus_usage}
# A bare name (found on PATH) stays as it is; a path is made absolute before the cd below.
[[ $STRATUS == */* ]] && STRATUS=$(realpath -m "$STRATUS")
[[ $MPIEXEC == */* ]] && MPIEXEC=$(realpath -m "$MPIEXEC")
SRC=$(realpath "$SRC")
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
export OMP_PROC_BIND=${OMP_PROC_BIND:-false}

FAIL_LOGS=()
fail() {
  echo "FAIL: $*" >&2
  local f
  for f in "${FAIL_LOGS[@]+"${FAIL_LOGS[@]}"}"; do
    if [[ -s $f ]]; then
      echo "--- $(basename "$f"):" >&2
      head -n 40 "$f" >&2
    fi
  done
  exit 1
}
pass() { echo "ok: $*"; }
skip() {
  echo "SKIP: $*"
  exit 77
}

require_tools() {
  local tool
  for tool in "$@"; do
    command -v "$tool" > /dev/null || fail "'$tool' not found on PATH (h5dump and h5diff: Debian's hdf5-tools)"
  done
}

expect_rc() {
  local want=$1 log=$2 rc=0
  shift 2
  "$@" > "$log" 2>&1 || rc=$?
  if [[ $rc -ne $want ]]; then
    cat "$log" >&2
    fail "exit $rc, expected $want: $*"
  fi
}

T=$(mktemp -d "${TMPDIR:-/tmp}/stratus_$_stratus_test.XXXXXX")
_stratus_test_exit() {
  if declare -F test_cleanup > /dev/null; then test_cleanup || true; fi
  rm -rf "$T"
}
trap _stratus_test_exit EXIT
cd "$T"

wait_for_line() {
  local regex=$1 file=$2 pid=$3 limit=${4:-30} i
  for ((i = 0; i < limit * 50; i++)); do
    grep -q -- "$regex" "$file" 2> /dev/null && return 0
    kill -0 "$pid" 2> /dev/null || return 0
    sleep 0.02
  done
}
