#!/usr/bin/env bash
# The postprocessing tools of scripts/post/ on the output of two tiny real runs (the built-in 3D
# advection deck at 16^3 and a 2D rising thermal at 40 x 20): plot_history.py and slice.py write PNGs
# and reject unknown columns and fields and non-Stratus files with exit status 2; h5compare.py finds a
# snapshot equal to itself (0), the first and last snapshots different (1, naming the largest
# difference) and a missing file or a shape mismatch bad input (2); render_paraview.py renders the grid
# series through pvbatch (under an Xvfb of its own without a display), and ParaView must open a 2D
# series as a surface; without ParaView every other check still runs and the test ends skipped (77), never passed
# (scripts/test.sh installs ParaView and Xvfb). The tools run with Debian's /usr/bin/python3 (or $STRATUS_PYTHON); without h5py, numpy and
# matplotlib there the test is skipped (exit 77).
#   usage: post_scripts.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
SOURCE_DIR=$SRC
POST=$SOURCE_DIR/scripts/post
PY=${STRATUS_PYTHON:-/usr/bin/python3}
export MPLBACKEND=Agg
export PYTHONDONTWRITEBYTECODE=1

[[ -x $STRATUS ]] || fail "stratus executable '$STRATUS' not found"
[[ -d $POST ]] || fail "scripts/post not found under '$SOURCE_DIR'"
"$PY" -c 'import h5py, numpy, matplotlib' 2> /dev/null ||
  skip "$PY cannot import h5py, numpy and matplotlib (Debian: python3-h5py python3-numpy python3-matplotlib)"

# is_png FILE: a non-empty file starting with the PNG signature.
is_png() {
  [[ -s $1 ]] && [[ $(head -c 8 "$1" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]
}

# --- two tiny runs --------------------------------------------------------------------------------------
expect_rc 0 run_adv.log "$STRATUS" run --set grid.nx=16 --set grid.ny=16 --set grid.nz=16 \
  --set run.output_dir="$T/adv"
expect_rc 0 run_th.log "$STRATUS" run "$SOURCE_DIR/inputs/climate/thermal.ini" --set grid.nx=40 \
  --set grid.nz=20 --set run.max_steps=6 --set run.snapshot_every=3 --set run.history_every=2 \
  --set run.output_dir="$T/th"
ADV=("$T"/adv/default_[0-9]*.h5)
TH=("$T"/th/thermal_[0-9]*.h5)
[[ ${#ADV[@]} -ge 2 && -f ${ADV[0]} ]] || fail "the advection run wrote fewer than 2 snapshots: ${ADV[*]}"
[[ ${#TH[@]} -ge 2 && -f ${TH[0]} ]] || fail "the thermal run wrote fewer than 2 snapshots: ${TH[*]}"
ADV_FIRST=${ADV[0]} ADV_LAST=${ADV[-1]} TH_LAST=${TH[-1]}
pass "runs: ${#ADV[@]} advection snapshots (16^3), ${#TH[@]} thermal snapshots (40 x 20)"

# --- plot_history.py ------------------------------------------------------------------------------------
expect_rc 0 ph1.log "$PY" "$POST/plot_history.py" "$T/th/thermal_history.csv" -o "$T/th_hist.png"
is_png "$T/th_hist.png" || fail "plot_history.py wrote no PNG at $T/th_hist.png"
expect_rc 0 ph2.log "$PY" "$POST/plot_history.py" "$T/adv/default_history.csv" -c mass err_l2 --x step
is_png "$T/adv/default_history.png" || fail "plot_history.py wrote no PNG next to the table (default name)"
grep -qx "panels: mass, err_l2 against step" ph2.log || fail "plot_history.py -c mass err_l2: $(cat ph2.log)"
# a repeated -c adds columns (docs/output.md shows -c d_mass -c theta_min); units from NAME_report.json
expect_rc 0 ph2b.log "$PY" "$POST/plot_history.py" "$T/th/thermal_history.csv" -c d_mass -c theta_min -o "$T/ph2b.png"
grep -qxF "panels: d_mass [1], theta_min [K] against time [s]" ph2b.log || fail "plot_history.py -c d_mass -c theta_min: $(cat ph2b.log)"
expect_rc 2 ph3.log "$PY" "$POST/plot_history.py" "$T/adv/default_history.csv" -c no_such_column
grep -q "unknown column.*no_such_column" ph3.log || fail "plot_history.py: no 'unknown column' message: $(cat ph3.log)"
expect_rc 2 ph4.log "$PY" "$POST/plot_history.py" "$ADV_LAST"
grep -qF "$ADV_LAST" ph4.log || fail "plot_history.py: the error does not name the file: $(cat ph4.log)"
pass "plot_history.py: PNGs for all diagnostics and chosen columns; exit 2 for an unknown column and a non-table"

# --- plot_energy_drift.py ------------------------------------------------------------------------------
# An NVE run of charged ions with PPPM (the ionic-liquid deck, 60 steps): the drift it prints must be the
# one of the table (recomputed here from the CSV).
expect_rc 0 run_es.log "$STRATUS" run "$SOURCE_DIR/inputs/md/ionic_liquid_lj.ini" --set run.max_steps=60 \
  --set run.history_every=10 --set md.kspace_accuracy=1e-3 --set run.output_dir="$T/es"
expect_rc 0 ed1.log "$PY" "$POST/plot_energy_drift.py" "$T/es/ionic_liquid_lj_history.csv" -o "$T/es_drift.png"
is_png "$T/es_drift.png" || fail "plot_energy_drift.py wrote no PNG"
want=$("$PY" - "$T/es/ionic_liquid_lj_history.csv" <<'EOF2'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
e0, e1 = float(rows[0]["etotal"]), float(rows[-1]["etotal"])
print("%.3e" % ((e1 - e0) / abs(e0)))
EOF2
)
grep -qF -- "$want" ed1.log || fail "plot_energy_drift.py: the end-to-end drift $want is not in its output: $(cat ed1.log)"
expect_rc 2 ed2.log "$PY" "$POST/plot_energy_drift.py" "$T/adv/default_history.csv"
pass "plot_energy_drift.py: PNG and the drift of an NVE PPPM run ($want); exit 2 for a table without etotal"

# --- slice.py -------------------------------------------------------------------------------------------
expect_rc 0 sl1.log "$PY" "$POST/slice.py" "$TH_LAST" theta_prime -o "$T/th_theta.png"
is_png "$T/th_theta.png" || fail "slice.py wrote no PNG for the 2D thermal snapshot"
expect_rc 0 sl2.log "$PY" "$POST/slice.py" "$ADV_LAST" q --axis z --at 0.3 -o "$T/adv_q.png"
is_png "$T/adv_q.png" || fail "slice.py wrote no PNG for a z plane of the 3D advection snapshot"
expect_rc 2 sl3.log "$PY" "$POST/slice.py" "$ADV_LAST" no_such_field
grep -q "unknown field 'no_such_field'" sl3.log || fail "slice.py: no 'unknown field' message: $(cat sl3.log)"
grep -qF "$ADV_LAST" sl3.log || fail "slice.py: the error does not name the file: $(cat sl3.log)"
expect_rc 2 sl4.log "$PY" "$POST/slice.py" "$T/missing.h5" q
expect_rc 2 sl5.log "$PY" "$POST/slice.py" "$ADV_LAST" q --axis x --index 16
grep -q "outside 0..15" sl5.log || fail "slice.py: no range in the error for --index 16: $(cat sl5.log)"
! ls "$T"/adv/*no_such_field* > /dev/null 2>&1 || fail "slice.py wrote an image for an unknown field"
pass "slice.py: PNGs for a 2D field and a 3D plane; exit 2 for an unknown field, a missing file, an index outside"

# --- h5compare.py ---------------------------------------------------------------------------------------
expect_rc 0 hc1.log "$PY" "$POST/h5compare.py" "$ADV_LAST" "$ADV_LAST" --rtol 0 --atol 0
grep -q "SAME" hc1.log || fail "h5compare.py: no verdict for a snapshot against itself: $(cat hc1.log)"
expect_rc 1 hc2.log "$PY" "$POST/h5compare.py" "$ADV_FIRST" "$ADV_LAST" --rtol 1e-14 --atol 0
grep -q "/fields/q .*max|a-b| [0-9]" hc2.log || fail "h5compare.py: no max|a-b| for /fields/q: $(cat hc2.log)"
grep -q "largest difference: a = .*, b = .* at ([0-9]*, [0-9]*, [0-9]*)" hc2.log ||
  fail "h5compare.py: the largest difference is not printed with its index: $(cat hc2.log)"
expect_rc 0 hc3.log "$PY" "$POST/h5compare.py" "$ADV_FIRST" "$ADV_LAST" --atol 10
expect_rc 1 hc4.log "$PY" "$POST/h5compare.py" "$TH_LAST" "$ADV_LAST" --only 'fields/*'
if ! grep -q "only in A" hc4.log || ! grep -q "only in B" hc4.log; then
  fail "h5compare.py: datasets present in one file only are not listed: $(cat hc4.log)"
fi
# Snapshots of different grids: their CF coordinates /x, /y, /z cannot be compared.
expect_rc 2 hc4b.log "$PY" "$POST/h5compare.py" "$TH_LAST" "$ADV_LAST"
grep -q "cannot compare /x, /y, /z" hc4b.log || fail "h5compare.py: different grids not named: $(cat hc4b.log)"
expect_rc 2 hc5.log "$PY" "$POST/h5compare.py" "$ADV_LAST" "$T/missing.h5"
grep -qF "$T/missing.h5" hc5.log || fail "h5compare.py: the error does not name the missing file: $(cat hc5.log)"
"$PY" -c 'import h5py, sys; h5py.File(sys.argv[1], "w").create_dataset("fields/q", data=[[[1.0]]])' "$T/small.h5"
expect_rc 2 hc6.log "$PY" "$POST/h5compare.py" "$ADV_LAST" "$T/small.h5"
grep -q "MISMATCH: shape" hc6.log || fail "h5compare.py: no shape mismatch reported: $(cat hc6.log)"
pass "h5compare.py: 0 for a file against itself, 1 for first vs last (largest difference printed), 2 for bad input"

# --- render_paraview.py (only where ParaView is installed) ----------------------------------------------
# Without ParaView the other checks still run, and the test then ends as skipped (77), not passed.
pv_missing=""
if ! command -v pvbatch > /dev/null; then
  pv_missing="pvbatch not found (Debian: paraview python3-paraview; scripts/test.sh installs them)"
else
  PV=(pvbatch)
  if [[ -z ${DISPLAY:-} ]]; then
    if command -v Xvfb > /dev/null; then
      # One X server for the whole test (scripts/lib/xvfb.sh: why not -displayfd or xvfb-run).
      # shellcheck source=scripts/lib/xvfb.sh
      source "$SRC/scripts/lib/xvfb.sh"
      stratus_xvfb "$T" || fail "Xvfb did not start: $(cat "$T/xvfb.log")"
      test_cleanup() { kill "$STRATUS_XVFB_PID" 2> /dev/null || true; }
      # Before a retry: a fresh server on another number.
      renew_x() {
        kill "$STRATUS_XVFB_PID" 2> /dev/null || true
        stratus_xvfb "$T" || fail "Xvfb did not start again: $(cat "$T/xvfb.log")"
      }
    else
      pv_missing="no display and no Xvfb (Debian: xvfb)"
      PV=()
    fi
  fi
  declare -F renew_x > /dev/null || renew_x() { :; }  # a display of the caller's: used as it is
  # render WANT_RC LOG ARGS...: one retry, on a fresh X server, when pvbatch failed (neither 0 nor 2)
  render() {
    local want=$1 log=$2 rc=0
    shift 2
    "${PV[@]}" "$POST/render_paraview.py" "$@" > "$log" 2>&1 || rc=$?
    if [[ $rc -ne 0 && $rc -ne 2 ]]; then
      renew_x
      rc=0
      "${PV[@]}" "$POST/render_paraview.py" "$@" > "$log" 2>&1 || rc=$?
    fi
    [[ $rc -eq $want ]] || { cat "$log" >&2; fail "render_paraview.py $*: exit $rc, expected $want"; }
  }
  if [[ ${#PV[@]} -gt 0 ]]; then
    render 0 pv1.log "$T/th/thermal.xmf" --field theta_prime -o "$T/pv_th.png" --size 600 400
    is_png "$T/pv_th.png" || fail "render_paraview.py wrote no PNG for the thermal series"
    render 0 pv2.log "$T/adv/default.xmf" --frame 0 -o "$T/pv_adv.png" --size 400 400
    is_png "$T/pv_adv.png" || fail "render_paraview.py wrote no PNG for a slice of the 3D series"
    render 2 pv3.log "$T/th/thermal.xmf" --field no_such_field
    grep -q "unknown field 'no_such_field'" pv3.log || fail "render_paraview.py: no 'unknown field' message"
    # theta' = 0 (most of the domain) must come out as the diverging map's neutral centre (light grey),
    # not the dark blue of a map stretched over [0, max].
    expect_rc 0 pv_px.log "$PY" - "$T/pv_th.png" << 'EOF'
import sys
import matplotlib.image as mpimg
import numpy as np
img = (mpimg.imread(sys.argv[1])[..., :3] * 255).round().astype(int)
flat = img.reshape(-1, 3)
coloured = flat[(flat.min(axis=1) < 245)]  # not the white background
colours, counts = np.unique(coloured, axis=0, return_counts=True)
r, g, b = colours[np.argmax(counts)]
print(f"most common colour {r} {g} {b} of {len(coloured)} coloured pixels")
sys.exit(0 if abs(int(r) - int(b)) < 30 and min(r, g, b) > 150 else 1)
EOF
    pass "render_paraview.py: PNGs of the 2D thermal and a 3D slice through pvbatch (theta' = 0 neutral: \
$(head -1 pv_px.log)); exit 2 for an unknown field"
    # One retry on a fresh X server, as in render(), when pvbatch lost its X server ("bad X server connection").
    for _ in 1 2; do
      "${PV[@]}" "$SRC/tests/paraview_2d.py" "$T/th/thermal.xmf" 40 20 "${TH[0]}" > pv_2d.log 2>&1 || true
      grep -q "bad X server connection" pv_2d.log || break
      renew_x
    done
    grep -q "^ok: " pv_2d.log || fail "ParaView does not open the 2D series as a flat surface: $(cat pv_2d.log)"
    pass "ParaView opens the 2D series as a surface: $(grep '^ok: ' pv_2d.log)"
  fi
fi

[[ -z $pv_missing ]] || skip "every check passed but the ParaView ones, which did not run: $pv_missing"
echo "post_scripts: all checks passed"
