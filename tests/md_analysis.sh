#!/usr/bin/env bash
# The MD trajectory as analysis tools read it: scripts/post/md_analysis.py (the documented MDAnalysis
# recipe) on an LJ melt of 864 atoms (600 steps, a frame every 100) run on 1, 2 and 4 ranks, and on a small
# NaCl melt in real units (512 ions, 2 ranks). Checked:
#   - the H5MD image element: int32 (frames, N, 3), some atoms crossed the box; position + image * edge,
#     read with h5py in double precision, gives at every frame the msd column of the history table
#     (Stratus' own mean squared displacement of its unwrapped positions) to 1e-12;
#   - the recipe's msd from MDAnalysis' (float32) unwrapped positions matches it to 1e-5 at every frame,
#     EinsteinMSD's last lag equals the last frame's, and the wrapped positions would give 10x more;
#   - its g(r): zero below 0.8 sigma, highest between 1.0 and 1.25 sigma, about 1 at its end;
#   - the topology NAME.data beside the trajectory loads (atom styles atomic and charge);
#   - real units: the frame interval is 0.01 ps (not MDAnalysis' 1.0) and velocities in Angstrom/ps are the
#     file's Angstrom/fs times 1000 (MDAnalysis 2.4 alone would give 1e-3).
# Needs Debian's python3-mdanalysis and python3-h5py (scripts/test.sh installs them); skipped (77) without.
#   usage: md_analysis.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
PY=${STRATUS_PYTHON:-/usr/bin/python3}
export PYTHONDONTWRITEBYTECODE=1 PYTHONWARNINGS=ignore
"$PY" -c 'import MDAnalysis, h5py' 2> /dev/null ||
  skip "$PY cannot import MDAnalysis and h5py (Debian: python3-mdanalysis python3-h5py)"
TOOL=$SRC/scripts/post/md_analysis.py

for np in 1 2 4; do
  d=$T/lj$np
  expect_rc 0 "lj$np.log" "$MPIEXEC" -n "$np" "$STRATUS" run "$SRC/inputs/md/lj_melt.ini" --set md.cells="6 6 6" \
    --set run.max_steps=600 --set run.snapshot_every=100 --set run.history_every=100 --set run.output_dir="$d"
  expect_rc 0 "lj$np.tool" "$PY" "$TOOL" "$d/lj_melt.h5md" --rdf-max 2.5 --json "$d/a.json" -o "$T/lj$np"
  [[ -s $T/lj${np}_rdf.csv && -s $T/lj${np}_msd.csv ]] || fail "no CSV files from the tool: $(ls "$T")"
  expect_rc 0 "lj$np.check" "$PY" "$SRC/tests/md_analysis_check.py" "$d" lj_melt lj
  pass "LJ on $np rank(s): $(tail -1 "lj$np.check")"
done

d=$T/nacl
expect_rc 0 nacl.log "$MPIEXEC" -n 2 "$STRATUS" run "$SRC/inputs/md/nacl_melt.ini" --set md.cells="4 4 4" \
  --set run.max_steps=20 --set run.snapshot_every=10 --set run.history_every=10 --set md.write_data= \
  --set run.output_dir="$d"
grep -q "^Atoms # charge" "$d/nacl_melt.data" || fail "the topology is not of atom style charge: $(head "$d/nacl_melt.data")"
expect_rc 0 nacl.tool "$PY" "$TOOL" "$d/nacl_melt.h5md" --json "$d/a.json" -o "$T/nacl"
# The same checks (NaCl's ions barely move in 20 fs: no box crossing required), and the real-unit ones.
expect_rc 0 nacl.check "$PY" "$SRC/tests/md_analysis_check.py" "$d" nacl_melt real
pass "NaCl (real units) on 2 ranks: $(tail -1 nacl.check)"
