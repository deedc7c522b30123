#!/usr/bin/env bash
# What a plain launch prints before the run: with OMP_PROC_BIND and OMP_NUM_THREADS unset (as a new user
# launches), 2 ranks print no Kokkos OMP_PROC_BIND warning and take their share of the cores (the banner
# says "2 MPI rank(s) x N thread(s)", N = max(1, nproc / 2)); more threads than cores give exactly one
# warning line, from rank 0, naming the counts; `stratus --help` starts with Stratus' usage, not Kokkos'
# options.
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
grep -qxF "$want" over.log || fail "oversubscription warning differs: $(grep exceed over.log)"
pass "OMP_NUM_THREADS=$over at 2 ranks: one warning line"

# A user's choice within the cores: no warning.
expect_rc 0 one.log env OMP_NUM_THREADS=1 "$MPIEXEC" -n 2 "$STRATUS" "${tiny[@]}" --set run.output_dir="$T/one"
! grep -q "exceed the" one.log || fail "a warning with 1 thread per rank"
pass "OMP_NUM_THREADS=1: no warning"
