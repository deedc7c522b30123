#!/usr/bin/env bash
# Run-time comparison of two stratus executables on the same decks: the built-in default deck, the
# thermal bubble, the shallow-water wave and LAMMPS' LJ melt (inputs/md/lj_melt.ini), each run by both
# executables in turn (A B A B ...) so that a busy machine slows both alike; prints the median
# throughput of each (the "throughput:" line of the run summary: stepping, diagnostics and output) and
# the ratio NEW / REF. A ratio below 1 is a slowdown.
# Usage: scripts/bench-compare.sh REF [NEW] [--runs N] [--ranks R]
#   REF        the reference executable (e.g. a build of an earlier commit, kept outside the checkout)
#   NEW        the executable to measure (default: build/cpu/stratus)
#   --runs N   runs of each executable per deck (default 5; the median is reported)
#   --ranks R  MPI ranks, one OpenMP thread each (default 1)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage="usage: scripts/bench-compare.sh REF [NEW] [--runs N] [--ranks R]"
ref="" new="$root/build/cpu/stratus" runs=5 ranks=1
pos=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="${2:-}"; shift 2 ;;
    --ranks) ranks="${2:-}"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench-compare: unknown option '$1' ($usage)" >&2; exit 2 ;;
    *) if [ $pos = 0 ]; then ref="$1"; else new="$1"; fi; pos=$((pos + 1)); shift ;;
  esac
done
for v in "$runs" "$ranks"; do
  case "$v" in ''|*[!0-9]*|0) echo "bench-compare: --runs and --ranks want positive integers ($usage)" >&2; exit 2 ;; esac
done
[ -n "$ref" ] || { echo "bench-compare: no reference executable ($usage)" >&2; exit 2; }
for b in "$ref" "$new"; do
  [ -x "$b" ] || { echo "bench-compare: '$b' is not an executable" >&2; exit 2; }
done
tmp="$(mktemp -d "${TMPDIR:-/tmp}/stratus_bench.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# label | deck (empty: the built-in default) | overrides
cases=("default deck||"
       "Euler thermal 200 x 100, 300 steps|$root/inputs/climate/thermal.ini|--set run.max_steps=300 --set run.snapshot_every=0"
       "shallow water wave|$root/inputs/climate/sw_wave.ini|--set run.snapshot_every=0"
       "LJ melt 32000 atoms, 100 steps|$root/inputs/md/lj_melt.ini|")
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
printf '%-36s %14s %14s %8s\n' "case (median of $runs runs, $ranks rank(s))" "REF /s" "NEW /s" "NEW/REF"
for c in "${cases[@]}"; do
  IFS='|' read -r label deck extra <<< "$c"
  : > "$tmp/ref" && : > "$tmp/new"
  unit=""
  for ((r = 0; r < runs; ++r)); do
    for which in ref new; do
      bin=$ref; [ $which = new ] && bin=$new
      out="$tmp/out_$which"
      rm -rf "$out"
      # shellcheck disable=SC2086
      OMP_NUM_THREADS=1 OMP_PROC_BIND=false mpiexec.mpich -n "$ranks" "$bin" run ${deck:+"$deck"} \
        --set run.output_dir="$out" $extra > "$tmp/log" 2>&1 || { echo "bench-compare: $bin failed on '$label':" >&2; tail -5 "$tmp/log" >&2; exit 1; }
      line=$(grep '^throughput:' "$tmp/log" || true)
      [ -n "$line" ] || { echo "bench-compare: no throughput line from $bin on '$label'" >&2; exit 1; }
      echo "$line" | awk '{print $2}' >> "$tmp/$which"
      unit=$(echo "$line" | awk '{print $3}')
    done
  done
  a=$(median < "$tmp/ref") b=$(median < "$tmp/new")
  printf '%-36s %14.4g %14.4g %8.3f   %s\n' "$label" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN {print b / a}')" "$unit"
done
