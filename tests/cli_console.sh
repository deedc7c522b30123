#!/usr/bin/env bash
# What a plain launch prints before the run: with OMP_PROC_BIND and OMP_NUM_THREADS unset (as a new user
# launches), 2 ranks print no Kokkos OMP_PROC_BIND warning and take their share of the cores (the banner
# says "2 MPI rank(s) x N thread(s)", N = max(1, nproc / 2)); more threads than cores give exactly one
# warning line, from rank 0, naming the counts; `stratus --help` starts with Stratus' usage, not Kokkos'
# options; the closing "output in" line names every file the run wrote.
#   usage: cli_console.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# The cores a rank may use (the launcher may set other affinity than this shell's).
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT "$MPIEXEC" -n 1 nproc)  # nproc honours OMP_NUM_THREADS
share=$((cores / 2 > 0 ? cores / 2 : 1))
tiny=(run --set grid.nx=8 --set grid.ny=8 --set grid.nz=8 --set run.max_steps=2)

# --help: Stratus' usage first, no Kokkos option list.
expect_rc 0 help.log env -u OMP_PROC_BIND -u OMP_NUM_THREADS "$STRATUS" --help
[[ $(head -n 1 help.log) == "usage: stratus <command> [DECK] [options]" ]] ||
  fail "--help does not start with the usage line: $(head -n 3 help.log)"
! grep -q "Kokkos command line arguments" help.log || fail "--help prints Kokkos' options"
pass "--help: Stratus' usage first, no Kokkos option list"

# A plain 2-rank launch: no Kokkos warning, each rank its share of the cores, no oversubscription warning.
expect_rc 0 plain.log env -u OMP_PROC_BIND -u OMP_NUM_THREADS "$MPIEXEC" -n 2 "$STRATUS" "${tiny[@]}" \
  --set run.output_dir="$T/plain"
! grep -q "OMP_PROC_BIND" plain.log || fail "a plain launch prints Kokkos' OMP_PROC_BIND warning: $(grep -m 2 OMP plain.log)"
grep -q "^Stratus .*, 2 MPI rank(s) x $share thread(s), Kokkos OpenMP$" plain.log ||
  fail "banner without '2 MPI rank(s) x $share thread(s)' ($cores cores): $(grep -m 1 '^Stratus' plain.log)"
! grep -q "warning:.*exceed" plain.log || fail "a warning about threads for the default: $(grep -m 1 exceed plain.log)"
pass "plain 2-rank launch on $cores core(s): no Kokkos warning, $share thread(s) per rank"

# Too many threads: one warning line in all, with the counts and the remedy.
over=$((cores + 1))
expect_rc 0 over.log env -u OMP_PROC_BIND OMP_NUM_THREADS=$over "$MPIEXEC" -n 2 "$STRATUS" "${tiny[@]}" \
  --set run.output_dir="$T/over"
want="stratus: warning: 2 rank(s) x $over thread(s) exceed the $cores core(s) this job may use on a node: threads will wait for each other; set OMP_NUM_THREADS to at most $share (cores / ranks per node)"
[[ $(grep -c "exceed the" over.log) -eq 1 ]] || fail "expected one oversubscription warning: $(grep exceed over.log)"
# (Not the whole line: under load another rank's output can land in front of it on the shared stream.)
grep -qF "$want" over.log || fail "oversubscription warning differs: $(grep exceed over.log)"
pass "OMP_NUM_THREADS=$over at 2 ranks: one warning line"

# A user's choice within the cores: no warning.
expect_rc 0 one.log env OMP_NUM_THREADS=1 "$MPIEXEC" -n 2 "$STRATUS" "${tiny[@]}" --set run.output_dir="$T/one"
! grep -q "exceed the" one.log || fail "a warning with 1 thread per rank"
pass "OMP_NUM_THREADS=1: no warning"

# The closing line names every file of the run: the trajectory and checkpoints of an MD run too, numbered
# series folded with their count.
expect_rc 0 md.log "$STRATUS" run "$SRC/inputs/md/lj_melt.ini" --set "md.cells=4 4 4" --set run.max_steps=20 \
  --set run.checkpoint_every=10 --set run.snapshot_every=10 --set run.output_dir="$T/md"
want="output in $T/md: lj_melt.data, lj_melt.done, lj_melt.h5md, lj_melt.xmf (open in ParaView or VisIt), lj_melt_chk_NNNNNNNN.h5 (2 checkpoints), lj_melt_history.csv, lj_melt_report.json"
grep -qxF "$want" md.log || fail "MD summary line: $(grep 'output in' md.log)"
expect_rc 0 grid.log "$STRATUS" run "$SRC/inputs/climate/thermal.ini" --set grid.nx=40 --set grid.nz=20 \
  --set run.max_steps=6 --set run.snapshot_every=3 --set run.output_dir="$T/grid"
want="output in $T/grid: thermal.done, thermal.xmf (open in ParaView or VisIt), thermal_NNNNNN.h5 (3 snapshots), thermal_NNNNNN.xmf (3 files), thermal_history.csv, thermal_report.json"
grep -qxF "$want" grid.log || fail "grid summary line: $(grep 'output in' grid.log)"
pass "the closing line lists every output file (MD: trajectory, checkpoints; grid: snapshots)"

# Progress: an MD run carries it in its thermo table (Done%, Remain[s]) and prints no progress lines between
# the rows; a grid run prints progress lines with the percentage. The MD run has no run.t_end (lj_melt.ini
# sets none): it ends at run.max_steps, past the old default t_end = 1 (200 steps of 0.005).
expect_rc 0 md2.log "$STRATUS" run "$SRC/inputs/md/lj_melt.ini" --set "md.cells=4 4 4" --set run.max_steps=300 \
  --set run.history_every=100 --set run.output_dir="$T/md2"
! grep -qE '^step [0-9]+  t = ' md2.log || fail "progress lines in an MD log: $(grep -m2 -E '^step [0-9]+' md2.log)"
grep -qE '^ +Step +Temp +E_pair +KinEng +TotEng +Press +Done% +Remain\[s\]$' md2.log ||
  fail "no Done% / Remain[s] columns in the thermo header: $(grep -m1 'Step' md2.log)"
grep -qE '^ +300( +[-0-9.e+]+){5} +100\.0 +[0-9]+$' md2.log || fail "no final thermo row at step 300, 100% done: $(cat md2.log)"
grep -qE '^step 6  t = .*  100\.0%' grid.log || fail "no grid progress line with its percentage: $(cat grid.log)"
pass "MD progress in its thermo table (300 steps, no run.t_end), grid progress lines with the percentage"

# Velocities of a data file: kept by default (as LAMMPS' read_data), with one warning when md.temperature
# would have replaced them; md.velocities = create replaces them, = file requires them. The memory estimate
# counts the data file's atoms (256 here), as a lattice of the same atoms does.
expect_rc 0 md3.log "$STRATUS" run "$SRC/inputs/md/lj_melt.ini" --set "md.cells=4 4 4" --set run.max_steps=10 \
  --set md.write_data=v.data --set run.output_dir="$T/md3"
LJ=("$SRC/inputs/md/lj_melt.ini" --set "md.data_file=$T/md3/v.data" --set run.output_dir="$T/md4")
expect_rc 0 v_auto.log "$STRATUS" check "${LJ[@]}"
warn="[rank 0] warning: md.temperature = 1.44 is not used: the velocities come from data file '$T/md3/v.data' \
(md.velocities = auto; md.velocities = create sets new ones at md.temperature)"
if [[ $(grep -c "md.temperature = 1.44 is not used" v_auto.log) != 1 ]] || ! grep -qF "$warn" v_auto.log; then
  fail "md.velocities = auto with md.temperature: not exactly one warning: $(cat v_auto.log)"
fi
expect_rc 0 v_create.log "$STRATUS" check "${LJ[@]}" --set md.velocities=create
if grep -q "is not used" v_create.log || ! grep -q "initial T 1.44 seed" v_create.log; then
  fail "md.velocities = create: $(cat v_create.log)"
fi
expect_rc 2 v_file.log "$STRATUS" check "$SRC/inputs/md/lj_melt.ini" --set md.velocities=file
grep -qF "key 'md.velocities' = file: no md.data_file" v_file.log || fail "md.velocities = file, no data file: $(cat v_file.log)"
expect_rc 0 v_lattice.log "$STRATUS" check "$SRC/inputs/md/lj_melt.ini" --set "md.cells=4 4 4"
mem_file=$(grep '^memory estimate:' v_auto.log) mem_lattice=$(grep '^memory estimate:' v_lattice.log)
[[ -n $mem_file && $mem_file == "$mem_lattice" ]] ||
  fail "memory estimate of the 256-atom data file '$mem_file', of the 256-atom lattice '$mem_lattice'"
pass "md.velocities: auto keeps the file's (one warning), create replaces them, file requires them; $mem_file"
