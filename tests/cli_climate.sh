#!/usr/bin/env bash
# The climate decks through the stratus executable: every deck in inputs/climate passes `check`; the
# Euler fields are bitwise identical at 1, 2 and 4 ranks (x, z and xz splits; h5diff of the final
# snapshot); a diverging run stops with exit 1, names the step and the first non-finite cell, and leaves a
# last snapshot; a run past euler.courant_limit stops with the Courant number; walls where the solver
# needs periodic boundaries (and the reverse) are bad input (exit 2, the key named).
#   usage: cli_climate.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
require_tools python3

for deck in "$SRC"/inputs/climate/*.ini; do
  "$STRATUS" check "$deck" -q > /dev/null 2> err.txt || fail "check $(basename "$deck"): $(cat err.txt)"
done
pass "every climate deck passes check"

# Bitwise identity across rank counts and splits: collision (strong dynamics), 40 x 20 cells, 20 steps.
SMALL=(--set grid.nx=40 --set grid.nz=20 --set euler.case=collision --set run.max_steps=20 --set run.t_end=1e9
       --set run.snapshot_every=0 --set run.history_every=5)
run_np() {  # run_np NP DECOMP DIR
  "$MPIEXEC" -n "$1" "$STRATUS" run "$SRC/inputs/climate/thermal.ini" -q "${SMALL[@]}" --set "parallel.decomp=$2" \
    --set "run.output_dir=$3" > "$3.log" 2>&1 || fail "np $1 decomp '$2': $(cat "$3.log")"
}
run_np 1 "1 1 1" r1
for c in "2 2 1 1" "2 1 1 2" "4 2 1 2" "4 4 1 1" "4 1 1 4"; do
  set -- $c
  run_np "$1" "$2 $3 $4" "r$1_$2$3$4"
  for v in rho u w theta_prime p_prime; do
    h5diff -q r1/thermal_000020.h5 "r$1_$2$3$4/thermal_000020.h5" "/fields/$v" "/fields/$v" \
      || fail "field $v differs between 1 rank and $1 ranks split $2 x $3 x $4"
  done
done
pass "Euler fields bitwise identical at 1, 2 and 4 ranks (x, z and xz splits)"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "d_mass") c = i; next }
         { if ($c > 1e-12 || $c < -1e-12) bad = 1 } END { exit bad || !c }' r1/thermal_history.csv \
  || fail "d_mass above 1e-12 in the history table"
pass "history table: |d_mass| <= 1e-12 in every row"

# Divergence: a time step far beyond the stability limit.
set +e
"$STRATUS" run "$SRC/inputs/climate/thermal.ini" -q --set grid.nx=100 --set grid.nz=50 --set euler.cfl=2.9 \
  --set euler.courant_limit=100 --set run.history_every=1 --set run.output_dir=div > div.log 2>&1
rc=$?
set -e
[[ $rc == 1 ]] || fail "diverging run: exit $rc, expected 1"
grep -q "the run diverged at step [0-9]*" div.log || fail "no step in: $(cat div.log)"
grep -q "first non-finite value: field '.*' at cell ([0-9]*, 0, [0-9]*), x = .* m, z = .* m" div.log \
  || fail "no location in: $(cat div.log)"
step=$(sed -n 's/.*diverged at step \([0-9]*\).*/\1/p' div.log)
[[ -f div/thermal_$(printf %06d "$step").h5 ]] || fail "no last snapshot for step $step in div/"
# the run report records the failure (status, exit code 1, the message, the step reached); no NAME.done
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["run"]["status"] == "failed" and r["run"]["exit_code"] == 1, r["run"]
assert "diverged at step " + sys.argv[2] in r["run"]["error"], r["run"]["error"]
assert r["progress"]["end_step"] == int(sys.argv[2]) and r["segments"][-1]["exit_code"] == 1
' div/thermal_report.json "$step" || fail "the diverged run's report does not record the failure"
[[ ! -f div/thermal.done ]] || fail "a diverged run left thermal.done"
pass "a diverging run stops at step $step with the first non-finite cell named, a last snapshot and a report of the failure"

set +e
"$STRATUS" run "$SRC/inputs/climate/thermal.ini" -q --set grid.nx=100 --set grid.nz=50 \
  --set euler.courant_limit=1.0 --set run.output_dir=cfl > cfl.log 2>&1
rc=$?
set -e
[[ $rc == 1 ]] || fail "Courant limit: exit $rc, expected 1"
grep -q "the Courant number .* exceeds euler.courant_limit = 1 at cell ([0-9]*, 0, [0-9]*), x = .* m, z = .* m" \
  cfl.log || fail "no Courant message with its cell: $(cat cfl.log)"
pass "a run past euler.courant_limit stops with the Courant number and where it is"

for bad in "grid.bc_z=periodic:grid.bc_z" "grid.bc_x=wall:grid.bc_x" "grid.nz=2:grid.nz"; do
  set +e
  "$STRATUS" run "$SRC/inputs/climate/thermal.ini" --set "${bad%%:*}" --set run.output_dir=never > bad.log 2>&1
  rc=$?
  set -e
  [[ $rc == 2 ]] || fail "--set ${bad%%:*}: exit $rc, expected 2"
  grep -q "key '${bad##*:}'" bad.log || fail "--set ${bad%%:*}: key not named: $(cat bad.log)"
  [[ ! -e never ]] || fail "--set ${bad%%:*}: output written"
done
pass "bad boundary conditions and grids are refused with exit 2, naming the key"
