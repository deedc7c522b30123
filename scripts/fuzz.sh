#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer + AddressSanitizer + UBSan) of Stratus' three input readers: the deck
# parser with --set overrides (target deck), LAMMPS data files (data) and checkpoints (checkpoint). See
# tests/fuzz/ for the targets and what counts as a finding.
#
# Steps: installs clang-16, libclang-rt-16-dev, libomp-16-dev and llvm-16 if missing (scripts/install-deps.sh
# --fuzz-tools, with the project's own dependencies); configures and builds build/fuzz
# (clang, STRATUS_ENABLE_FUZZ=ON, the whole project instrumented); replays the saved crash inputs in
# tests/fuzz/regressions/<target>/; prepares seed corpora from the project's own inputs (decks from
# inputs/, data files from tests/data/md/ and written by the built stratus, checkpoints written by the
# built stratus on tiny decks) and dictionaries; then runs each target for N seconds and prints, per
# target, executions, coverage and whether it found a crash, leak, timeout or out-of-memory.
# Everything it writes goes under build/fuzz/: corpus/<target> (kept and grown between runs), seeds/,
# artifacts/ (inputs of findings), logs/. Nothing is written to the source tree.
#
# Usage: scripts/fuzz.sh [--seconds N] [--target deck|data|checkpoint|all] [--jobs J]
#   --seconds N  fuzzing time per target (default 60); 0: build, replay and seed only
#   --jobs J     parallel fuzzing processes per target (-fork=J; default 1)
# Exit status: 0 when no regression input fails and no target found anything, 1 otherwise, 2 for usage.
# Environment: STRATUS_JOBS (parallel build jobs, default: number of cores), STRATUS_FUZZ_ARGS (extra
# libFuzzer arguments), STRATUS_DEPS_DIR / Kokkos_ROOT (as for install-deps.sh).
set -euo pipefail

seconds=60
target=all
jobs=1
build_jobs="${STRATUS_JOBS:-$(nproc)}"
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --target) target="$2"; shift 2 ;;
    --target=*) target="${1#*=}"; shift ;;
    --jobs) jobs="$2"; shift 2 ;;
    --jobs=*) jobs="${1#*=}"; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fuzz: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz: --seconds must be a whole number, not '$seconds'" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: --jobs must be >= 1, not '$jobs'" >&2; exit 2; }
[[ "$build_jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: STRATUS_JOBS must be >= 1, not '$build_jobs'" >&2; exit 2; }
case "$target" in
  deck|data|checkpoint) targets=("$target") ;;
  all) targets=(deck data checkpoint) ;;
  *) echo "fuzz: --target must be deck, data, checkpoint or all, not '$target'" >&2; exit 2 ;;
esac

say() { echo "[fuzz] $*" >&2; }
trap 'rc=$?; say "failed (exit $rc) at line $LINENO: $BASH_COMMAND"; exit $rc' ERR
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build/fuzz"

# ---------------------------------------------------------------- compiler and Kokkos
# clang-16 with libFuzzer and the sanitizer runtimes, and llvm-16 for llvm-symbolizer-16 (without symbols
# the function names in tests/fuzz/lsan.supp match nothing): install-deps.sh --fuzz-tools.
Kokkos_ROOT="$("$root/scripts/install-deps.sh" --fuzz-tools)"

# ---------------------------------------------------------------- build
say "building $build (clang-16, sanitizers, -j$build_jobs)"
mkdir -p "$build"
nice -n 10 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-16 \
  -DCMAKE_CXX_COMPILER=clang++-16 -DKokkos_ROOT="$Kokkos_ROOT" -DSTRATUS_ENABLE_FUZZ=ON \
  -DSTRATUS_ENABLE_TESTS=OFF >"$build/configure.log" 2>&1 || { say "configure failed, see $build/configure.log"; exit 1; }
nice -n 10 cmake --build "$build" -j"$build_jobs" >"$build/build.log" 2>&1 || { say "build failed, see $build/build.log"; exit 1; }
bin="$build/tests/fuzz"

export OMP_NUM_THREADS=1 OMP_PROC_BIND=false
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0"
# hwloc's optional plugins, loaded by MPI_Init where installed, leak from modules they unload (tests/CMakeLists.txt).
export HWLOC_PLUGINS_PATH=/nonexistent
export UBSAN_OPTIONS="print_stacktrace=1:${UBSAN_OPTIONS:-}"
for s in llvm-symbolizer-16 llvm-symbolizer; do
  if command -v "$s" >/dev/null; then ASAN_SYMBOLIZER_PATH="$(command -v "$s")"; export ASAN_SYMBOLIZER_PATH; break; fi
done

exe_of() { case "$1" in deck) echo fuzz_deck ;; data) echo fuzz_data_file ;; checkpoint) echo fuzz_checkpoint ;; esac; }
max_len_of() { case "$1" in deck) echo 4096 ;; data) echo 4096 ;; checkpoint) echo 16384 ;; esac; }

# ---------------------------------------------------------------- regressions
failed=0
for t in "${targets[@]}"; do
  inputs=("$root/tests/fuzz/regressions/$t"/*)
  [ -e "${inputs[0]}" ] || continue
  log="$build/logs/$t-regressions.log"
  mkdir -p "$build/logs"
  if (cd "$build" && ASAN_OPTIONS="fast_unwind_on_malloc=0:malloc_context_size=10:$ASAN_OPTIONS" "$bin/$(exe_of "$t")" -timeout=10 -rss_limit_mb=2048 "${inputs[@]}") >"$log" 2>&1; then
    say "$t: ${#inputs[@]} regression input(s) pass"
  else
    say "$t: a regression input fails, see $log"
    failed=1
  fi
done

# ---------------------------------------------------------------- seeds
seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"/{deck,data,checkpoint} "$build/corpus" "$build/artifacts" "$build/logs"

# Decks: every deck in inputs/, some with --set overrides (NUL-separated after the text).
while IFS= read -r f; do
  n=$(echo "${f#"$root/inputs/"}" | tr '/' '_')
  cp "$f" "$seeds/deck/$n"
  { cat "$f"; printf '\0run.t_end=0.5\0grid.nx=8\0run.name=seed'; } >"$seeds/deck/set_$n"
done < <(find "$root/inputs" -name '*.ini' | sort)
printf '[grid]\nnx = 8 # cells\n[parallel]\ndecomp = 1,1 , 1\n\0grid.ny=2\0grid.ny=4\0' >"$seeds/deck/small_overrides"
printf '\0run.physics=md\0md.cells=2 2 2\0md.boundary=p p f' >"$seeds/deck/only_overrides"
# Dictionary: syntax words plus every declared key, section header and option name.
cp "$root/tests/fuzz/deck.dict" "$build/deck.dict"
"$build/stratus" help-deck 2>/dev/null | sed -n 's/^  \([A-Za-z0-9_.-]*\)  (.*/\1/p' | sort -u | while read -r k; do
  printf '"%s"\n"%s"\n"[%s]"\n' "$k" "${k##*.}" "${k%.*}"
done | sort -u >>"$build/deck.dict"

# Data files: the test suite's (their head, trimmed to a few atoms, and as they are) and ones written by
# the built stratus.
trim_data() {  # $1 = file, $2 = atoms kept: header with the count changed, the first atoms, their velocities
  awk -v keep="$2" '
    /^[A-Z]/ { sec = $1 }
    sec == "" && $2 == "atoms" && NF == 2 { print keep " atoms"; next }
    sec == "Atoms" && NF >= 5 && $1 ~ /^[0-9]+$/ { if (n++ < keep) { ids[$1] = 1; print } ; next }
    sec == "Velocities" && NF == 4 && $1 ~ /^[0-9]+$/ { if ($1 in ids) print; next }
    { print }' "$1"
}
for f in "$root"/tests/data/md/*.data; do
  cp "$f" "$seeds/data/$(basename "$f")"
  trim_data "$f" 6 >"$seeds/data/trim6_$(basename "$f")"
done
work="$build/seeds/work"
mkdir -p "$work"
run_stratus() {  # $1 = label; the rest: stratus run arguments. Quiet; a failure only loses a seed.
  local label="$1"; shift
  (cd "$work" && "$build/stratus" run "$@" -q) >"$build/logs/seed-$label.log" 2>&1 \
    || say "seed run '$label' failed (see $build/logs/seed-$label.log); continuing without it"
}
common=(--set run.t_end=1e9 --set run.checkpoint_every=1 --set run.checkpoint_keep=1)
run_stratus md_lj "$root/inputs/md/lj_melt.ini" --set "md.cells=2 2 2" --set run.max_steps=1 "${common[@]}" \
  --set run.output_dir="$work/md_lj" --set run.name=md_lj --set md.write_data=md_lj.data
run_stratus md_mix "$root/inputs/md/lj_mixture.ini" --set "md.cells=2 2 2" --set run.max_steps=2 "${common[@]}" \
  --set run.output_dir="$work/md_mix" --set run.name=md_mix --set md.write_data=md_mix.data
run_stratus adv "$root/inputs/default.ini" --set grid.nx=4 --set grid.ny=4 --set grid.nz=2 --set run.max_steps=2 \
  "${common[@]}" --set run.output_dir="$work/adv" --set run.name=adv
run_stratus sw "$root/inputs/climate/sw_wave.ini" --set grid.nx=8 --set grid.ny=4 --set run.max_steps=1 \
  "${common[@]}" --set run.output_dir="$work/sw" --set run.name=sw
run_stratus euler "$root/inputs/climate/thermal.ini" --set grid.nx=8 --set grid.nz=4 --set run.max_steps=1 \
  "${common[@]}" --set run.output_dir="$work/euler" --set run.name=euler
find "$work" -name '*.data' -exec cp {} "$seeds/data/" \;
find "$work" -name '*_chk_*.h5' -exec cp {} "$seeds/checkpoint/" \;
# Checkpoint recipes (inputs without the HDF5 signature, see tests/fuzz/fuzz_checkpoint.cpp): the empty
# one builds a valid checkpoint; a few fixed pseudo-random ones start elsewhere.
: >"$seeds/checkpoint/recipe_empty"
RANDOM=2024
for i in 1 2 3 4 5 6 7 8; do
  bytes=""
  for _ in $(seq 1 $((32 * i))); do bytes+=$(printf '\\x%02x' $((RANDOM % 256))); done
  printf '%b' "$bytes" >"$seeds/checkpoint/recipe_$i"
done
rm -rf "$work"
count() { find "$1" -type f | wc -l; }
say "seeds: $(count "$seeds/deck") decks, $(count "$seeds/data") data files, $(count "$seeds/checkpoint") checkpoints and recipes"

# ---------------------------------------------------------------- fuzz
[ "$seconds" -gt 0 ] || { say "--seconds 0: not fuzzing"; exit "$failed"; }
# Each fuzz process keeps one temporary file, stratus-fuzz-<target>-<pid>.<ext> in /dev/shm (or $TMPDIR,
# /tmp), and removes it at exit; a process killed by a finding (or by -fork) cannot: remove those of
# processes that are gone.
remove_stale_temps() {
  local f pid
  for f in /dev/shm/stratus-fuzz-* "${TMPDIR:-/tmp}"/stratus-fuzz-*; do
    [ -f "$f" ] || continue
    pid=$(basename "$f" | sed -n 's/^stratus-fuzz-[a-z]*-\([0-9]*\)\.[a-z0-9]*$/\1/p')
    [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && rm -f "$f"
  done
  return 0
}
summary=()
for t in "${targets[@]}"; do
  exe="$bin/$(exe_of "$t")"
  corpus="$build/corpus/$t"
  mkdir -p "$corpus"
  art="$build/artifacts/$t"
  mkdir -p "$art"
  before=$(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  log="$build/logs/$t.log"
  args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len_of "$t")"
        -artifact_prefix="$art/" -print_final_stats=1)
  case "$t" in
    deck) args+=(-dict="$build/deck.dict") ;;
    data) args+=(-dict="$root/tests/fuzz/data.dict") ;;
  esac
  [ "$jobs" -gt 1 ] && args+=(-fork="$jobs")
  # HDF5 has no frame pointers: only the slow unwinder sees the HDF5 frames lsan.supp names.
  unwind=""
  [ "$t" = checkpoint ] && unwind="fast_unwind_on_malloc=0:malloc_context_size=10:"
  say "$t: fuzzing for $seconds s (log: $log)"
  t0=$(date +%s)
  rc=0
  # shellcheck disable=SC2086 # STRATUS_FUZZ_ARGS is a list of words
  (cd "$build" && ASAN_OPTIONS="$unwind$ASAN_OPTIONS" nice -n 10 "$exe" "${args[@]}" ${STRATUS_FUZZ_ARGS:-} "$corpus" "$seeds/$t") >"$log" 2>&1 || rc=$?
  wall=$(( $(date +%s) - t0 ))
  remove_stale_temps
  last=$(grep -aE '^#[0-9]+.*cov: ' "$log" | tail -n1 || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{s += $1} END {print s + 0}')
  [ "$execs" -gt 0 ] || execs=$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
  cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
  after=$(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  if [ "$rc" -ne 0 ] || [ "$after" -gt "$before" ]; then
    found="FOUND (exit $rc; $((after - before)) new input(s) in $art; see $log)"
    failed=1
  else
    found="nothing found"
  fi
  summary+=("$(printf '%-10s %4ss %10s execs  cov %-6s ft %-6s corpus %-5s %s' "$t" "$wall" "${execs:-?}" \
    "${cov:-?}" "${ft:-?}" "${corp:-?}" "$found")")
done
echo
echo "fuzz summary (time per target, executions, edge coverage, features, corpus size, outcome):"
printf '  %s\n' "${summary[@]}"
exit "$failed"
