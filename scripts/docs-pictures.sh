#!/usr/bin/env bash
# Regenerates every picture in docs/img from the documented commands, into OUT (a new temporary directory
# unless --out; `--out docs/img` replaces the pictures in the checkout, and only then is it written):
#   thermal.png               inputs/climate/thermal.ini at 600 s, theta' (climate_analysis.py plot)
#   straka.png                inputs/climate/straka.ini (dx = 100 m) at 900 s, theta', right half
#   thermal_paraview.png      inputs/climate/thermal.ini at 700 s through ParaView (render_paraview.py)
#   md_mixture_paraview.png   inputs/md/lj_mixture.ini, frame 2 (step 400, t = 1.2) by species, ParaView
#   md_nve.png                scripts/validate-md.sh --plot (32,000 atoms, 10,000 NVE steps)
#   pppm_energy_drift.png     inputs/md/ionic_liquid_lj.ini, 10,000 NVE steps (plot_energy_drift.py)
# About 10 minutes on 2 cores; --quick makes every run small (a check that the commands work, minutes
# less; not the documented pictures). Needs Debian's python3-h5py, python3-matplotlib, and ParaView with
# Xvfb for the two renders (scripts/install-deps.sh --test-tools installs them); a missing ParaView
# skips those two with a message. Builds first unless --exe names the executable.
# Usage: scripts/docs-pictures.sh [--exe PATH] [--out DIR] [--quick] [-n RANKS]
# Exit status: 0, 1 when a run or picture failed, 2 bad usage.
set -euo pipefail
# shellcheck source=scripts/lib/build.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"
root=$STRATUS_ROOT
usage="usage: scripts/docs-pictures.sh [--exe PATH] [--out DIR] [--quick] [-n RANKS]"
exe="" out="" quick=0 ranks=2
while [ $# -gt 0 ]; do
  case "$1" in
    --exe|--out|-n)
      if [ $# -lt 2 ] || [ -z "$2" ]; then echo "docs-pictures: $1 needs a value ($usage)" >&2; exit 2; fi
      case "$1" in --exe) exe=$2 ;; --out) out=$2 ;; -n) ranks=$2 ;; esac
      shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "docs-pictures: unknown argument '$1' ($usage)" >&2; exit 2 ;;
  esac
done
case "$ranks" in *[!0-9]*|0) echo "docs-pictures: -n wants a positive integer ($usage)" >&2; exit 2 ;; esac
py=/usr/bin/python3
"$py" -c 'import h5py, matplotlib' 2> /dev/null ||
  { echo "docs-pictures: needs python3-h5py and python3-matplotlib (scripts/install-deps.sh --test-tools)" >&2; exit 1; }
stratus_exe "$exe"
stratus_out_dir "$out" stratus-docs-pictures
out=$STRATUS_OUT
work=$(mktemp -d "${TMPDIR:-/tmp}/stratus-docs-runs.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OMP_PROC_BIND=${OMP_PROC_BIND:-false}
post=$root/scripts/post
failed=0

# run NAME DECK [--set ...]: the deck on RANKS ranks into $work/NAME (log: $work/NAME.log)
run() {
  local name=$1 deck=$2
  shift 2
  mpiexec.mpich -n "$ranks" "$STRATUS_EXE" run "$root/inputs/$deck" --set run.output_dir="$work/$name" "$@" \
    > "$work/$name.log" 2>&1 || { echo "docs-pictures: $deck failed:" >&2; tail -5 "$work/$name.log" >&2; return 1; }
}
last_h5() { find "$1" -maxdepth 1 -name "$2_[0-9]*.h5" | sort | tail -n 1; }
done_png() { echo "  $1"; }
pv=()
if command -v pvbatch > /dev/null; then
  pv=(pvbatch)
  if [ -z "${DISPLAY:-}" ]; then
    # One X server for both renders (scripts/lib/xvfb.sh: why not -displayfd or xvfb-run).
    if command -v Xvfb > /dev/null; then
      # shellcheck source=scripts/lib/xvfb.sh
      source "$(dirname "${BASH_SOURCE[0]}")/lib/xvfb.sh"
      if stratus_xvfb "$work"; then
        trap 'kill "$STRATUS_XVFB_PID" 2> /dev/null || true; rm -rf "$work"' EXIT
      else
        echo "docs-pictures: Xvfb did not start: $(cat "$work/xvfb.log")" >&2
        pv=()
        failed=1
      fi
    else
      pv=()
    fi
  fi
fi

if [ "$quick" = 1 ]; then
  th=(--set grid.nx=40 --set grid.nz=20) st=(--set grid.nx=128 --set grid.nz=16 --set run.t_end=300)
  mix=(--set md.cells="6 6 6") drift=(--set run.max_steps=600)
  nve=(--steps 600)
else
  th=() st=() mix=() drift=() nve=()
fi
echo "docs-pictures: $STRATUS_EXE, pictures in $out"
if run thermal climate/thermal.ini "${th[@]+"${th[@]}"}" --set run.t_end=600 --set run.snapshot_every=0 &&
  "$py" "$root/scripts/climate_analysis.py" plot "$(last_h5 "$work/thermal" thermal)" "$out/thermal.png"; then
  done_png thermal.png
else failed=1; fi
if run straka climate/straka.ini "${st[@]+"${st[@]}"}" &&
  "$py" "$root/scripts/climate_analysis.py" plot "$(last_h5 "$work/straka" straka)" "$out/straka.png" --xlim 0 25600; then
  done_png straka.png
else failed=1; fi
if [ ${#pv[@]} -eq 0 ]; then
  echo "docs-pictures: no ParaView (pvbatch and Xvfb): thermal_paraview.png and md_mixture_paraview.png skipped" >&2
else
  if run thermal700 climate/thermal.ini "${th[@]+"${th[@]}"}" --set run.t_end=700 --set run.snapshot_every=0 &&
    "${pv[@]}" "$post/render_paraview.py" "$work/thermal700/thermal.xmf" --field theta_prime \
      -o "$out/thermal_paraview.png" > "$work/pv1.log" 2>&1; then
    done_png thermal_paraview.png
  else failed=1; tail -5 "$work/pv1.log" >&2 || true; fi
  if run mixture md/lj_mixture.ini "${mix[@]+"${mix[@]}"}" --set run.snapshot_every=200 --set run.max_steps=400 &&
    "${pv[@]}" "$post/render_paraview.py" "$work/mixture/lj_mixture.xmf" --field species --frame 2 \
      -o "$out/md_mixture_paraview.png" > "$work/pv2.log" 2>&1; then
    done_png md_mixture_paraview.png
  else failed=1; tail -5 "$work/pv2.log" >&2 || true; fi
fi
# (A --quick run is too short for validate-md's drift bound: its picture is what counts there.)
if { "$root/scripts/validate-md.sh" --exe "$STRATUS_EXE" -n "$ranks" --plot --out "$work/nve" "${nve[@]+"${nve[@]}"}" \
  > "$work/nve.log" 2>&1 || [ "$quick" = 1 ]; } && cp "$work/nve/md_nve.png" "$out/md_nve.png"; then
  done_png md_nve.png
else failed=1; tail -5 "$work/nve.log" >&2; fi
if run drift md/ionic_liquid_lj.ini "${drift[@]+"${drift[@]}"}" &&
  "$py" "$post/plot_energy_drift.py" "$work/drift/ionic_liquid_lj_history.csv" --after 500 --ylim 20 \
    -o "$out/pppm_energy_drift.png" > "$work/drift_plot.log" 2>&1; then
  done_png pppm_energy_drift.png
else failed=1; tail -5 "$work/drift_plot.log" >&2 || true; fi
exit "$failed"
