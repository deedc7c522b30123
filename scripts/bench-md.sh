#!/usr/bin/env bash
# Benchmark of the molecular-dynamics engine against LAMMPS on the same problem, LAMMPS' own LJ melt
# benchmark (bench/in.lj: 32,000 atoms, fcc 0.8442, lj/cut 2.5, NVE, 100 steps): atom-steps per second
# of Stratus (inputs/md/lj_melt.ini, the "throughput:" line of its run summary) and of LAMMPS
# (scripts/bench/in.lj, atoms x steps / "Loop time"), on 1 and 2 ranks with one thread each, plus the
# figures per core and the ratio Stratus/LAMMPS. LAMMPS is optional (Debian: apt-get install lammps);
# without `lmp` on PATH only Stratus is measured. Builds first if needed.
# Usage: scripts/bench-md.sh [--steps N] [--ranks "1 2"] [--lammps-only]
#   --steps N      steps for both codes (default 100)
#   --ranks LIST   rank counts to measure (default "1 2")
#   --lammps-only  measure LAMMPS only (no build, no Stratus run)
#   env: LMP (default lmp), LMP_MPIRUN (default mpirun.openmpi, the MPI that Debian's lmp uses)
set -euo pipefail
# shellcheck source=scripts/lib/build.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"
root=$STRATUS_ROOT
steps=100
ranks="1 2"
do_stratus=1 exe=""
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps="$2"; shift 2 ;;
    --ranks) ranks="$2"; shift 2 ;;
    --exe) exe="${2:-}"; [ -n "$exe" ] || { echo "error: --exe needs a path" >&2; exit 2; }; shift 2 ;;
    --lammps-only) do_stratus=0; shift ;;
    *) echo "error: unknown option '$1' (usage: scripts/bench-md.sh [--steps N] [--ranks \"1 2\"] [--lammps-only] [--exe PATH])" >&2
       exit 2 ;;
  esac
done
case "$steps" in ''|*[!0-9]*|0) echo "error: --steps wants a positive integer, got '$steps'" >&2; exit 2 ;; esac

deck=inputs/md/lj_melt.ini
lmp="${LMP:-lmp}"
mpirun_lmp="${LMP_MPIRUN:-mpirun.openmpi}"
have_lmp=0
command -v "$lmp" >/dev/null 2>&1 && have_lmp=1
if [ "$do_stratus" = 0 ] && [ "$have_lmp" = 0 ]; then
  echo "error: --lammps-only, but LAMMPS ('$lmp') is not installed (apt-get install lammps adds it)" >&2
  exit 1
fi

cd "$root"
if [ "$do_stratus" = 1 ]; then
  [ -f "$deck" ] || { echo "error: deck $deck not found" >&2; exit 1; }
  stratus_exe "$exe"
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false
# Debian's lmp is linked against OpenMPI, which refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

failed=0
declare -A s_rate l_rate c_rate s_builds l_builds c_builds
for r in $ranks; do
  if [ "$do_stratus" = 1 ]; then
    echo "== Stratus LJ melt, $r rank(s) x 1 thread, $steps steps" >&2
    out="$tmp/stratus-$r.txt"
    # run.max_steps fixes the step count; t_end is lifted so that it never stops the run first.
    status=0
    mpiexec.mpich -n "$r" "$STRATUS_EXE" run "$deck" --set "run.output_dir=$tmp/out-$r" \
      --set "run.max_steps=$steps" --set run.t_end=1e9 >"$out" 2>&1 || status=$?
    rate=$(awk '/throughput:/ { for (i = 1; i < NF; i++) if ($i == "throughput:" && $(i + 2) ~ /^atom-steps\/s/) v = $(i + 1) }
                END { if (v != "") print v }' "$out")
    if [ "$status" != 0 ] || [ -z "$rate" ]; then
      if [ "$status" != 0 ]; then
        echo "error: stratus exited with status $status on $r rank(s); last lines of its output:" >&2
      else
        echo "error: no 'throughput: <number> atom-steps/s' line in the output of stratus on $r rank(s); last lines:" >&2
      fi
      tail -n 15 "$out" | sed 's/^/  | /' >&2
      failed=1
    else
      s_rate[$r]=$rate
      s_builds[$r]=$(awk '/^neighbor lists:/ { print $3 }' "$out")
    fi
  fi
  if [ "$have_lmp" = 1 ]; then
    # Two LAMMPS runs: bench/in.lj as published (rebuild every 20 steps, unchecked) and with Stratus'
    # policy (check every step, rebuild when an atom moved half the skin: no pair is ever missed).
    for variant in published checked; do
      if [ "$variant" = published ]; then nv=(-var every 20 -var check no); else nv=(-var every 1 -var check yes); fi
      echo "== LAMMPS in.lj ($variant neighbor policy), $r rank(s) x 1 thread, $steps steps" >&2
      scr="$tmp/lammps-$variant-$r.txt"
      status=0
      "$mpirun_lmp" --oversubscribe --bind-to none -np "$r" "$lmp" -in scripts/bench/in.lj -var steps "$steps" \
        "${nv[@]}" -log none -screen "$scr" >"$tmp/lammps-$r.err" 2>&1 || status=$?
      # "Loop time of T on P procs for S steps with N atoms"
      rate=$(awk '/^Loop time of/ { if ($4 > 0) printf "%.6g", $12 * $9 / $4 }' "$scr" 2>/dev/null || true)
      builds=$(awk '/^Neighbor list builds/ { print $NF }' "$scr" 2>/dev/null || true)
      if [ "$status" != 0 ] || [ -z "$rate" ]; then
        echo "error: LAMMPS failed on $r rank(s) (status $status); last lines:" >&2
        cat "$tmp/lammps-$r.err" "$scr" 2>/dev/null | tail -n 15 | sed 's/^/  | /' >&2
        failed=1
      elif [ "$variant" = published ]; then
        l_rate[$r]=$rate; l_builds[$r]=$builds
      else
        c_rate[$r]=$rate; c_builds[$r]=$builds
      fi
    done
  fi
done

echo
echo "LJ melt, 32,000 atoms, $steps steps, atom-steps/s (1 thread per rank, so per core = per rank);"
echo "LAMMPS as published (every 20 steps, unchecked) and checked (every step, as Stratus); builds in ()"
printf '%-6s %20s %20s %20s %10s %10s\n' ranks Stratus "LAMMPS published" "LAMMPS checked" "S/L pub" "S/L chk"
for r in $ranks; do
  awk -v r="$r" -v s="${s_rate[$r]:-}" -v l="${l_rate[$r]:-}" -v c="${c_rate[$r]:-}" -v sb="${s_builds[$r]:-}" \
      -v lb="${l_builds[$r]:-}" -v cb="${c_builds[$r]:-}" '
    function f(x, b) { return x == "" ? "-" : sprintf("%.4g (%s)", x, b == "" ? "?" : b) }
    function q(a, b) { return (a == "" || b == "") ? "-" : sprintf("%.3f", a / b) }
    BEGIN { printf "%-6s %20s %20s %20s %10s %10s\n", r, f(s, sb), f(l, lb), f(c, cb), q(s, l), q(s, c) }'
done
if [ "$have_lmp" = 0 ]; then
  echo "LAMMPS is not installed ('$lmp' not on PATH): apt-get install lammps adds it."
fi
[ "$do_stratus" = 1 ] || echo "(Stratus not measured: --lammps-only)"
exit "$failed"
