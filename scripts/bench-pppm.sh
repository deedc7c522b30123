#!/usr/bin/env bash
# Benchmark of PPPM electrostatics against LAMMPS' kspace_style pppm on the same system in the same run:
# molten NaCl (rock-salt at a = 6.1 A, scripts/bench/in.nacl_pppm) at 4,096 and 32,768 ions, lj/cut/coul/long
# 9 A, PPPM at relative force accuracy 1e-5 (each code chooses g_ewald and the grid from it, the same way),
# 100 NVE steps of 1 fs, on 1 and 2 ranks with one thread each. LAMMPS creates the system and writes it as a
# data file; Stratus starts from that file (inputs/md/nacl_melt.ini as NVE). Runs alternate (--repeat K,
# default 3) and medians are reported: steps/s, and the split of each code's loop time into pair, k-space,
# neighbor and communication (LAMMPS' "MPI task timing breakdown"; Stratus' run-report phases, where
# "pair" is its compute phase: pair forces plus integration). Then the distributed FFT on the PPPM grids
# against a single-process FFTW transform of the same grid (bench_fft). LAMMPS is optional (Debian:
# apt-get install lammps); without it Stratus builds the same lattice itself. Builds first if needed,
# unless --exe names the executable (then without the FFT part, which needs the build tree).
# Usage: scripts/bench-pppm.sh [--cells "8 16"] [--ranks "1 2"] [--steps N] [--repeat K] [--exe PATH]
#   env: LMP (default lmp), LMP_MPIRUN (default mpirun.openmpi, the MPI that Debian's lmp uses)
set -euo pipefail
# shellcheck source=scripts/lib/build.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"
root=$STRATUS_ROOT
cells_list="8 16"
ranks="1 2"
steps=100
repeat=3
usage='usage: scripts/bench-pppm.sh [--cells "8 16"] [--ranks "1 2"] [--steps N] [--repeat K] [--exe PATH]'
exe=""
while [ $# -gt 0 ]; do
  case "$1" in
    --exe) exe="${2:-}"; [ -n "$exe" ] || { echo "error: --exe needs a path ($usage)" >&2; exit 2; }; shift 2 ;;
    --cells) cells_list="$2"; shift 2 ;;
    --ranks) ranks="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown option '$1' ($usage)" >&2; exit 2 ;;
  esac
done
for v in "$steps" "$repeat" $cells_list $ranks; do
  case "$v" in ''|*[!0-9]*|0) echo "error: counts must be positive integers, got '$v' ($usage)" >&2; exit 2 ;; esac
done

lmp="${LMP:-lmp}"
mpirun_lmp="${LMP_MPIRUN:-mpirun.openmpi}"
have_lmp=0
command -v "$lmp" >/dev/null 2>&1 && have_lmp=1
cd "$root"
if [ -n "$exe" ]; then
  stratus_exe "$exe"  # the FFT line needs the build tree's bench_fft: left out
  exe=$STRATUS_EXE fft_bench=""
else
  # shellcheck disable=SC2119
  stratus_deps
  stratus_build cpu stratus bench_fft
  exe=build/cpu/stratus fft_bench=build/cpu/tests/bench_fft
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# lammps_run CELLS NP LOG [extra -var ...]: steps/s and "pair kspace neigh comm" seconds (avg over ranks).
lammps_run() {
  local cells=$1 np=$2 log=$3
  shift 3
  local cmd=("$lmp" -in scripts/bench/in.nacl_pppm -var cells "$cells" -var steps "$steps" -log "$log" -screen none "$@")
  if [ "$np" -gt 1 ]; then cmd=("$mpirun_lmp" -np "$np" "${cmd[@]}"); fi
  "${cmd[@]}" >/dev/null 2>&1 || { echo "error: LAMMPS failed, see its log:" >&2; tail -5 "$log" >&2; return 1; }
  awk -v steps="$steps" '
    /^Loop time of/ { loop = $4 }
    $1 == "Pair" && $2 == "|" { pair = $5 } $1 == "Kspace" { ks = $5 } $1 == "Neigh" { ne = $5 } $1 == "Comm" { co = $5 }
    END { printf "%.6g %s %s %s %s %s\n", steps / loop, pair, ks, ne, co, loop }' "$log"
}

# stratus_run DATA_OR_CELLS NP DIR: steps/s and "pair kspace neigh comm" seconds (avg over ranks).
stratus_run() {
  local src=$1 np=$2 dir=$3
  local sys=(--set "md.cells=$src $src $src" --set md.temperature=1500)
  [ -f "$src" ] && sys=(--set "md.data_file=$src" --set md.temperature=0)
  mpiexec.mpich -n "$np" "$exe" run inputs/md/nacl_melt.ini "${sys[@]}" --set md.ensemble=nve \
    --set "run.max_steps=$steps" --set run.history_every="$steps" --set run.snapshot_every=0 \
    --set md.trajectory=false --set md.write_data= --set "run.output_dir=$dir" -q >"$dir.log" 2>&1 ||
    { echo "error: stratus failed:" >&2; tail -5 "$dir.log" >&2; return 1; }
  python3 - "$dir/nacl_melt_report.json" "$steps" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
ph = r["phases"]
loop = sum(ph[k]["mean"] for k in ("compute", "communication", "neighbor", "kspace", "diagnostics"))
print("%.6g %s %s %s %s %s" % (int(sys.argv[2]) / loop, ph["compute"]["mean"], ph["kspace"]["mean"],
                               ph["neighbor"]["mean"], ph["communication"]["mean"], loop))
EOF
}

printf '\n# PPPM: molten NaCl, relative accuracy 1e-5, %d NVE steps, 1 thread per rank, median of %d alternating runs\n' \
  "$steps" "$repeat"
printf '%-7s %-5s %-8s %10s %9s %9s %9s %9s   %s\n' ions ranks code steps/s pair_s kspace_s neigh_s comm_s ratio
grids=()
for cells in $cells_list; do
  ions=$((8 * cells * cells * cells))
  data="$cells"
  if [ "$have_lmp" = 1 ]; then
    data="$tmp/nacl_$cells.data"
    "$lmp" -in scripts/bench/in.nacl_pppm -var cells "$cells" -var steps 0 -var write 1 -var data "$data" \
      -log "$tmp/setup_$cells.log" -screen none >/dev/null 2>&1 || { echo "error: LAMMPS set-up failed" >&2; exit 1; }
    grid=$(awk '/grid = / { print $3 }' "$tmp/setup_$cells.log" | head -1)
    grids+=("$grid")
  fi
  for np in $ranks; do
    s_all=() l_all=()
    for k in $(seq "$repeat"); do
      s_all+=("$(stratus_run "$data" "$np" "$tmp/s_${cells}_${np}_$k")")
      [ "$have_lmp" = 1 ] && l_all+=("$(lammps_run "$cells" "$np" "$tmp/l_${cells}_${np}_$k.log")")
    done
    pick() { local col=$1; shift; for l in "$@"; do echo "$l" | awk -v c="$col" '{ print $c }'; done | median; }
    s_rate=$(pick 1 "${s_all[@]}")
    printf '%-7s %-5s %-8s %10.2f %9.3f %9.3f %9.3f %9.3f\n' "$ions" "$np" stratus "$s_rate" \
      "$(pick 2 "${s_all[@]}")" "$(pick 3 "${s_all[@]}")" "$(pick 4 "${s_all[@]}")" "$(pick 5 "${s_all[@]}")"
    if [ "$have_lmp" = 1 ]; then
      l_rate=$(pick 1 "${l_all[@]}")
      printf '%-7s %-5s %-8s %10.2f %9.3f %9.3f %9.3f %9.3f   stratus/lammps %.2f\n' "$ions" "$np" lammps "$l_rate" \
        "$(pick 2 "${l_all[@]}")" "$(pick 3 "${l_all[@]}")" "$(pick 4 "${l_all[@]}")" "$(pick 5 "${l_all[@]}")" \
        "$(awk -v a="$s_rate" -v b="$l_rate" 'BEGIN { print a / b }')"
    fi
  done
done
[ "$have_lmp" = 1 ] || echo "(LAMMPS not installed: no reference; apt-get install lammps adds it)"

# The distributed FFT alone, on the PPPM grids (LAMMPS' choice, which is also Stratus'), against FFTW.
[ ${#grids[@]} -gt 0 ] || grids=(50 96)
if [ -z "$fft_bench" ]; then
  echo "(--exe: no FFT comparison, which needs the build tree's tests/bench_fft)"
  exit 0
fi
printf '\n# FFT: forward + backward of the PPPM grid, distributed (pencils) vs single-process FFTW_MEASURE\n'
for np in $ranks; do
  mpiexec.mpich -n "$np" "$fft_bench" "${grids[@]}" | grep '^bench: fft' | sed 's/^bench: //'
done
