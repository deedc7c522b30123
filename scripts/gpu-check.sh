#!/usr/bin/env bash
# Runs on a machine with an NVIDIA GPU and no internet: unpacks a bundle made by scripts/gpu-bundle.sh
# (a CUDA build plus the shared libraries it needs), checks that everything loads, runs the whole CUDA
# test suite (the CTest list, 1, 2 and 4 ranks, without cmake) and the benchmarks, and writes a report.
#
# Usage: scripts/gpu-check.sh [BUNDLE (default build/gpu-bundle.tar.gz)] [REPORT]
# REPORT defaults to $OUT/gpu-check-report.txt when OUT is set, else build/gpu-check-report.txt; the
# per-test logs go beside it, packed into gpu-check-logs.tar.gz (one file: a GPU lease returns few).
# Exit status: 0 when everything that ran passed and nothing was left out for lack of time.
# Environment:
#   STRATUS_GPU_CHECK_SECTIONS  what to run, in this order (default "sanitizer racecheck tests bench suite
#                               ncu"): sanitizer (compute-sanitizer memcheck on small runs of each
#                               solver), racecheck (compute-sanitizer racecheck on the pair kernel with
#                               half lists and the halo exchange), tests (the CTest list, with
#                               CUDA_LAUNCH_BLOCKING=1 so that a failed launch is reported where it
#                               happened), bench (single-case benchmarks), suite (scripts/bench.sh), ncu
#                               (Nsight Compute's per-kernel summary of a 3D Euler and an LJ step, where
#                               the machine lets it read the counters)
#   STRATUS_GPU_CHECK_BUDGET    seconds for the whole check (default: none); a test or section not started
#                               in time is reported as "not run (time)", so a lease ends with a report
#   STRATUS_GPU_CHECK_JOBS      tests run at once, sharing the GPU (default 1)
#   STRATUS_GPU_CHECK_TESTS     an extended regular expression: only the tests whose names match (default all)
#   STRATUS_BENCH_SIZES (3D benchmark edges, default "256 512"), STRATUS_TEST_TIMEOUT (s, 600),
#   STRATUS_BENCH_SUITE_ARGS (scripts/bench.sh's options, default "--runs 1"; e.g. "--quick").
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bundle="${1:-$root/build/gpu-bundle.tar.gz}"
if [ -n "${2:-}" ]; then report="$2"; elif [ -n "${OUT:-}" ]; then report="$OUT/gpu-check-report.txt"; else report="$root/build/gpu-check-report.txt"; fi
mkdir -p "$(dirname "$report")"
[ -f "$bundle" ] || { echo "gpu-check: no bundle $bundle (make one with scripts/build-cuda.sh --bundle)" >&2; exit 2; }
sections="${STRATUS_GPU_CHECK_SECTIONS:-sanitizer racecheck tests bench suite ncu}"
for s in $sections; do
  case "$s" in tests|bench|suite|sanitizer|racecheck|ncu) ;; *) echo "gpu-check: STRATUS_GPU_CHECK_SECTIONS: unknown section '$s' (sanitizer, racecheck, tests, bench, suite, ncu)" >&2; exit 2 ;; esac
done
jobs="${STRATUS_GPU_CHECK_JOBS:-1}"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "gpu-check: STRATUS_GPU_CHECK_JOBS must be a positive integer, not '$jobs'" >&2; exit 2; }
budget="${STRATUS_GPU_CHECK_BUDGET:-0}"
[[ "$budget" =~ ^[0-9]+$ ]] || { echo "gpu-check: STRATUS_GPU_CHECK_BUDGET must be seconds, not '$budget'" >&2; exit 2; }
t_start=$(date +%s)
# time_left SECONDS: true while at least SECONDS of the budget remain (always true without a budget).
time_left() { [ "$budget" = 0 ] || [ $(( t_start + budget - $(date +%s) )) -ge "$1" ]; }

work="$(mktemp -d)"
logs="$work/gpu-check-logs"; mkdir -p "$logs"
archive="$(dirname "$report")/gpu-check-logs.tar.gz"
pack_logs() { tar -C "$work" -czf "$archive" gpu-check-logs 2>/dev/null; rm -rf "$work"; }
trap pack_logs EXIT
tar -C "$work" -xzf "$bundle"
b="$work/stratus-gpu"
cuda_lib=""
for d in "${CUDA_ROOT:-}/lib64" /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && cuda_lib="$cuda_lib:$d"
done
export LD_LIBRARY_PATH="$b/lib${cuda_lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export UCX_MODULE_DIR="$b/lib/ucx" PATH="$b/bin:$PATH" HYDRA_LAUNCHER=fork
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export STRATUS_FAKE_NVML="$b/bin/libfake_nvml.so"

say() { echo "$*" | tee -a "$report"; }
: >"$report"
say "# Stratus GPU check, $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname)"
sed 's/^/bundle /' "$b/BUILD_INFO" | tee -a "$report"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,compute_cap,memory.total,driver_version --format=csv,noheader 2>&1 | sed 's/^/gpu: /' | tee -a "$report"
fi

missing=$(for f in "$b"/bin/* "$b"/tests/*; do ldd "$f" 2>/dev/null | grep "not found"; done | sort -u)
if [ -n "$missing" ]; then
  say "FAIL: shared libraries not found (CUDA runtime and cuFFT come from this machine's CUDA install):"
  say "$missing"
  exit 1
fi

say ""
say "## stratus info"
"$b/bin/stratus" info >"$logs/info.log" 2>&1; rc=$?
grep -E "Kokkos|CUDA|cuFFT|MPI:" "$logs/info.log" | tee -a "$report"
[ $rc -eq 0 ] || { say "FAIL: stratus info exited $rc:"; tail -n 5 "$logs/info.log" | tee -a "$report"; exit 1; }

fail=0; notrun=0
# The tests run where CTest would run them, each in a directory of its own (the Catch2 tests write
# test_output_npN/ into theirs), never in the caller's directory (the checkout, often). With
# STRATUS_GPU_CHECK_JOBS > 1 several run at once on the one GPU; each result line is written when it ends.
run_one_test() {  # run_one_test NAME NP ENVS CMD
  local name="$1" np="$2" envs="$3" cmd="$4" t0 dt rc s
  cmd="${cmd//@BUNDLE@/$b}"; cmd="${cmd//@REPO@/$root}"
  mkdir -p "$work/cwd/$name"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  (cd "$work/cwd/$name" && env CUDA_LAUNCH_BLOCKING=1 $envs timeout "${STRATUS_TEST_TIMEOUT:-600}" bash -c "$cmd") </dev/null >"$logs/$name.log" 2>&1; rc=$?
  dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
  if [ $rc -eq 0 ]; then s=ok; else s="FAIL (exit $rc)"; fi
  echo "$name $rc" >>"$work/test-results"
  say "$(printf '%-28s np=%s %6ss  %s' "$name" "${np/#0/-}" "$dt" "$s")"
}
section_tests() {
  say ""
  say "## tests ($jobs at a time, CUDA_LAUNCH_BLOCKING=1)"
  : >"$work/test-results"
  local skipped=() running=0 name np envs cmd
  while IFS=$'\t' read -r name np envs cmd; do
    [[ -z "${STRATUS_GPU_CHECK_TESTS:-}" || "$name" =~ ${STRATUS_GPU_CHECK_TESTS} ]] || continue
    if ! time_left 30; then skipped+=("$name"); continue; fi
    run_one_test "$name" "$np" "$envs" "$cmd" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  done <"$b/tests.manifest"
  wait
  local pass nfail failed
  pass=$(awk '$2 == 0' "$work/test-results" | wc -l)
  nfail=$(awk '$2 != 0' "$work/test-results" | wc -l)
  failed=$(awk '$2 != 0 {print $1}' "$work/test-results" | paste -sd' ')
  fail=$((fail + nfail)); notrun=$((notrun + ${#skipped[@]}))
  say "tests: $pass passed, $nfail failed${failed:+: $failed}${skipped:+; not run (time): ${skipped[*]}}"
}

section_bench() {
  say ""
  say "## benchmarks (1 rank; cell-updates/s without output; triad = memory roof; Euler: 4096 x 2048 and 256^3)"
  for n in ${STRATUS_BENCH_SIZES:-256 512}; do
    if timeout "${STRATUS_TEST_TIMEOUT:-600}" "$b/bin/stratus" bench --steps 50 --set grid.nx="$n" --set grid.ny="$n" --set grid.nz="$n" >"$logs/bench_3d_$n.log" 2>&1; then
      say "3D $n^3: $(grep '^bench:' "$logs/bench_3d_$n.log" | sed 's/^bench: //' | paste -sd';' | sed 's/;/; /g')"
    else
      say "3D $n^3: FAIL, see gpu-check-logs/bench_3d_$n.log"; fail=$((fail + 1))
    fi
  done
  if timeout "${STRATUS_TEST_TIMEOUT:-600}" "$b/bin/stratus" bench --steps 50 --triad-mib 0 --set grid.nx=4096 --set grid.ny=4096 --set grid.nz=1 >"$logs/bench_2d.log" 2>&1; then
    say "2D 4096^2: $(grep '^bench: advection' "$logs/bench_2d.log" | sed 's/^bench: //')"
  else
    say "2D 4096^2: FAIL, see gpu-check-logs/bench_2d.log"; fail=$((fail + 1))
  fi
  for c in "euler_2d|$root/inputs/climate/thermal.ini --set grid.nx=4096 --set grid.nz=2048" \
           "euler_3d|$root/inputs/climate/thermal3d.ini --set grid.nx=256 --set grid.ny=256 --set grid.nz=256"; do
    name=${c%%|*}
    # shellcheck disable=SC2086
    if timeout "${STRATUS_TEST_TIMEOUT:-600}" "$b/bin/stratus" bench ${c#*|} --steps 20 >"$logs/bench_$name.log" 2>&1; then
      say "$name: $(grep '^bench: euler' "$logs/bench_$name.log" | sed 's/^bench: //' | paste -sd';' | sed 's/;/; /g')"
    else
      say "$name: FAIL, see gpu-check-logs/bench_$name.log"; fail=$((fail + 1))
    fi
  done
  # MD: the LJ melt at 32,000 and 864,000 atoms with full neighbor lists (the GPU default), and with half
  # lists (ScatterView atomics) at 864,000 for comparison; then the list stored atom by atom (the CPUs'
  # layout) against the default slot by slot (coalesced), to show which layout suits the GPU; atom-steps/s.
  md_bench() {  # md_bench NAME CELLS_PER_EDGE NEIGHBOR [LAYOUT]
    if timeout "${STRATUS_TEST_TIMEOUT:-600}" "$b/bin/stratus" bench "$root/inputs/md/lj_melt.ini" --steps 50 --triad-mib 0 --set "md.cells=$2 $2 $2" \
         --set "md.neighbor=$3" --set "md.neighbor_layout=${4:-auto}" >"$logs/bench_$1.log" 2>&1; then
      say "$1: $(grep '^bench: md' "$logs/bench_$1.log" | sed 's/^bench: //')"
    else
      say "$1: FAIL, see gpu-check-logs/bench_$1.log"; fail=$((fail + 1))
    fi
  }
  md_bench md_32k 20 auto
  md_bench md_864k 60 auto
  md_bench md_864k_half 60 half
  md_bench md_864k_atoms_layout 60 auto atoms
  # Electrostatics: molten NaCl with PPPM at 1e-5 (inputs/md/nacl_melt.ini, NVE) at 4,096 and 32,768 ions, and
  # the distributed FFT (cuFFT) against a single-process FFTW transform of the same grids.
  pppm_bench() {  # pppm_bench NAME CELLS_PER_EDGE
    if timeout "${STRATUS_TEST_TIMEOUT:-600}" "$b/bin/stratus" bench "$root/inputs/md/nacl_melt.ini" --steps 50 --triad-mib 0 --set "md.cells=$2 $2 $2" \
         --set md.ensemble=nve --set md.temperature=1500 >"$logs/bench_$1.log" 2>&1; then
      say "$1: $(grep '^bench: md' "$logs/bench_$1.log" | sed 's/^bench: //')"
    else
      say "$1: FAIL, see gpu-check-logs/bench_$1.log"; fail=$((fail + 1))
    fi
  }
  pppm_bench pppm_4k 8
  pppm_bench pppm_32k 16
  if [ -x "$b/bin/bench_fft" ] && timeout "${STRATUS_TEST_TIMEOUT:-600}" "$b/bin/bench_fft" 64 128 256 >"$logs/bench_fft.log" 2>&1; then
    grep '^bench: fft' "$logs/bench_fft.log" | sed 's/^bench: //' | while read -r l; do say "$l"; done
  else
    say "bench_fft: FAIL or missing, see gpu-check-logs/bench_fft.log"; fail=$((fail + 1))
  fi
  if timeout 300 "$b/bin/mpiexec" -n 2 </dev/null "$b/bin/stratus" bench --steps 50 --triad-mib 0 --set grid.nx=256 --set grid.ny=256 --set grid.nz=256 >"$logs/bench_np2.log" 2>&1; then
    say "3D 256^3, 2 ranks on one GPU (host-staged halo): $(grep '^bench: advection' "$logs/bench_np2.log" | sed 's/^bench: //')"
  else
    say "3D 256^3, 2 ranks: FAIL, see gpu-check-logs/bench_np2.log"; fail=$((fail + 1))
  fi
}
# The benchmark suite (scripts/bench.sh) with this bundle's executable: the same case list as on a CPU (small for a GPU:
# the bench part has GPU-sized cases) once, at 1 and 2 ranks on the one GPU; LAMMPS where installed. Its table goes
# into the report, bench.json beside the logs.
section_suite() {
  say ""
  say "## benchmark suite (scripts/bench.sh ${STRATUS_BENCH_SUITE_ARGS:---runs 1})"
  # shellcheck disable=SC2086
  if MPIEXEC="$b/bin/mpiexec" timeout "${STRATUS_TEST_TIMEOUT:-600}" bash "$root/scripts/bench.sh" \
       ${STRATUS_BENCH_SUITE_ARGS:---runs 1} --exe "$b/bin/stratus" --out "$logs/bench-suite" \
       </dev/null >"$logs/bench_suite.log" 2>"$logs/bench_suite.err"; then
    grep -v '^bench.json and logs' "$logs/bench_suite.log" | tee -a "$report"
  else
    tee -a "$report" <"$logs/bench_suite.log"
    say "benchmark suite: FAIL, see gpu-check-logs/bench_suite.err and gpu-check-logs/bench-suite/logs"; fail=$((fail + 1))
  fi
}
# sanitize TOOL STEPS CASE...: compute-sanitizer --tool TOOL on `stratus bench ARGS --steps STEPS` for each
# CASE "name|ARGS", one report line each (its error summary, or FAIL with the first findings).
sanitize() {
  local tool=$1 steps=$2 cs c name log
  shift 2
  cs=$(command -v compute-sanitizer || ls "${CUDA_ROOT:-/usr/local/cuda}"/bin/compute-sanitizer 2>/dev/null || true)
  if [ -z "$cs" ]; then say "$tool: compute-sanitizer not found (the CUDA toolkit's bin/)"; fail=$((fail + 1)); return; fi
  for c in "$@"; do
    name=${c%%|*} log="$logs/${tool}_${c%%|*}.log"
    if ! time_left 60; then say "$tool $name: not run (time)"; notrun=$((notrun + 1)); continue; fi
    # shellcheck disable=SC2086
    if timeout 300 "$cs" --tool "$tool" --error-exitcode 9 "$b/bin/stratus" bench ${c#*|} --steps "$steps" \
         --triad-mib 0 >"$log" 2>&1; then
      say "$tool $name: $(grep -E '^=+ [A-Z]* ?SUMMARY' "$log" | tail -n1 | sed 's/^=* //')"
    else
      say "$tool $name: FAIL, see $(basename "$log"): $(grep -E 'SUMMARY|Invalid|hazard|error' "$log" | head -n 3 | paste -sd' ')"
      fail=$((fail + 1))
    fi
  done
}

# compute-sanitizer memcheck (out-of-bounds and misaligned device accesses, CUDA API errors, leaks) on
# small runs of each solver. Slow (10-100x), hence small.
section_sanitizer() {
  say ""
  say "## compute-sanitizer memcheck"
  sanitize memcheck 3 "advection|--set grid.nx=32 --set grid.ny=32 --set grid.nz=32" \
    "euler_2d|$root/inputs/climate/thermal.ini --set grid.nx=64 --set grid.nz=32" \
    "euler_3d|$root/inputs/climate/thermal3d.ini --set grid.nx=16 --set grid.ny=16 --set grid.nz=16" \
    "shallow_water|$root/inputs/climate/sw_dam_break.ini --set grid.nx=64 --set grid.ny=16" \
    "md_full|$root/inputs/md/lj_melt.ini --set md.cells=6,6,6 --set md.neighbor=full" \
    "md_half|$root/inputs/md/lj_melt.ini --set md.cells=6,6,6 --set md.neighbor=half" \
    "pppm|$root/inputs/md/nacl_melt.ini --set md.cells=3,3,3 --set md.ensemble=nve"
}

# compute-sanitizer racecheck (shared-memory hazards) on the kernels with the most threads writing near
# each other: the pair kernel with half lists (ScatterView atomics) and the fused halo pack/unpack.
section_racecheck() {
  say ""
  say "## compute-sanitizer racecheck"
  sanitize racecheck 2 "pair_half|$root/inputs/md/lj_melt.ini --set md.cells=5,5,5 --set md.neighbor=half" \
    "halo|--kernel halo --set grid.nx=32 --set grid.ny=32 --set grid.nz=32"
}

# Nsight Compute: per-kernel time and memory throughput of a few steps of 3D Euler at 128^3 and of the LJ
# melt at 256k atoms (the kernels worth tuning). Needs the counters: a machine that restricts them to
# root or to administrators gets "not readable" in the report, which is not a failure.
section_ncu() {
  say ""
  say "## Nsight Compute (top kernels by time)"
  local ncu c name
  ncu=$(command -v ncu || ls "${CUDA_ROOT:-/usr/local/cuda}"/bin/ncu 2>/dev/null || true)
  if [ -z "$ncu" ]; then say "ncu: not found (the CUDA toolkit's bin/): not run"; return; fi
  for c in "euler_3d|$root/inputs/climate/thermal3d.ini --set grid.nx=128 --set grid.ny=128 --set grid.nz=128" \
           "md_256k|$root/inputs/md/lj_melt.ini --set md.cells=40,40,40"; do
    name=${c%%|*}
    if ! time_left 90; then say "ncu $name: not run (time)"; notrun=$((notrun + 1)); continue; fi
    # shellcheck disable=SC2086
    timeout 300 "$ncu" --launch-skip 50 --launch-count 40 --csv --print-units base \
      --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
      "$b/bin/stratus" bench ${c#*|} --steps 3 --triad-mib 0 >"$logs/ncu_$name.csv" 2>"$logs/ncu_$name.err"
    if grep -qiE 'ERR_NVGPUCTRPERM|permission' "$logs/ncu_$name.csv" "$logs/ncu_$name.err"; then
      say "ncu $name: counters not readable on this machine (ERR_NVGPUCTRPERM)"; continue
    fi
    # CSV rows: ..., "Kernel Name", ..., "Metric Name", "Metric Unit", "Metric Value"; sum time per kernel.
    awk -F'","' 'NR > 1 && NF > 5 {
        k = $5; sub(/\(.*/, "", k); m = $(NF-2); v = $NF; gsub(/[",]/, "", v)
        if (m ~ /gpu__time_duration/) { t[k] += v; n[k]++ } else if (m ~ /dram__throughput/) { d[k] += v }
      } END { for (k in t) printf "%12.1f us %4d launches %5.1f %%HBM  %s\n", t[k] / 1000, n[k], d[k] / n[k], k }' \
      "$logs/ncu_$name.csv" | sort -rn | head -n 6 >"$logs/ncu_$name.top"
    if [ -s "$logs/ncu_$name.top" ]; then
      say "ncu $name (40 launches after the first 50):"; sed 's/^/  /' "$logs/ncu_$name.top" | tee -a "$report"
    else
      say "ncu $name: no kernel rows, see gpu-check-logs/ncu_$name.err"
    fi
  done
}

for s in $sections; do
  if ! time_left 60; then say ""; say "## $s: not run (time)"; notrun=$((notrun + 1)); continue; fi
  "section_$s"
done
say ""
say "report: $report"
say "gpu-check: $fail failed, $notrun not run for lack of time, $(( $(date +%s) - t_start )) s"
[ $fail -eq 0 ] && [ $notrun -eq 0 ]
