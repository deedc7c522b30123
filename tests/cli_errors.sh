#!/usr/bin/env bash
# Bad input to the stratus executable fails fast: exit code 2, one error line naming the key or file,
# and nothing written (no output directory created, a pre-existing one left untouched). Also checks the
# commands that do not run anything: check, help-deck and info.
#   usage: cli_errors.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

WORK=$T/work    # cwd of every command; decks live here; nothing else may appear in it
CAP=$T/cap      # captured stdout/stderr
mkdir -p "$WORK" "$CAP"
[[ -x $STRATUS ]] || fail "stratus executable '$STRATUS' not found"
cd "$WORK"
FAIL_LOGS=("$CAP/out" "$CAP/err")

# A pre-existing output directory with a sentinel file that no failing command may touch.
EXISTING=$WORK/existing_out
mkdir -p "$EXISTING"
echo "sentinel: must survive every failing command" > "$EXISTING/sentinel.txt"
touch -d '2001-02-03 04:05:06' "$EXISTING/sentinel.txt" "$EXISTING"

# Everything under WORK with size, mtime (ns) and content hash, so that any new, removed or modified
# file or directory shows up as a difference.
tree_state() {
  (cd "$WORK" && find . -printf '%p %y %s %T@\n' | sort && find . -type f -exec md5sum {} + | sort -k2)
}

# deck FILE OUTPUT_DIR [EXTRA...]: a small valid deck. An EXTRA 'run:LINE' is added under [run], any
# other EXTRA LINE under [grid]; 'DROP:key' leaves that default key out (of either section).
deck() {
  local file=$1 out=$2
  shift 2
  local drop=" " run_extra=() grid_extra=()
  for l in "$@"; do
    case $l in
      DROP:*) drop+="${l#DROP:} " ;;
      run:*) run_extra+=("${l#run:}") ;;
      *) grid_extra+=("$l") ;;
    esac
  done
  {
    echo "[run]"
    [[ $drop == *" physics "* ]] || echo "physics = advection"
    echo "name = err"
    echo "output_dir = $out"
    echo "t_end = 0.05"
    echo "max_steps = 2"
    for l in "${run_extra[@]+"${run_extra[@]}"}"; do echo "$l"; done
    echo "[grid]"
    [[ $drop == *" nx "* ]] || echo "nx = 16"
    [[ $drop == *" ny "* ]] || echo "ny = 12"
    [[ $drop == *" nz "* ]] || echo "nz = 8"
    for l in "${grid_extra[@]+"${grid_extra[@]}"}"; do echo "$l"; done
  } > "$file"
}

# run_capture CMD...: runs CMD with stdout/stderr captured; sets RC.
run_capture() {
  set +e
  "$@" > "$CAP/out" 2> "$CAP/err"
  RC=$?
  set -e
}

# expect_input_error NAME NEEDLE ONE_LINE CMD...: exit code 2; the first stderr line is
# 'stratus: error: ...' and contains NEEDLE; exactly one error line (and, if ONE_LINE=1, nothing else on
# stderr and nothing on stdout); the working tree (including the pre-existing output dir) is unchanged.
expect_input_error() {
  local name=$1 needle=$2 one_line=$3
  shift 3
  local before after
  before=$(tree_state)
  run_capture "$@"
  after=$(tree_state)
  [[ $RC -eq 2 ]] || fail "$name: expected exit code 2, got $RC (command: $*)"
  local first nerr nlines
  first=$(head -n 1 "$CAP/err")
  [[ $first == "stratus: error: "* ]] || fail "$name: first stderr line is not 'stratus: error: ...': '$first'"
  [[ $first == *"$needle"* ]] || fail "$name: error line does not mention \"$needle\": '$first'"
  nerr=$(grep -c 'stratus: error:' "$CAP/err" "$CAP/out" | awk -F: '{s += $NF} END {print s}')
  [[ $nerr -eq 1 ]] || fail "$name: expected the error once, found it $nerr times"
  if [[ $one_line == 1 ]]; then
    nlines=$(wc -l < "$CAP/err")
    [[ $nlines -eq 1 ]] || fail "$name: expected a one-line message on stderr, got $nlines lines"
    [[ ! -s $CAP/out ]] || fail "$name: expected nothing on stdout before the input is accepted"
  fi
  [[ $before == "$after" ]] || fail "$name: files changed although the input was rejected:
$(diff <(echo "$before") <(echo "$after") || true)"
  pass "$name: exit 2, '${first#stratus: error: }'"
}

# expect_run_rejected NAME NEEDLE DECK_ARGS...: for 'run', once with a fresh output_dir (must not
# exist afterwards) and once with the pre-existing one (must be untouched). Every deck line is written
# twice, differing only in output_dir. DECK_ARGS are deck() extras; a '--' separates extra command
# line arguments.
case_no=0
expect_run_rejected() {
  local name=$1 needle=$2
  shift 2
  local extras=() args=()
  while [[ $# -gt 0 && $1 != "--" ]]; do extras+=("$1"); shift; done
  [[ $# -gt 0 ]] && shift
  args=("$@")
  case_no=$((case_no + 1))
  local fresh=$WORK/fresh_out_$case_no
  deck "$WORK/case${case_no}_fresh.ini" "$fresh" "${extras[@]+"${extras[@]}"}"
  deck "$WORK/case${case_no}_existing.ini" "$EXISTING" "${extras[@]+"${extras[@]}"}"
  expect_input_error "run: $name" "$needle" 1 \
    "$STRATUS" run "$WORK/case${case_no}_fresh.ini" "${args[@]+"${args[@]}"}"
  [[ ! -e $fresh ]] || fail "run: $name: output directory $fresh was created"
  expect_input_error "run: $name (pre-existing output dir)" "$needle" 1 \
    "$STRATUS" run "$WORK/case${case_no}_existing.ini" "${args[@]+"${args[@]}"}"
}

# --- misspelt key: check and run --------------------------------------------------------------------
deck "$WORK/typo.ini" "$WORK/typo_out" "DROP:nx" "nxx = 16"
expect_input_error "check: misspelt key grid.nxx" "did you mean 'grid.nx'" 1 "$STRATUS" check "$WORK/typo.ini"
grep -q "grid.nxx" "$CAP/err" || fail "misspelt key: message does not name 'grid.nxx'"
grep -q "typo.ini" "$CAP/err" || fail "misspelt key: message does not name the deck file"
expect_run_rejected "misspelt key grid.nxx" "did you mean 'grid.nx'" "DROP:nx" "nxx = 16"
grep -q "grid.nxx" "$CAP/err" || fail "misspelt key: message does not name 'grid.nxx'"

# --- wrong type -------------------------------------------------------------------------------------
expect_run_rejected "wrong type grid.nx = abc" "grid.nx" "DROP:nx" "nx = abc"
grep -q "abc" "$CAP/err" || fail "wrong type: message does not quote the bad value"

# --- out of range -----------------------------------------------------------------------------------
expect_run_rejected "out of range run.dt = -1 (--set)" "run.dt" -- --set run.dt=-1
expect_run_rejected "out of range grid.nx = 0 (deck)" "grid.nx" "DROP:nx" "nx = 0"
expect_run_rejected "out of range grid.nx = 0 (--set)" "grid.nx" -- --set grid.nx=0

# --- decomposition that does not divide the grid -----------------------------------------------------
expect_run_rejected "decomposition 3 1 1 with nx = 16" "parallel.decomp" -- --set "parallel.decomp=3 1 1"

# --- unknown --set key ------------------------------------------------------------------------------
expect_run_rejected "unknown --set key grid.nxx" "grid.nxx" -- --set grid.nxx=16
expect_run_rejected "unknown --set key foo.bar" "foo.bar" -- --set foo.bar=1

# --- unknown physics --------------------------------------------------------------------------------
expect_run_rejected "unknown physics run.physics = foo (deck)" "run.physics" "DROP:physics" "run:physics = foo"
grep -q "'foo'" "$CAP/err" || fail "unknown physics: message does not quote 'foo'"
expect_run_rejected "unknown physics foo (--set)" "run.physics" -- --set run.physics=foo

# --- missing deck file ------------------------------------------------------------------------------
expect_input_error "run: missing deck file" "no_such_deck.ini" 1 "$STRATUS" run "$WORK/no_such_deck.ini"
expect_input_error "check: missing deck file" "no_such_deck.ini" 1 "$STRATUS" check "$WORK/no_such_deck.ini"

# --- built-in default deck with a bad override: its output_dir (relative to cwd) must not appear --------
expect_input_error "run (built-in deck): run.dt = -1" "run.dt" 1 "$STRATUS" run --set run.dt=-1
[[ ! -e $WORK/output ]] || fail "built-in deck: output directory was created"

# --- unknown command (the usage text may follow the error line) ----------------------------------------
deck "$WORK/good_unknown_cmd.ini" "$WORK/unknown_cmd_out"
expect_input_error "unknown command" "frobnicate" 0 "$STRATUS" frobnicate "$WORK/good_unknown_cmd.ini"
[[ ! -e $WORK/unknown_cmd_out ]] || fail "unknown command: output directory was created"

# --- Kokkos' flags and variables: Kokkos 3.4 would end the process (std::terminate) on these -----------
deck "$WORK/kokkos.ini" "$WORK/kokkos_out"
expect_input_error "--kokkos-device-id 0 (space form)" "--kokkos-device-id takes its value after '='" 1 \
  "$STRATUS" run "$WORK/kokkos.ini" --kokkos-device-id 0
expect_input_error "--kokkos-device-id=x" "--kokkos-device-id wants a non-negative integer" 1 \
  "$STRATUS" run "$WORK/kokkos.ini" --kokkos-device-id=x
expect_input_error "--num-devices=2" "Kokkos' is --kokkos-num-devices=N" 1 "$STRATUS" run "$WORK/kokkos.ini" --num-devices=2
expect_input_error "--device=1" "Kokkos' is --kokkos-device-id=N" 1 "$STRATUS" run "$WORK/kokkos.ini" --device=1
expect_input_error "KOKKOS_DEVICE_ID=x" "environment variable KOKKOS_DEVICE_ID = 'x'" 1 \
  env KOKKOS_DEVICE_ID=x "$STRATUS" run "$WORK/kokkos.ini"
expect_input_error "mpiexec -n 2: KOKKOS_NUM_DEVICES and --kokkos-num-devices" "disagree" 1 \
  env KOKKOS_NUM_DEVICES=2 "$MPIEXEC" -n 2 "$STRATUS" run "$WORK/kokkos.ini" --kokkos-num-devices=1
[[ ! -e $WORK/kokkos_out ]] || fail "Kokkos flags: output directory was created"
run_capture "$STRATUS" check "$WORK/kokkos.ini" --kokkos-device-id=0 --kokkos-num-devices=1 --kokkos-threads=1
[[ $RC -eq 0 ]] || fail "well-formed Kokkos flags refused (exit $RC): $(cat "$CAP/err")"
pass "Kokkos flags and variables: malformed ones exit 2 naming them, well-formed ones pass"

# --- the same under mpiexec -n 2: exit 2, message exactly once, nothing written -----------------------
deck "$WORK/typo_mpi.ini" "$WORK/typo_mpi_out" "DROP:nx" "nxx = 16"
expect_input_error "mpiexec -n 2 run: misspelt key" "did you mean 'grid.nx'" 1 \
  "$MPIEXEC" -n 2 "$STRATUS" run "$WORK/typo_mpi.ini"
[[ ! -e $WORK/typo_mpi_out ]] || fail "mpiexec -n 2: output directory was created"
deck "$WORK/decomp_mpi.ini" "$WORK/decomp_mpi_out"
expect_input_error "mpiexec -n 2 run: decomposition 3 1 1" "parallel.decomp" 1 \
  "$MPIEXEC" -n 2 "$STRATUS" run "$WORK/decomp_mpi.ini" --set "parallel.decomp=3 1 1"
[[ ! -e $WORK/decomp_mpi_out ]] || fail "mpiexec -n 2 (decomposition): output directory was created"

# --- molecular dynamics: bad data files, thin sub-domains, missing keys ------------------------------
md_deck() {  # md_deck FILE OUTPUT_DIR [md LINES...]
  local file=$1 out=$2
  shift 2
  {
    printf '[run]\nphysics = md\nname = err\noutput_dir = %s\nmax_steps = 2\n[md]\n' "$out"
    for l in "$@"; do echo "$l"; done
  } > "$file"
}
md_deck "$WORK/md_nofile.ini" "$EXISTING" "data_file = $WORK/no_such.data"
expect_input_error "md: missing data file" "no_such.data" 0 "$STRATUS" run "$WORK/md_nofile.ini"
printf 'LAMMPS data file\n\n2 atoms\n1 atom types\n\n0 4 xlo xhi\n0 4 ylo yhi\n0 4 zlo zhi\n\nMasses\n\n1 1\n\nAtoms # atomic\n\n1 1 0.5 0.5 0.5\n2 1 1.5 x 0.5\n' > "$WORK/md_bad.data"
md_deck "$WORK/md_badfile.ini" "$EXISTING" "data_file = $WORK/md_bad.data"
expect_input_error "md: malformed data file" "md_bad.data" 0 "$STRATUS" run "$WORK/md_badfile.ini"
grep -q "line 17" "$CAP/err" || fail "md: malformed data file: message does not name line 17"
# An MD run ends at a step count: without run.max_steps (and run.t_end) it would never end.
md_deck "$WORK/md_nosteps.ini" "$EXISTING"
sed -i '/^max_steps = /d' "$WORK/md_nosteps.ini"
expect_input_error "md: no run.max_steps" "key 'run.max_steps' is needed" 0 "$STRATUS" run "$WORK/md_nosteps.ini"
md_deck "$WORK/md_real.ini" "$EXISTING" "units = real"
expect_input_error "md: real units without a lattice constant" "md.lattice_constant" 0 "$STRATUS" run "$WORK/md_real.ini"
md_deck "$WORK/md_thin.ini" "$EXISTING" "cells = 2 2 2"
expect_input_error "mpiexec -n 2 md: sub-domain thinner than cutoff + skin" "cutoff + skin" 0 \
  "$MPIEXEC" -n 2 "$STRATUS" run "$WORK/md_thin.ini"

# --- check rejects whatever run rejects at start-up (one pre-flight), and both touch nothing -------------
# expect_both NAME NEEDLE NP DECK [ARGS...]: 'check' and 'run' of DECK (at NP ranks) both exit 2 naming NEEDLE.
expect_both() {
  local name=$1 needle=$2 np=$3
  shift 3
  local launch=()
  [[ $np -gt 1 ]] && launch=("$MPIEXEC" -n "$np")
  expect_input_error "check: $name" "$needle" 0 "${launch[@]+"${launch[@]}"}" "$STRATUS" check "$@"
  expect_input_error "run: $name" "$needle" 0 "${launch[@]+"${launch[@]}"}" "$STRATUS" run "$@"
}
md_deck "$WORK/pf_nofile.ini" "$EXISTING" "data_file = $WORK/no_such.data"
expect_both "md: missing data file" "no_such.data" 1 "$WORK/pf_nofile.ini"
md_deck "$WORK/pf_badfile.ini" "$EXISTING" "data_file = $WORK/md_bad.data"
expect_both "md: malformed data file" "line 17" 1 "$WORK/pf_badfile.ini"
md_deck "$WORK/pf_thin.ini" "$EXISTING" "cells = 2 2 2"
expect_both "md at 2 ranks: sub-domain thinner than cutoff + skin" "cutoff + skin" 2 "$WORK/pf_thin.ini"
# Atom ids must be 1..N (checkpoints and trajectories store atom n in row n - 1); an id beyond 2^53 would
# also not survive md.write_data's round trip through a double.
data_ids() {  # data_ids FILE ID1 ID2 [IMAGE_X]
  printf 'LAMMPS data file\n\n2 atoms\n1 atom types\n\n0 4 xlo xhi\n0 4 ylo yhi\n0 4 zlo zhi\n\nMasses\n\n1 1\n\nAtoms # atomic\n\n%s 1 0.5 0.5 0.5 %s 0 0\n%s 1 2.5 2.5 2.5 0 0 0\n' \
    "$2" "${4:-0}" "$3" > "$1"
}
data_ids "$WORK/ids_gap.data" 1 5
md_deck "$WORK/pf_ids.ini" "$EXISTING" "data_file = $WORK/ids_gap.data" "cutoff = 1.0" "skin = 0.2"
expect_both "md: atom ids 1 and 5" "atom ids must be 1..2" 1 "$WORK/pf_ids.ini"
# At 2 ranks rank 0 alone reads the file; the other rank reports the same input error (exit 2, once).
expect_both "md at 2 ranks: atom ids 1 and 5" "atom ids must be 1..2" 2 "$WORK/pf_ids.ini"
expect_both "md at 2 ranks: malformed data file" "line 17" 2 "$WORK/pf_badfile.ini"
data_ids "$WORK/ids_big.data" 1 9007199254740993
md_deck "$WORK/pf_bigid.ini" "$EXISTING" "data_file = $WORK/ids_big.data" "cutoff = 1.0" "skin = 0.2"
expect_both "md: atom id 2^53 + 1" "atom ids must be 1..2" 1 "$WORK/pf_bigid.ini"
data_ids "$WORK/image_max.data" 1 2 2147483647
md_deck "$WORK/pf_image.ini" "$EXISTING" "data_file = $WORK/image_max.data" "cutoff = 1.0" "skin = 0.2"
expect_both "md: image flag 2147483647 (would overflow on the next wrap)" "image flag ix" 1 "$WORK/pf_image.ini"
# Output paths: a file where the directory should be, a name too long for file names, control characters.
echo "not a directory" > "$WORK/a_file"
deck "$WORK/pf_outfile.ini" "$WORK/a_file"
expect_both "run.output_dir is a file" "exists and is not a directory" 1 "$WORK/pf_outfile.ini"
deck "$WORK/pf_longname.ini" "$WORK/longname_out" "run:name = $(printf 'n%.0s' {1..300})"
sed -i '/^name = err$/d' "$WORK/pf_longname.ini"
expect_both "300-character run.name" "at most 200" 1 "$WORK/pf_longname.ini"
[[ ! -e $WORK/longname_out ]] || fail "300-character run.name: output directory was created"
deck "$WORK/pf_nul.ini" "$WORK/nul_out"
sed -i 's/^name = err$/name = a\x00b/' "$WORK/pf_nul.ini"
expect_both "a NUL byte in run.name" "control character 0x00" 1 "$WORK/pf_nul.ini"
# Nothing is written outside run.output_dir: md.write_data is a file name in it, not a path.
for target in "$WORK/pf_write_self.ini" "../escape.data" "sub/x.data"; do
  md_deck "$WORK/pf_write_self.ini" "$EXISTING" "write_data = $target"
  expect_both "md.write_data = $target" "must be a plain file name" 1 "$WORK/pf_write_self.ini"
done
# Integers the code holds in 32 bits are range-checked, not cut (4294967360 = 2^32 + 64 once ran 64 cells).
deck "$WORK/pf_int.ini" "$WORK/int_out"
expect_both "grid.nx = 2^32 + 64" "key 'grid.nx' = 4294967360 is out of range" 1 "$WORK/pf_int.ini" --set grid.nx=4294967360
expect_both "grid.nx = 2^31" "key 'grid.nx' = 2147483648 is out of range" 1 "$WORK/pf_int.ini" --set grid.nx=2147483648
expect_both "parallel.decomp = 2^32 + 2" "parallel.decomp" 1 "$WORK/pf_int.ini" --set "parallel.decomp=4294967298 1 1"
grep -q "4294967298" "$CAP/err" || fail "parallel.decomp = 2^32 + 2: message does not quote the value"
# A 10 MB key name is rejected at once (no edit-distance search over it), with a short message.
head -c 10000000 /dev/zero | tr '\0' 'k' > "$WORK/longkey.txt"
{ echo "[run]"; echo "$(cat "$WORK/longkey.txt") = 1"; } > "$WORK/pf_longkey.ini"
start=$(date +%s)
expect_input_error "check: a 10 MB key name" "unknown key" 1 "$STRATUS" check "$WORK/pf_longkey.ini"
took=$(( $(date +%s) - start ))
[[ $took -le 10 ]] || fail "a 10 MB key name took $took s to reject"
[[ $(wc -c < "$CAP/err") -lt 400 ]] || fail "a 10 MB key name: the message is $(wc -c < "$CAP/err") bytes long"
pass "a 10 MB key name rejected in $took s with a short message"

# --- check on a good deck: exit 0, decomposition and memory estimate, nothing created -----------------
deck "$WORK/good.ini" "$WORK/good_out"
before=$(tree_state)
run_capture "$STRATUS" check "$WORK/good.ini"
after=$(tree_state)
[[ $RC -eq 0 ]] || fail "check good deck: exit code $RC"
grep -Eq '^decomposition: 1 x 1 x 1 ranks' "$CAP/out" || fail "check good deck: no 'decomposition: 1 x 1 x 1 ranks' line"
grep -Eq '^memory estimate: [0-9.e+]+ [kMG]B per rank' "$CAP/out" || fail "check good deck: no memory estimate"
grep -q 'deck OK' "$CAP/out" || fail "check good deck: no 'deck OK'"
[[ ! -e $WORK/good_out ]] || fail "check good deck: output directory was created"
[[ $before == "$after" ]] || fail "check good deck: files changed"
pass "check good deck: exit 0, decomposition and memory estimate printed, nothing created"

run_capture "$MPIEXEC" -n 2 "$STRATUS" check "$WORK/good.ini"
[[ $RC -eq 0 ]] || fail "mpiexec -n 2 check good deck: exit code $RC"
grep -Eq '^decomposition: 1 x 2 x 1 ranks' "$CAP/out" || fail "mpiexec -n 2 check: no 'decomposition: 1 x 2 x 1 ranks' line"
n=$(grep -c '^memory estimate:' "$CAP/out" || true)
[[ $n -eq 1 ]] || fail "mpiexec -n 2 check: memory estimate printed $n times, expected once"
[[ ! -e $WORK/good_out ]] || fail "mpiexec -n 2 check: output directory was created"
pass "mpiexec -n 2 check good deck: exit 0, decomposition 1 x 2 x 1, printed once"

# --- help-deck --------------------------------------------------------------------------------------
run_capture "$STRATUS" help-deck grid
[[ $RC -eq 0 ]] || fail "help-deck grid: exit code $RC"
grep -Eq '^ *grid\.nx .*unit cells' "$CAP/out" || fail "help-deck grid: grid.nx with its unit (cells) not listed"
! grep -q 'run\.t_end' "$CAP/out" || fail "help-deck grid: lists keys of other sections (run.t_end)"
pass "help-deck grid: lists grid.nx with unit cells"

expect_input_error "help-deck nosuchsection" "nosuchsection" 1 "$STRATUS" help-deck nosuchsection

# --- info -------------------------------------------------------------------------------------------
run_capture "$STRATUS" info
[[ $RC -eq 0 ]] || fail "info: exit code $RC"
for word in Kokkos MPI HDF5; do
  grep -q "$word" "$CAP/out" || fail "info: output does not mention $word"
done
pass "info: exit 0, mentions Kokkos, MPI and HDF5"

# --- an MD deck reads only [parallel], not [grid]: a [grid] key in it is reported as unused --------------
run_capture "$STRATUS" check "$SRC/inputs/md/lj_melt.ini" --set grid.nx=8 --set parallel.decomp="1 1 1"
[[ $RC -eq 0 ]] || fail "check of an md deck with grid.nx: exit code $RC"
grep -q "key 'grid.nx' is not used by physics 'md'" "$CAP/err" || fail "md deck: grid.nx not reported unused"
if grep -q "key 'parallel.decomp' is not used" "$CAP/err"; then fail "md deck: parallel.decomp reported unused"; fi
pass "md deck: [grid] keys are reported unused, [parallel] keys are read"

# --- the pre-existing output directory is still exactly as created ------------------------------------
[[ $(ls -A "$EXISTING") == "sentinel.txt" ]] || fail "pre-existing output dir gained files: $(ls -A "$EXISTING")"
[[ $(cat "$EXISTING/sentinel.txt") == "sentinel: must survive every failing command" ]] ||
  fail "sentinel file content changed"
[[ $(stat -c %Y "$EXISTING/sentinel.txt") == $(date -d '2001-02-03 04:05:06' +%s) ]] || fail "sentinel mtime changed"
pass "pre-existing output directory and sentinel untouched"

echo "cli_errors: all checks passed"
