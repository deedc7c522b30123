#!/usr/bin/env bash
# Regenerates the molecular-dynamics reference fixtures in tests/data/md/ with LAMMPS (`lmp`):
# for each case, runs <case>.setup.lmp (builds and melts the system, writes <case>.data), then its
# reference inputs (100 NVE steps from that data file, thermo every 10 steps printed with %.17g) and
# converts the thermo of each to CSV:
#   uncharged cases: <case>.ref.lmp -> <case>.thermo.csv (step,time,temp,pe,ke,etotal,press)
#   charged cases:   <case>_<solver>.ref.lmp -> <case>_<solver>.thermo.csv for each solver (ewald, pppm,
#                    pppm_ad: PPPM with analytic differentiation)
#                    (step,time,temp,pe,ke,etotal,press,evdwl,ecoul,elong)
# All runs are serial, so the files depend only on the LAMMPS build; rerunning gives the same files.
# With --check-decomp, each reference run is repeated on 4 MPI ranks laid out 2x2x1 and the largest
# relative difference from the serial thermo is printed per reference and column (nothing is written).
# Usage: scripts/lammps-reference.sh [--check-decomp] [case ...]
#   cases: lj_liquid lj_mixture argon_real argon_metal ionic_lj nacl_real (default: all)
#   env:   LMP (default lmp), LMP_MPIRUN (default mpirun.openmpi, the MPI that Debian's lmp uses)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/tests/data/md"
lmp="${LMP:-lmp}"
mpirun="${LMP_MPIRUN:-mpirun.openmpi}"
check=0
if [ "${1:-}" = "--check-decomp" ]; then check=1; shift; fi
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(lj_liquid lj_mixture argon_real argon_metal ionic_lj nacl_real)

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
# LAMMPS thermo header -> CSV column; the table is either the first 7 or all 10 of these.
names = [("Step", "step"), ("Time", "time"), ("Temp", "temp"), ("PotEng", "pe"), ("KinEng", "ke"),
         ("TotEng", "etotal"), ("Press", "press"), ("E_vdwl", "evdwl"), ("E_coul", "ecoul"),
         ("E_long", "elong")]
tables = [[h for h, _ in names[:7]], [h for h, _ in names]]
lines = open(sys.argv[1]).read().splitlines()
heads = [i for i, l in enumerate(lines) if l.split() in tables]
if not heads:
    sys.exit("error: no thermo table '%s' (or that plus 'E_vdwl E_coul E_long') in %s"
             % (" ".join(tables[0]), sys.argv[1]))
want = lines[heads[-1]].split()
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
    out.write(",".join(c for _, c in names[:len(want)]) + "\n")
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

# refs_of CASE: the reference runs of a case, as names <ref> of <ref>.ref.lmp / <ref>.thermo.csv:
# <case> itself, or <case>_<solver> for each k-space solver input present.
refs_of() {
  local c="$1" r found=0
  if [ -f "$dir/$c.ref.lmp" ]; then echo "$c"; return; fi
  for r in ewald pppm pppm_ad; do
    if [ -f "$dir/${c}_$r.ref.lmp" ]; then echo "${c}_$r"; found=1; fi
  done
  [ "$found" = 1 ] || { echo "error: no $c.ref.lmp nor ${c}_<solver>.ref.lmp in $dir" >&2; exit 1; }
}

for c in "${cases[@]}"; do
  [ -f "$dir/$c.setup.lmp" ] || { echo "error: missing input $dir/$c.setup.lmp" >&2; exit 1; }
  refs=($(refs_of "$c"))
  wd="$tmp/$c"
  mkdir -p "$wd"
  cp "$dir/$c.setup.lmp" "$wd/"
  for r in "${refs[@]}"; do cp "$dir/$r.ref.lmp" "$wd/"; done
  if [ "$check" = 1 ]; then
    cp "$dir/$c.data" "$wd/"
    for r in "${refs[@]}"; do
      run_lmp "$wd" "$r.ref.lmp" "$r.np1.log"
      thermo_csv "$wd/$r.np1.log" "$wd/$r.np1.csv"
      # Same input with an explicit 2x2x1 processor grid, placed right after the units command.
      sed '/^units/a processors      2 2 1' "$wd/$r.ref.lmp" > "$wd/$r.np4.lmp"
      run_lmp "$wd" "$r.np4.lmp" "$r.np4.log" 4
      thermo_csv "$wd/$r.np4.log" "$wd/$r.np4.csv"
      /usr/bin/env python3 - "$r" "$wd/$r.np1.csv" "$wd/$r.np4.csv" <<'EOF'
import sys
name, a, b = sys.argv[1:]
la, lb = open(a).read().split(), open(b).read().split()
assert la[0] == lb[0], "headers differ"
ra = [l.split(",") for l in la[1:]]
rb = [l.split(",") for l in lb[1:]]
assert len(ra) == len(rb), "row counts differ"
cols = la[0].split(",")
worst = []
for j, col in enumerate(cols):
    if col in ("step", "time"):
        continue
    d = max(abs(float(x[j]) - float(y[j])) / max(abs(float(x[j])), 1e-300) for x, y in zip(ra, rb))
    worst.append("%s %.2e" % (col, d))
print("%-16s np4 (2x2x1) vs np1, max relative difference: %s" % (name, ", ".join(worst)))
EOF
    done
    continue
  fi
  run_lmp "$wd" "$c.setup.lmp" setup.log
  [ -f "$wd/$c.data" ] || { echo "error: $c.setup.lmp did not write $c.data" >&2; exit 1; }
  for r in "${refs[@]}"; do
    run_lmp "$wd" "$r.ref.lmp" "$r.log"
    thermo_csv "$wd/$r.log" "$wd/$r.thermo.csv"
  done
  # Nothing of the case is replaced unless all its runs succeeded.
  cp "$wd/$c.data" "$dir/"
  echo "wrote tests/data/md/$c.data ($(wc -c < "$dir/$c.data") bytes)"
  for r in "${refs[@]}"; do
    cp "$wd/$r.thermo.csv" "$dir/"
    echo "wrote tests/data/md/$r.thermo.csv"
  done
done
