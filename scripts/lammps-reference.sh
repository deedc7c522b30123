#!/usr/bin/env bash
# Regenerates the molecular-dynamics reference fixtures in tests/data/md/ with LAMMPS (`lmp`):
# for each case, runs <case>.setup.lmp (builds and melts the system, writes <case>.data), then
# <case>.ref.lmp (100 NVE steps from that data file, thermo every 10 steps printed with %.17g) and
# converts the thermo of that run to <case>.thermo.csv (step,time,temp,pe,ke,etotal,press).
# All runs are serial, so the files depend only on the LAMMPS build; rerunning gives the same files.
# With --check-decomp, each reference run is repeated on 4 MPI ranks laid out 2x2x1 and the largest
# relative difference from the serial thermo is printed per case and column (nothing is written).
# Usage: scripts/lammps-reference.sh [--check-decomp] [case ...]
#   cases: lj_liquid lj_mixture argon_real argon_metal (default: all)
#   env:   LMP (default lmp), LMP_MPIRUN (default mpirun.openmpi, the MPI that Debian's lmp uses)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/tests/data/md"
lmp="${LMP:-lmp}"
mpirun="${LMP_MPIRUN:-mpirun.openmpi}"
check=0
if [ "${1:-}" = "--check-decomp" ]; then check=1; shift; fi
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(lj_liquid lj_mixture argon_real argon_metal)

if ! command -v "$lmp" >/dev/null 2>&1; then
  echo "error: LAMMPS executable '$lmp' not found on PATH (Debian: apt-get install lammps)" >&2
  exit 1
fi
# Debian's lmp is linked against OpenMPI, which refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=1

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# thermo_csv LOG CSV: the thermo table of the last run in a LAMMPS log, as CSV.
thermo_csv() {
  /usr/bin/env python3 - "$1" "$2" <<'EOF'
import sys
want = ["Step", "Time", "Temp", "PotEng", "KinEng", "TotEng", "Press"]
lines = open(sys.argv[1]).read().splitlines()
heads = [i for i, l in enumerate(lines) if l.split() == want]
if not heads:
    sys.exit("error: no thermo table '%s' in %s" % (" ".join(want), sys.argv[1]))
rows = []
for l in lines[heads[-1] + 1:]:
    if l.startswith("Loop time"):
        break
    f = l.split()
    if len(f) != len(want):
        sys.exit("error: unexpected thermo line in %s: %r" % (sys.argv[1], l))
    int(f[0]); [float(x) for x in f[1:]]
    rows.append(",".join(f))
else:
    sys.exit("error: thermo table in %s not terminated by 'Loop time' (run failed?)" % sys.argv[1])
with open(sys.argv[2], "w") as out:
    out.write("step,time,temp,pe,ke,etotal,press\n")
    out.write("\n".join(rows) + "\n")
EOF
}

# run_lmp WORKDIR INPUT LOG [NP]: runs LAMMPS in WORKDIR (serially, or on NP ranks 2x2x1).
run_lmp() {
  local wd="$1" in="$2" log="$3" np="${4:-1}"
  local status=0
  if [ "$np" = 1 ]; then
    (cd "$wd" && "$lmp" -in "$in" -log "$log" -screen none) || status=$?
  else
    (cd "$wd" && "$mpirun" --oversubscribe --bind-to none -np "$np" "$lmp" -in "$in" -log "$log" \
      -screen none) || status=$?
  fi
  if [ "$status" != 0 ]; then
    echo "error: LAMMPS failed on $in (exit $status); log follows" >&2
    tail -n 20 "$wd/$log" >&2 || true
    exit 1
  fi
}

for c in "${cases[@]}"; do
  for f in "$c.setup.lmp" "$c.ref.lmp"; do
    [ -f "$dir/$f" ] || { echo "error: missing input $dir/$f" >&2; exit 1; }
  done
  wd="$tmp/$c"
  mkdir -p "$wd"
  cp "$dir/$c.setup.lmp" "$dir/$c.ref.lmp" "$wd/"
  if [ "$check" = 1 ]; then
    cp "$dir/$c.data" "$wd/"
    run_lmp "$wd" "$c.ref.lmp" ref1.log
    thermo_csv "$wd/ref1.log" "$wd/np1.csv"
    # Same input with an explicit 2x2x1 processor grid, placed right after the units command.
    sed '/^units/a processors      2 2 1' "$wd/$c.ref.lmp" > "$wd/ref4.lmp"
    run_lmp "$wd" ref4.lmp ref4.log 4
    thermo_csv "$wd/ref4.log" "$wd/np4.csv"
    /usr/bin/env python3 - "$c" "$wd/np1.csv" "$wd/np4.csv" <<'EOF'
import sys
name, a, b = sys.argv[1:]
ra = [l.split(",") for l in open(a).read().split()[1:]]
rb = [l.split(",") for l in open(b).read().split()[1:]]
assert len(ra) == len(rb), "row counts differ"
cols = ["temp", "pe", "ke", "etotal", "press"]
worst = []
for j, col in enumerate(cols, start=2):
    d = max(abs(float(x[j]) - float(y[j])) / max(abs(float(x[j])), 1e-300) for x, y in zip(ra, rb))
    worst.append("%s %.2e" % (col, d))
print("%-12s np4 (2x2x1) vs np1, max relative difference: %s" % (name, ", ".join(worst)))
EOF
    continue
  fi
  run_lmp "$wd" "$c.setup.lmp" setup.log
  [ -f "$wd/$c.data" ] || { echo "error: $c.setup.lmp did not write $c.data" >&2; exit 1; }
  run_lmp "$wd" "$c.ref.lmp" ref.log
  thermo_csv "$wd/ref.log" "$wd/$c.thermo.csv"
  cp "$wd/$c.data" "$wd/$c.thermo.csv" "$dir/"
  echo "wrote tests/data/md/$c.data ($(wc -c < "$dir/$c.data") bytes), tests/data/md/$c.thermo.csv"
done
