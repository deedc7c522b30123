#!/usr/bin/env bash
# Validation (not a unit test; minutes): energy conservation of the MD engine's velocity Verlet over a
# long NVE run: the LJ melt (32,000 atoms, fcc 0.8442, T* 1.44) with the potential shifted to zero at the
# cutoff, 10,000 steps of 0.005 tau. The drift |E(end) - E(0)| / |E(0)| and the drift of a straight-line
# fit of E(t) over the whole run must both stay within 1e-5; also printed: the largest excursion
# |E(t) - E(0)| / |E(0)| (it comes from the first steps, when the lattice collapses into a liquid) and
# the excursion after them. With --plot it draws T and E over the run (OUT/md_nve.png; needs
# python3-matplotlib, installed if missing). Builds first if needed (scripts/run.sh does the set-up),
# unless --exe names the executable to run.
#
# Usage: scripts/validate-md.sh [-n RANKS] [--steps N] [--plot] [--exe PATH] [--out DIR]
#   (default: 2 ranks, 10000 steps, build/cpu/stratus built first, OUT a new temporary directory; the
#   checkout is written only when --out points into it)
set -euo pipefail
# shellcheck source=scripts/lib/build.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"
root=$STRATUS_ROOT
ranks=2
steps=10000
plot=0 exe="" out=""
usage="usage: validate-md.sh [-n RANKS] [--steps N] [--plot] [--exe PATH] [--out DIR]"
while [ $# -gt 0 ]; do
  case "$1" in
    -n|--steps|--exe|--out)
      if [ $# -lt 2 ] || [ -z "$2" ]; then echo "validate-md: $1 needs a value ($usage)" >&2; exit 2; fi
      case "$1" in -n) ranks=$2 ;; --steps) steps=$2 ;; --exe) exe=$2 ;; --out) out=$2 ;; esac
      shift 2 ;;
    --plot) plot=1; shift ;;
    *) echo "validate-md: unknown argument '$1' ($usage)" >&2; exit 2 ;;
  esac
done
for v in "$ranks" "$steps"; do
  case "$v" in *[!0-9]*|0) echo "validate-md: -n and --steps want positive integers ($usage)" >&2; exit 2 ;; esac
done
if [ "$plot" = 1 ] && ! /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-matplotlib >&2
  else
    echo "validate-md: --plot needs python3-matplotlib (apt-get install python3-matplotlib)" >&2
    exit 1
  fi
fi
stratus_exe "$exe"
stratus_out_dir "$out" stratus-validate-md
out=$STRATUS_OUT
threads=$(( $(nproc) / ranks )); [ "$threads" -ge 1 ] || threads=1
echo "validate-md: $STRATUS_EXE, output in $out"
t0=$(date +%s)
OMP_NUM_THREADS=$threads OMP_PROC_BIND=false mpiexec.mpich -n "$ranks" "$STRATUS_EXE" run "$root/inputs/md/lj_melt.ini" \
  --set md.shift=true --set run.max_steps="$steps" --set run.history_every=20 --set run.output_dir="$out" \
  --set run.name=nve >"$out/nve.log" 2>&1 || { tail -20 "$out/nve.log" >&2; exit 1; }
t1=$(date +%s)
grep '^throughput' "$out/nve.log" || true
/usr/bin/python3 - "$out/nve_history.csv" "$plot" "$out/md_nve.png" "$((t1 - t0))" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
step = [float(r["step"]) for r in rows]
e = [float(r["etotal"]) for r in rows]
t = [float(r["temp"]) for r in rows]
pe = [float(r["pe"]) for r in rows]
e0 = e[0]
dev = max(abs(x - e0) for x in e) / abs(e0)
at = int(step[max(range(len(e)), key=lambda k: abs(e[k] - e0))])
late = [x for s, x in zip(step, e) if s >= 500]
dev_late = max(abs(x - late[0]) for x in late) / abs(e0)
end = abs(e[-1] - e0) / abs(e0)
n = len(step); ms = sum(step) / n; me = sum(e) / n
slope = sum((s - ms) * (x - me) for s, x in zip(step, e)) / sum((s - ms) ** 2 for s in step)
fit = abs(slope * (step[-1] - step[0])) / abs(e0)
ok = end <= 1e-5 and fit <= 1e-5
print(f"NVE LJ melt, 32000 atoms, shifted lj/cut 2.5, dt 0.005, {int(step[-1])} steps in {sys.argv[4]} s")
print(f"E/N: start {e0:.10f}, end {e[-1]:.10f}; T: {t[0]:.4f} -> {t[-1]:.4f}")
print(f"drift |E(end) - E(0)| / |E(0)| = {end:.3e}; fitted drift over the run = {fit:.3e}"
      f"  (each required <= 1e-5: {'PASS' if ok else 'FAIL'})")
print(f"largest excursion |E(t) - E(0)| / |E(0)| = {dev:.3e} at step {at}; after step 500 "
      f"(relative to E(500)) {dev_late:.3e}")
if sys.argv[2] == "1":
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    time = [s * 0.005 for s in step]
    ke = [float(r["ke"]) for r in rows]
    fig, ax = plt.subplots(3, 1, figsize=(7, 7), sharex=True)
    ax[0].plot(time, t, color="tab:red")
    ax[0].set_ylabel("T* (3N-3 dof)")
    ax[0].set_title("LJ melt, 32,000 atoms, NVE (shifted lj/cut 2.5, dt 0.005)")
    ax[1].plot(time, pe, label="PE/N")
    ax[1].plot(time, ke, label="KE/N")
    ax[1].plot(time, e, label="E/N", color="k")
    ax[1].set_ylabel("energy per atom (epsilon)")
    ax[1].legend(loc="center right")
    ax[2].plot(time, [(x - e0) / abs(e0) * 1e5 for x in e], color="k", lw=0.8)
    ax[2].axhline(0.0, color="grey", lw=0.5)
    ax[2].set_ylim(-3, 3)
    ax[2].set_ylabel("(E - E(0)) / |E(0)|  [1e-5]")
    ax[2].set_xlabel("time (tau)")
    fig.tight_layout()
    fig.savefig(sys.argv[3], dpi=110)
    print("wrote", sys.argv[3])
sys.exit(0 if ok else 1)
PY
