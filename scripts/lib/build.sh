# shellcheck shell=bash
# shellcheck disable=SC2034,SC2120  # STRATUS_EXE / STRATUS_OUT and the options are for the scripts that source it
# The set-up the scripts in scripts/ share before they run anything: install what is missing and build a
# CMake preset. Sourced, after `set -euo pipefail`:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"
# Sets STRATUS_ROOT (the checkout) and defines:
#   stratus_deps [install-deps.sh options]   scripts/install-deps.sh (installs only what is missing) and
#                                            exports Kokkos_ROOT as the Kokkos prefix it prints.
#   stratus_build [--verbose] PRESET [TARGET...]
#                                            configures (quietly) and builds the preset's build tree,
#                                            build/PRESET, with STRATUS_JOBS jobs (default: the number of
#                                            cores); only TARGETs when given. Without --verbose the build
#                                            output is shown only when it fails.
#   stratus_exe [PATH]                       sets STRATUS_EXE: PATH made absolute when given (an executable
#                                            file, else exit 2; nothing is installed or built), otherwise
#                                            build/cpu/stratus after stratus_deps and stratus_build cpu stratus.
#   stratus_out_dir [DIR] NAME               sets STRATUS_OUT: DIR made absolute (created; exit 2 if it cannot
#                                            be), or a new temporary directory NAME.XXXXXX under $TMPDIR.
#   Their exit-2 messages end with " ($STRATUS_USAGE)" when the caller set it (its usage line).
# A failure stops the calling script (exit 1, or install-deps.sh's own exit status) with a message.
# It does not change the working directory and writes nothing outside build/ and install-deps.sh's cache.

STRATUS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

stratus_deps() {
  Kokkos_ROOT="$("$STRATUS_ROOT/scripts/install-deps.sh" "$@")" || exit $?
  export Kokkos_ROOT
}

stratus_build() {
  local verbose=0
  if [ "${1:-}" = "--verbose" ]; then verbose=1; shift; fi
  local preset=$1
  shift
  local targets=() t
  for t in "$@"; do targets+=(--target "$t"); done
  local jobs="${STRATUS_JOBS:-$(nproc)}"
  local me log rc=0
  me=$(basename "$0")
  if [ "$verbose" = 1 ]; then
    (cd "$STRATUS_ROOT" && cmake --preset "$preset" > /dev/null &&
      cmake --build --preset "$preset" -j"$jobs" "${targets[@]+"${targets[@]}"}") || rc=$?
    [ "$rc" = 0 ] || { echo "$me: the build failed (preset $preset)" >&2; exit 1; }
    return 0
  fi
  log=$(mktemp)
  (cd "$STRATUS_ROOT" && cmake --preset "$preset" > "$log" 2>&1 &&
    cmake --build --preset "$preset" -j"$jobs" "${targets[@]+"${targets[@]}"}" > "$log" 2>&1) || rc=$?
  if [ "$rc" != 0 ]; then
    tail -n 20 "$log" >&2
    rm -f "$log"
    echo "$me: the build failed; run 'cmake --build --preset $preset' in $STRATUS_ROOT to see why" >&2
    exit 1
  fi
  rm -f "$log"
}

stratus_exe() {
  local exe=${1:-} me
  me=$(basename "$0")
  if [ -n "$exe" ]; then
    if [ ! -f "$exe" ] || [ ! -x "$exe" ]; then
      echo "$me: --exe '$exe' is not an executable file${STRATUS_USAGE:+ ($STRATUS_USAGE)}" >&2
      exit 2
    fi
    STRATUS_EXE="$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")"
    return 0
  fi
  # shellcheck disable=SC2119  # no install-deps.sh options here
  stratus_deps
  stratus_build cpu stratus
  STRATUS_EXE=$STRATUS_ROOT/build/cpu/stratus
}

stratus_out_dir() {
  local dir=${1:-} name=$2 me
  me=$(basename "$0")
  if [ -z "$dir" ]; then
    STRATUS_OUT="$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")"
    return 0
  fi
  if { [ -e "$dir" ] && [ ! -d "$dir" ]; } || ! mkdir -p "$dir" 2> /dev/null; then
    echo "$me: --out '$dir' is not a directory that can be created${STRATUS_USAGE:+ ($STRATUS_USAGE)}" >&2
    exit 2
  fi
  STRATUS_OUT="$(cd "$dir" && pwd)"
}
