#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2317  # awk programs in single quotes; the case functions are called by name
# The benchmark suite: in one invocation, at each rank count (one OpenMP thread per rank), the LJ melt
# (LAMMPS' bench/in.lj) at 32,000 and 256,000 atoms, 2D Euler (rising thermal) at 400 x 200 and
# 2048 x 1024, 3D Euler at 128^3, shallow water at 1024 x 1024, a halo exchange of the 3D state and a
# neighbor-list build alone (`stratus bench --kernel`), HDF5 snapshot writes (4 MB and 100 MB) next to a
# plain sequential write of the same bytes in as many files on the same file system, an H5MD trajectory
# of the LJ melt next to a plain write of the same bytes appended to one file frame by frame, and the
# memory-bandwidth roof (a STREAM triad); where LAMMPS is installed, LAMMPS on the same LJ input, as published (list rebuilt every
# 20 steps, unchecked) and with Stratus' policy (checked every step: no pair ever missed). Each run of a
# case alternates the codes (A B A B ...) and the rank counts (1 2 1 2 ...), so that a change in the
# machine's load during a case weighs on both sides of a ratio and of a parallel efficiency; medians of
# --runs runs are reported.
#   LJ: the "throughput:" line of `stratus run` (trajectory off) and atoms x steps / "Loop time" of LAMMPS,
#   both timing the step loop with its thermo output. Grids: `stratus bench` (stepping only) with the
#   solver's own count of bytes per update, as a fraction of the triad roof of the same rank count.
# Output: a table on stdout and OUT/bench.json (cases, medians, per-core figures, roof fractions, ratios
# to LAMMPS, parallel efficiency from the fewest to the most ranks, the write-bandwidth fraction, and the
# machine: CPU, cores, compiler and flags, date, revision); logs of every run in OUT/logs.
# Usage: scripts/bench.sh [--quick] [--runs N] [--ranks "1 2"] [--exe PATH] [--out DIR]
#   --quick      about a minute: smaller cases, fewer steps, one run (unless --runs)
#   --runs N     runs per case and code, medians reported (default 3)
#   --ranks L    MPI rank counts (default "1 2")
#   --exe PATH   the stratus executable to measure (no build); default: build/cpu/stratus, built first
#   --out DIR    where bench.json and logs/ go (default: a new temporary directory)
#   env: MPIEXEC (default mpiexec.mpich), LMP (default lmp), LMP_MPIRUN (default mpirun.openmpi, the MPI
#   Debian's lmp uses). Exit status: 0, 1 when a case failed (the others are still reported), 2 bad usage.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
usage='usage: scripts/bench.sh [--quick] [--runs N] [--ranks "1 2"] [--exe PATH] [--out DIR] [-h]'
bad() { echo "bench.sh: $* ($usage)" >&2; exit 2; }
mode=full runs="" ranks="1 2" exe="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick; shift ;;
    --smoke) mode=smoke; shift ;;  # tiny sizes, for the bench_suite test
    --runs|--ranks|--exe|--out)
      if [ $# -lt 2 ] || [ -z "$2" ]; then bad "$1 needs a value"; fi
      case "$1" in --runs) runs=$2 ;; --ranks) ranks=$2 ;; --exe) exe=$2 ;; --out) out=$2 ;; esac
      shift 2 ;;
    -h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) bad "unknown option '$1'" ;;
  esac
done
[ -n "$runs" ] || { [ "$mode" = full ] && runs=3 || runs=1; }
case "$runs" in ''|*[!0-9]*|0) bad "--runs wants a positive integer, got '$runs'" ;; esac
read -r -a rank_list <<< "$ranks"
[ ${#rank_list[@]} -gt 0 ] || bad "--ranks wants rank counts, e.g. \"1 2\""
for r in "${rank_list[@]}"; do
  case "$r" in *[!0-9]*|0) bad "--ranks wants positive integers, got '$r'" ;; esac
done
# shellcheck source=scripts/lib/build.sh disable=SC1091
source "$here/lib/build.sh"
STRATUS_USAGE=$usage
if [ -n "$exe" ]; then stratus_exe "$exe"; exe=$STRATUS_EXE; fi  # checked before anything is created
stratus_out_dir "$out" stratus-bench
out=$STRATUS_OUT
mpiexec="${MPIEXEC:-mpiexec.mpich}"
command -v "$mpiexec" >/dev/null || { echo "bench.sh: no MPI launcher '$mpiexec' (set MPIEXEC)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench.sh: python3 is needed for the report" >&2; exit 1; }

if [ -z "$exe" ]; then stratus_exe; exe=$STRATUS_EXE; fi  # builds build/cpu/stratus

# Sizes per mode. LJ: label:fcc-cells-per-edge:steps. Grids: label:nx:nz:steps (2D), label:n:steps (3D,
# shallow water). Kernels: edge or cells, and calls. HDF5: nx:nz:steps:snapshot_every. H5MD:
# label:fcc-cells-per-edge:steps:snapshot_every. Triad MiB per array.
case "$mode" in
  full)  lj=(32k:20:100 256k:40:100) e2d=(400x200:400:200:100 2048x1024:2048:1024:10) e3d=(128:5)
         sw=(1024:20) halo=(128:100) nbr=(20:10 40:5) h5=(400:200:40:2 2048:1024:16:2) h5md=(256k:40:20:2)
         triad_mib=256 ;;
  quick) lj=(32k:20:50) e2d=(400x200:400:200:50) e3d=(64:5) sw=(256:20) halo=(64:50) nbr=(20:5)
         h5=(400:200:4:2) h5md=(32k:20:10:2) triad_mib=64 ;;
  smoke) lj=(2k:8:10) e2d=(100x50:100:50:10) e3d=(24:2) sw=(64:10) halo=(24:20) nbr=(8:3) h5=(100:50:2:1)
         h5md=(2k:8:4:2) triad_mib=8 ;;
esac

lmp="${LMP:-lmp}" lmp_mpirun="${LMP_MPIRUN:-mpirun.openmpi}"
have_lmp=0
command -v "$lmp" >/dev/null 2>&1 && command -v "$lmp_mpirun" >/dev/null 2>&1 && have_lmp=1
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false
# Debian's lmp is linked against OpenMPI, which refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
readonly logs="$out/logs" work="$out/work"  # work: run directories, removed at the end
mkdir -p "$logs" "$work"
raw="$out/raw.tsv" cases="$out/cases.tsv"
: >"$raw"
: >"$cases"
failed=0
trap 'rm -rf "$work"' EXIT

# case_info NAME KIND DESCRIPTION: declares a case (the report lists them in this order).
case_info() { printf '%s\t%s\t%s\n' "$@" >>"$cases"; }
# rec NAME KIND RANKS CODE RUN VALUE UNIT [EXTRA k=v ...]: one measurement.
rec() { local extra="${*:8}"; printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$extra" >>"$raw"; }
# fail_case NAME LOG MESSAGE: reports a failed run and carries on with the next.
fail_case() {
  echo "bench.sh: $1: $3; last lines of $2:" >&2
  tail -n 8 "$2" 2>/dev/null | sed 's/^/  | /' >&2
  failed=1
}
# srun R LOG ARGS...: stratus on R ranks, output in LOG.
srun() { local r=$1 log=$2; shift 2; "$mpiexec" -n "$r" "$exe" "$@" >"$log" 2>&1 </dev/null; }
# pick LOG AWK-PROGRAM: the first line the program prints for LOG.
pick() { awk "$2" "$1" 2>/dev/null | head -n 1; }

# --- the cases: each takes NAME KIND RANKS RUN and what it needs; they record or call fail_case.
run_triad() {  # memory-bandwidth roof: STREAM triad, all ranks at once
  local name=$1 kind=$2 r=$3 k=$4 log="$logs/$1-np$3-run$4.log" v
  srun "$r" "$log" bench "$root/inputs/climate/thermal.ini" --set grid.nx=8 --set grid.nz=4 --steps 1 \
    --triad-mib "$triad_mib" || { fail_case "$name" "$log" "stratus failed on $r rank(s)"; return; }
  v=$(pick "$log" '/^bench: triad/ { print $3 }')
  [ -n "$v" ] || { fail_case "$name" "$log" "no triad line"; return; }
  rec "$name" "$kind" "$r" stratus "$k" "$v" GB/s
}
run_lj_stratus() {  # NAME KIND R RUN CELLS STEPS
  local name=$1 kind=$2 r=$3 k=$4 c=$5 s=$6 log="$logs/$1-np$3-run$4.log" v b
  srun "$r" "$log" run "$root/inputs/md/lj_melt.ini" --set "md.cells=$c $c $c" --set "run.max_steps=$s" \
    --set run.t_end=1e9 --set md.trajectory=false --set "run.output_dir=$work/$name" ||
    { fail_case "$name" "$log" "stratus failed on $r rank(s)"; return; }
  rm -rf "${work:?}/$name"
  v=$(pick "$log" '/^throughput:/ && $3 ~ /^atom-steps/ { print $2 }')
  b=$(pick "$log" '/^neighbor lists:/ { print $3 }')
  [ -n "$v" ] || { fail_case "$name" "$log" "no throughput line"; return; }
  rec "$name" "$kind" "$r" stratus "$k" "$v" atom-steps/s "builds=${b:-0}"
}
run_lj_lammps() {  # NAME KIND R RUN CELLS STEPS VARIANT (published | checked)
  local name=$1 kind=$2 r=$3 k=$4 c=$5 s=$6 variant=$7 log="$logs/$1-lammps_$7-np$3-run$4.log" nv v b
  if [ "$variant" = published ]; then nv=(-var every 20 -var check no); else nv=(-var every 1 -var check yes); fi
  "$lmp_mpirun" --oversubscribe --bind-to none -np "$r" "$lmp" -in "$here/bench/in.lj" -var steps "$s" \
    -var cells "$c" "${nv[@]}" -log none -screen "$log" >"$log.err" 2>&1 </dev/null ||
    { cat "$log.err" >>"$log"; fail_case "$name" "$log" "LAMMPS ($variant) failed on $r rank(s)"; return; }
  rm -f "$log.err"
  # "Loop time of T on P procs for S steps with N atoms"
  v=$(pick "$log" '/^Loop time of/ { if ($4 > 0) printf "%.6g\n", $12 * $9 / $4 }')
  b=$(pick "$log" '/^Neighbor list builds/ { print $NF }')
  [ -n "$v" ] || { fail_case "$name" "$log" "no 'Loop time' line from LAMMPS"; return; }
  rec "$name" "$kind" "$r" "lammps_$variant" "$k" "$v" atom-steps/s "builds=${b:-0}"
}
run_grid() {  # NAME KIND R RUN STEPS DECK SETTINGS...: stepping rate and bytes per update
  local name=$1 kind=$2 r=$3 k=$4 s=$5 deck=$6 log="$logs/$1-np$3-run$4.log" v b
  shift 6
  srun "$r" "$log" bench "$deck" "$@" --steps "$s" --triad-mib 0 ||
    { fail_case "$name" "$log" "stratus failed on $r rank(s)"; return; }
  v=$(pick "$log" '/^bench: / && $4 ~ /^cell-updates/ { print $3 }')
  b=$(pick "$log" '/^bench: .* moves .* bytes per update/ { print $4 }')
  [ -n "$v" ] || { fail_case "$name" "$log" "no stepping-rate line"; return; }
  rec "$name" "$kind" "$r" stratus "$k" "$v" cell-updates/s "bytes_per_update=${b:-0}"
}
run_kernel() {  # NAME KIND R RUN KERNEL CALLS DECK SETTINGS...: time per call of one kernel alone
  local name=$1 kind=$2 r=$3 k=$4 kern=$5 calls=$6 deck=$7 log="$logs/$1-np$3-run$4.log" line us amount unit
  shift 7
  srun "$r" "$log" bench "$deck" "$@" --kernel "$kern" --steps "$calls" --triad-mib 0 ||
    { fail_case "$name" "$log" "stratus failed on $r rank(s)"; return; }
  # "bench: kernel K T us per call (...), W UNIT per call, R UNIT/s"
  line=$(pick "$log" '/^bench: kernel/ { n = split($0, a, "), "); split(a[n], w, " "); print $4, w[1], w[2] }')
  [ -n "$line" ] || { fail_case "$name" "$log" "no kernel line"; return; }
  read -r us amount unit <<< "$line"
  if [ "$kern" = halo ]; then  # exchanges per second; the bytes sent and their rate
    rec "$name" "$kind" "$r" stratus "$k" "$(awk -v t="$us" 'BEGIN { printf "%.6g", 1e6 / t }')" exchanges/s \
      "us_per_call=$us" "bytes_per_call=$amount" "gbs=$(awk -v t="$us" -v w="$amount" 'BEGIN { printf "%.6g", w / t / 1e3 }')"
  else  # atoms listed per second
    rec "$name" "$kind" "$r" stratus "$k" "$(awk -v t="$us" -v w="$amount" 'BEGIN { printf "%.6g", w / t * 1e6 }')" \
      "$unit/s" "us_per_call=$us" "${unit}_per_call=$amount"
  fi
}
run_h5_stratus() {  # NAME KIND R RUN NX NZ STEPS EVERY: the snapshot writer's bandwidth in a run
  local name=$1 kind=$2 r=$3 k=$4 log="$logs/$1-np$3-run$4.log" dir="$work/$1" line files mb secs
  rm -rf "$dir"
  srun "$r" "$log" run "$root/inputs/climate/thermal.ini" --set "grid.nx=$5" --set "grid.nz=$6" \
    --set "run.max_steps=$7" --set run.t_end=1e9 --set "run.snapshot_every=$8" --set "run.history_every=$7" \
    --set "run.output_dir=$dir" || { fail_case "$name" "$log" "stratus failed on $r rank(s)"; return; }
  # "output: X MB of fields in Y s (Z MB/s) to DIR[; written by a background thread in W s]": Y is the time
  # the step loop waited for snapshots, W the background writer's own
  line=$(pick "$log" '/^output: .* MB of fields in/ { w = "-"; if (match($0, /background thread in [0-9.e+-]+ s/)) {
    split(substr($0, RSTART, RLENGTH), a, " "); w = a[4] }; print $2, $7, w }')
  files=$(find "$dir" -maxdepth 1 -name '*.h5' | wc -l)
  # The files stay until the plain write has run (run_h5_plain removes them): neither write then follows
  # the removal of a run's files. On the development machine (a VM) a write into the page cache within
  # about a second of freeing as much memory ran at 6-7 GB/s, later at 0.5-1 GB/s; the plain write used to
  # follow the removal of the snapshots at once.
  if [ -z "$line" ] || [ "$files" = 0 ]; then
    rm -rf "$dir"
    fail_case "$name" "$log" "no 'output: ... MB of fields' line"
    return
  fi
  read -r mb secs writer <<< "$line"
  h5_mb=$mb h5_files=$files
  local wmbs=()
  [[ $writer == - ]] || wmbs=("writer_seconds=$writer" "writer_mbs=$(awk -v m="$mb" -v s="$writer" 'BEGIN { printf "%.6g", m / s }')")
  rec "$name" "$kind" "$r" stratus "$k" "$(awk -v m="$mb" -v s="$secs" 'BEGIN { printf "%.6g", m / s }')" MB/s \
    "mb=$mb" "seconds=$secs" "files=$files" "${wmbs[@]+"${wmbs[@]}"}"
}
run_h5md_stratus() {  # NAME KIND R RUN CELLS STEPS EVERY: the H5MD trajectory writer's bandwidth in an MD run
  local name=$1 kind=$2 r=$3 k=$4 log="$logs/$1-np$3-run$4.log" dir="$work/$1" line frames mb secs
  rm -rf "$dir"
  srun "$r" "$log" run "$root/inputs/md/lj_melt.ini" --set "md.cells=$5 $5 $5" --set "run.max_steps=$6" \
    --set run.t_end=1e9 --set "run.snapshot_every=$7" --set "run.history_every=$6" --set "run.output_dir=$dir" ||
    { fail_case "$name" "$log" "stratus failed on $r rank(s)"; return; }
  # "output: X MB of snapshots in Y s (...) to DIR; the first F s, the others M MB in S s (...)": Y is all
  # the time the step loop spent on the trajectory, the file's creation and its LAMMPS data file (the
  # topology, written with the first frame) included; M and S the frames after the first; with a
  # background writer ("; written by a background thread in W s"), W its own time
  line=$(pick "$log" '/^output: .* MB of snapshots in/ { m = "-"; s = "-"; w = "-"
    if (match($0, /the others [0-9.e+-]+ MB in [0-9.e+-]+ s/)) { split(substr($0, RSTART, RLENGTH), a, " "); m = a[3]; s = a[6] }
    if (match($0, /background thread in [0-9.e+-]+ s/)) { split(substr($0, RSTART, RLENGTH), a, " "); w = a[4] }
    print $2, $7, m, s, w }')
  frames=$(pick "$log" '/^trajectory: .*frames/ { if (match($0, /[0-9]+ frames/)) print substr($0, RSTART, RLENGTH - 7) }')
  if [ -z "$line" ] || [ -z "$frames" ]; then
    rm -rf "$dir"
    fail_case "$name" "$log" "no 'output: ... MB of snapshots' or 'trajectory:' line"
    return
  fi
  read -r mb secs rest_mb rest_secs writer <<< "$line"
  h5_mb=$mb h5_files=$frames h5_append=1
  local rest=()
  [[ $rest_mb == - ]] || rest=("rest_mb=$rest_mb" "rest_seconds=$rest_secs"
    "rest_mbs=$(awk -v m="$rest_mb" -v s="$rest_secs" 'BEGIN { printf "%.6g", m / s }')")
  [[ $writer == - ]] || rest+=("writer_seconds=$writer"
    "writer_mbs=$(awk -v m="$mb" -v s="$writer" 'BEGIN { printf "%.6g", m / s }')")
  rec "$name" "$kind" "$r" stratus "$k" "$(awk -v m="$mb" -v s="$secs" 'BEGIN { printf "%.6g", m / s }')" MB/s \
    "mb=$mb" "seconds=$secs" "frames=$frames" "${rest[@]+"${rest[@]}"}"
}
run_h5_plain() {  # NAME KIND R RUN: the same bytes in as many files, plain write(2), no fsync
  # (h5_append: appended to one file instead, opened and closed around each part, as the trajectory is)
  # Written twice, in calls of 256 KiB (what cp and dd-like tools use) and of 4 MiB, into two directories
  # removed only at the end; the faster counts. On the development machine a write(2) of 1 MiB or more into
  # the page cache ran at 0.4-2 GB/s, of 512 KiB or less at 6-7 GB/s. After the removals a pause, so that
  # the next run's snapshots do not follow them either (see run_h5_stratus).
  local name=$1 kind=$2 r=$3 k=$4 v v256k v4m
  [ -n "${h5_mb:-}" ] || { rm -rf "${work:?}/$name"; return 0; }
  v=$(python3 - "$work/plain" "$h5_files" "$h5_mb" "${h5_append:-0}" <<'EOF'
import os, shutil, sys, time
d, files, total, append = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]) * 1e6, sys.argv[4] == "1"
each = int(total / files)
data = memoryview(bytes(range(256)) * (16 << 10))  # 4 MiB
rates = []
for chunk in (256 << 10, 4 << 20):
    sub = os.path.join(d, str(chunk))
    os.makedirs(sub)
    t0 = time.perf_counter()
    for n in range(files):
        if append:
            fd = os.open(os.path.join(sub, "plain.bin"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        else:
            fd = os.open(os.path.join(sub, "plain_%d.bin" % n), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        left = each
        while left > 0:
            left -= os.write(fd, data[:min(left, chunk)])
        os.close(fd)
    rates.append(files * each / 1e6 / (time.perf_counter() - t0))
shutil.rmtree(d)
print("%.6g %.6g %.6g" % (max(rates), rates[0], rates[1]))
EOF
  ) || { rm -rf "${work:?}/$name" "$work/plain"; fail_case "$name" /dev/null "the plain write failed"; return; }
  rm -rf "$work/plain" "${work:?}/$name"
  [ "$mode" = smoke ] || sleep 3
  read -r v v256k v4m <<< "$v"
  rec "$name" "$kind" "$r" plain_write "$k" "$v" MB/s "mb=$h5_mb" "files=$h5_files" "mbs_256k=$v256k" "mbs_4m=$v4m"
}

# --- the case list: name|kind|the command of each code (";" between codes, "@" between arguments),
# the codes alternated within each run
plan=()
add() { plan+=("$1"); }
case_info triad triad "STREAM triad a = b + s c, 3 arrays x $triad_mib MiB per rank, best of 10"
add "triad|triad|run_triad"
for c in "${lj[@]}"; do
  IFS=: read -r label cells steps <<< "$c"
  case_info "lj_$label" lj "LJ melt (bench/in.lj), $((4 * cells * cells * cells)) atoms, $steps steps; LAMMPS as published (every 20, unchecked) and checked (every step)"
  codes="run_lj_stratus@$cells@$steps"
  [ "$have_lmp" = 1 ] && codes="$codes;run_lj_lammps@$cells@$steps@published;run_lj_lammps@$cells@$steps@checked"
  add "lj_$label|lj|$codes"
done
for c in "${e2d[@]}"; do
  IFS=: read -r label nx nz steps <<< "$c"
  case_info "euler2d_$label" euler2d "2D Euler, rising thermal, $nx x $nz cells, $steps steps (stepping only)"
  add "euler2d_$label|euler2d|run_grid@$steps@$root/inputs/climate/thermal.ini@--set@grid.nx=$nx@--set@grid.nz=$nz"
done
for c in "${e3d[@]}"; do
  IFS=: read -r n steps <<< "$c"
  case_info "euler3d_$n" euler3d "3D Euler, rising thermal, $n^3 cells, $steps steps (stepping only)"
  add "euler3d_$n|euler3d|run_grid@$steps@$root/inputs/climate/thermal3d.ini@--set@grid.nx=$n@--set@grid.ny=$n@--set@grid.nz=$n"
done
for c in "${sw[@]}"; do
  IFS=: read -r n steps <<< "$c"
  case_info "sw_${n}x$n" shallow_water "shallow water, wave, $n x $n cells, $steps steps (stepping only)"
  add "sw_${n}x$n|shallow_water|run_grid@$steps@$root/inputs/climate/sw_wave.ini@--set@grid.nx=$n@--set@grid.ny=$n"
done
for c in "${halo[@]}"; do
  IFS=: read -r n calls <<< "$c"
  case_info "halo_3d_$n" halo "halo exchange of the whole 3D Euler state, $n^3 cells, $calls exchanges"
  add "halo_3d_$n|halo|run_kernel@halo@$calls@$root/inputs/climate/thermal3d.ini@--set@grid.nx=$n@--set@grid.ny=$n@--set@grid.nz=$n"
done
for c in "${nbr[@]}"; do
  IFS=: read -r cells calls <<< "$c"
  label=$((4 * cells * cells * cells / 1000))k
  case_info "neighbor_$label" neighbor "neighbor-list build of the LJ melt, $((4 * cells * cells * cells)) atoms, $calls builds"
  add "neighbor_$label|neighbor|run_kernel@neighbor@$calls@$root/inputs/md/lj_melt.ini@--set@md.cells=$cells $cells $cells"
done
for c in "${h5[@]}"; do
  IFS=: read -r nx nz steps every <<< "$c"
  case_info "hdf5_${nx}x$nz" hdf5 "HDF5 snapshots of 2D Euler $nx x $nz, $((steps / every + 1)) files; plain write(2) of the same bytes in as many files, same directory (calls of 256 KiB and of 4 MiB, the faster); nothing is fsynced, the .xmf sidecars included"
  add "hdf5_${nx}x$nz|hdf5|run_h5_stratus@$nx@$nz@$steps@$every;run_h5_plain"
done
for c in "${h5md[@]}"; do
  IFS=: read -r label cells steps every <<< "$c"
  case_info "h5md_$label" h5md "H5MD trajectory of the LJ melt, $((4 * cells * cells * cells)) atoms, positions, velocities and image flags every $every of $steps steps; plain write(2) of the same bytes appended to one file in as many parts, each opened and closed; nothing is fsynced"
  add "h5md_$label|h5md|run_h5md_stratus@$cells@$steps@$every;run_h5_plain"
done

t_start=$(date +%s)
for p in "${plan[@]}"; do
  IFS='|' read -r name kind codes <<< "$p"
  for ((k = 1; k <= runs; ++k)); do
    for r in "${rank_list[@]}"; do
      h5_mb="" h5_append=""
      echo "== $name, $r rank(s), run $k of $runs" >&2
      IFS=';' read -r -a code_list <<< "$codes"
      for code in "${code_list[@]}"; do
        IFS=@ read -r -a args <<< "$code"
        "${args[0]}" "$name" "$kind" "$r" "$k" "${args[@]:1}"
      done
    done
  done
done

# --- the machine and the build
info=$("$exe" info 2>/dev/null || true)
exe_dir=$(dirname "$exe")
flags=$(sed -n 's/^CXX_FLAGS = //p' "$exe_dir/CMakeFiles/stratus.dir/flags.make" 2>/dev/null || true)
[ -n "$flags" ] || flags=$(sed -n 's/^flags: //p' "$exe_dir/../BUILD_INFO" 2>/dev/null || true)
[ -n "$flags" ] || flags="unknown (no build tree beside $exe)"
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
# The family and model tell CPU generations apart where the model name does not ("AMD EPYC" on a VM), and
# the widest vector instructions decide which of Stratus' CPU kernels run (the AVX-512 pair row and
# neighbor candidates, or the compiler-vectorised loops).
cpu_id=$(awk -F': *' '/^cpu family/ { f = $2 } /^model[ \t]*:/ { m = $2 } END { if (f != "") print "family " f " model " m }' /proc/cpuinfo 2>/dev/null || true)
isa=$(grep -m 1 -E '^(flags|Features)' /proc/cpuinfo 2>/dev/null | awk '{ s = "" } / avx2( |$)/ { s = "AVX2" } / avx512f( |$)/ { s = "AVX-512" } / asimd( |$)/ { s = "NEON" } END { print s }' || true)
lammps_version=""
for f in "$logs"/*lammps_published*.log; do
  [ -f "$f" ] && lammps_version=$(head -n 1 "$f") && break
done
{
  printf 'cpu_model\t%s\n' "${cpu:-$(uname -m)}${cpu_id:+ ($cpu_id)}"
  printf 'cpu_isa\t%s\n' "${isa:-unknown}"
  printf 'cores\t%s\n' "$(env -u OMP_NUM_THREADS nproc)"  # nproc follows OMP_NUM_THREADS
  printf 'compiler\t%s\n' "$(echo "$info" | sed -n 's/^ *C++ compiler: //p')"
  printf 'flags\t%s\n' "$flags"
  printf 'build_type\t%s\n' "$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$exe_dir/CMakeCache.txt" 2>/dev/null)"
  printf 'kokkos\t%s\n' "$(echo "$info" | sed -n 's/^ *Kokkos: //p')"
  printf 'device\t%s\n' "$(echo "$info" | sed -n -e 's/^ *device: //p' -e 's/^ *CUDA device [0-9]* of [0-9]*: //p' | head -n 1)"
  printf 'mpi\t%s\n' "$(echo "$info" | sed -n 's/^ *MPI: //p' | tr '\t' ' ')"
  printf 'stratus\t%s\n' "$("$exe" --version 2>/dev/null | head -n 1)"
  printf 'git_revision\t%s\n' "$(git -C "$root" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)"
  printf 'date\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  printf 'hostname\t%s\n' "$(hostname)"
  printf 'lammps\t%s\n' "${lammps_version:-not installed ($lmp)}"
  printf 'mode\t%s\n' "$mode"
  printf 'runs\t%s\n' "$runs"
  printf 'ranks\t%s\n' "${rank_list[*]}"
  printf 'threads_per_rank\t1\n'
  printf 'seconds\t%s\n' "$(($(date +%s) - t_start))"
} >"$out/machine.tsv"

python3 "$here/bench/report.py" "$out" || { echo "bench.sh: the report failed" >&2; exit 1; }
echo "bench.json and logs in $out"
exit "$failed"
