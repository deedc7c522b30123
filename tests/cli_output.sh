#!/usr/bin/env bash
# Output of short real runs of the stratus executable at 1, 2 and 4 ranks with several decompositions:
# the field is bitwise identical across all of them, the HDF5 snapshots carry the right shape and
# attributes, the XDMF files point at the right datasets, the history table is complete and conserves
# mass, and stdout names the output directory. A 2D run (nz = 1) checks the (1, ny, nx) layout. A run
# killed while it writes snapshots leaves only complete files under final names.
#   usage: cli_output.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

[[ -x $STRATUS ]] || fail "stratus executable '$STRATUS' not found"
require_tools h5dump h5diff awk

NX=16 NY=12 NZ=8
NAME=snap
MAX_STEPS=6
SNAP_EVERY=3
HIST_EVERY=2
SNAP_STEPS=(0 3 6)     # initial, every SNAP_EVERY steps, final (== 6)
HIST_STEPS=(0 2 4 6)   # every HIST_EVERY steps from 0; the final step is one of them
HEADER="step,time,dt,mass,d_mass,q_min,q_max,err_l1,err_l2,err_max,cfl"

# make_deck FILE NX NY NZ: t_end is large so that max_steps ends the run; dt is the automatic one.
make_deck() {
  cat > "$1" <<EOF
[run]
physics = advection
name = $NAME
output_dir = unused
t_end = 1.0
max_steps = $MAX_STEPS
snapshot_every = $SNAP_EVERY
history_every = $HIST_EVERY

[grid]
nx = $2
ny = $3
nz = $4
length = 1 1 1

[advection]
velocity = 1 0.5 0.25
diffusivity = 0.001
initial = gaussian
width = 0.15
EOF
}
make_deck "$T/deck3d.ini" "$NX" "$NY" "$NZ"
make_deck "$T/deck2d.ini" "$NX" "$NY" 1

# attr FILE NAME: value of the root attribute NAME as h5dump prints it after '(0): ' (quotes removed).
attr() {
  h5dump -a "/$2" "$1" 2> /dev/null | sed -n 's/^ *(0): *//p' | tr -d '"' | head -n 1
}

# attr_in DUMP NAME: the same, from the text of one 'h5dump -A' of the file (first line of the value).
attr_in() {
  awk -v n="\"$2\"" '$1 == "ATTRIBUTE" && $2 == n {c = 1}
    c && /^ *\(0\):/ {sub(/^ *\(0\): */, ""); gsub(/"/, ""); print; exit}' <<< "$1"
}

snap_file() { printf '%s/%s_%06d.h5' "$1" "$NAME" "$2"; }

# run_case TAG NP DECOMP(or 'auto') DECK [BACKGROUND]: runs (with run.background_output = BACKGROUND, on,
# off or auto, the default), records its output directory in OUT[TAG]. The snapshots of every run are
# compared bitwise below, so those written by a background thread must equal those written in the loop.
declare -A OUT NP_OF DECOMP_OF
TAGS=()
run_case() {
  local tag=$1 np=$2 decomp=$3 deck=$4 background=${5:-auto}
  local out=$T/out_$tag
  local args=(run "$deck" --set "run.output_dir=$out" --set "run.background_output=$background")
  [[ $decomp == auto ]] || args+=(--set "parallel.decomp=$decomp")
  local rc=0 t0 t1
  t0=$(date +%s.%N)
  if [[ $np -eq 1 ]]; then
    "$STRATUS" "${args[@]}" > "$T/stdout_$tag" 2> "$T/stderr_$tag" || rc=$?
  else
    "$MPIEXEC" -n "$np" "$STRATUS" "${args[@]}" > "$T/stdout_$tag" 2> "$T/stderr_$tag" || rc=$?
  fi
  t1=$(date +%s.%N)
  if [[ $rc -ne 0 ]]; then
    cat "$T/stdout_$tag" "$T/stderr_$tag" >&2
    fail "$tag: run at np=$np decomp '$decomp' exited with $rc"
  fi
  if [[ $background == on ]]; then
    grep -q "^output: .* MB of fields in .*; written by a background thread in" "$T/stdout_$tag" ||
      fail "$tag: run.background_output = on, but the summary names no background writer"
  elif [[ $background == off ]] && grep -q "written by a background thread" "$T/stdout_$tag"; then
    fail "$tag: run.background_output = off, but the summary names a background writer"
  fi
  OUT[$tag]=$out
  NP_OF[$tag]=$np
  DECOMP_OF[$tag]=$decomp
  TAGS+=("$tag")
  pass "$tag: run at np=$np decomp '$decomp' exit 0 ($(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}') s)"
}

run_case np1 1 auto "$T/deck3d.ini" on
run_case np2_211 2 "2 1 1" "$T/deck3d.ini" on
run_case np2_112 2 "1 1 2" "$T/deck3d.ini" off
run_case np2_auto 2 auto "$T/deck3d.ini"
run_case np4_221 4 "2 2 1" "$T/deck3d.ini" on
run_case np4_122 4 "1 2 2" "$T/deck3d.ini" off
run_case np4_auto 4 auto "$T/deck3d.ini"
TAGS3D=("${TAGS[@]}")
run_case np1_2d 1 auto "$T/deck2d.ini" off
run_case np2_2d 2 auto "$T/deck2d.ini" on

# check_run TAG NX NY NZ: the per-run checks (b) to (e).
check_run() {
  local tag=$1 nx=$2 ny=$3 nz=$4
  local out=${OUT[$tag]} np=${NP_OF[$tag]} decomp=${DECOMP_OF[$tag]}
  local stdout=$T/stdout_$tag
  [[ -d $out ]] || fail "$tag: output directory $out missing"

  # (e) stdout names the output directory, and the decomposition used
  grep -qF "output in $out" "$stdout" || fail "$tag: stdout does not report the output directory $out"
  local used
  used=$(sed -n 's/^decomposition: \([0-9]*\) x \([0-9]*\) x \([0-9]*\) ranks.*/\1, \2, \3/p' "$stdout")
  [[ -n $used ]] || fail "$tag: stdout has no 'decomposition: ...' line"
  if [[ $decomp != auto ]]; then
    [[ $used == "${decomp// /, }" ]] || fail "$tag: stdout reports decomposition '$used', requested '$decomp'"
  fi

  # exactly the expected snapshots
  local h5s expected="" s
  h5s=$(cd "$out" && ls ./*.h5 | sed 's|^\./||' | tr '\n' ' ')
  for s in "${SNAP_STEPS[@]}"; do expected+="$(basename "$(snap_file "$out" "$s")") "; done
  [[ $h5s == "$expected" ]] || fail "$tag: snapshots are '$h5s', expected '$expected'"

  # (b) HDF5 layout and attributes of every snapshot
  local f v hdr dump
  for s in "${SNAP_STEPS[@]}"; do
    f=$(snap_file "$out" "$s")
    hdr=$(h5dump -H "$f") || fail "$tag: h5dump -H $f failed"
    grep -qF "DATASPACE  SIMPLE { ( $nz, $ny, $nx ) / ( $nz, $ny, $nx ) }" <<< "$hdr" ||
      fail "$tag: $f: /fields/q does not have shape ($nz, $ny, $nx): $(grep DATASPACE <<< "$hdr")"
    awk '/DATASET "q"/ {q = 1} q && /DATATYPE/ {print; exit}' <<< "$hdr" | grep -qF 'H5T_IEEE_F64LE' ||
      fail "$tag: $f: /fields/q is not 64-bit floating point"
    awk '/DATASET "q"/ {q = 1} q && /ATTRIBUTE "unit"/ {found = 1} END {exit !found}' <<< "$hdr" ||
      fail "$tag: $f: /fields/q has no 'unit' attribute"
    dump=$(h5dump -A "$f") || fail "$tag: h5dump -A $f failed"
    v=$(attr_in "$dump" unit)
    [[ -n $v ]] || fail "$tag: $f: the 'unit' attribute of /fields/q is empty"
    v=$(attr_in "$dump" nranks)
    [[ $v == "$np" ]] || fail "$tag: $f: attribute nranks = '$v', expected $np"
    v=$(attr_in "$dump" decomposition)
    [[ $v == "$used" ]] || fail "$tag: $f: attribute decomposition = '$v', expected '$used'"
    read -r a b c <<< "${v//,/ }"
    [[ $((a * b * c)) -eq $np ]] || fail "$tag: $f: decomposition '$v' does not multiply to $np ranks"
    v=$(attr_in "$dump" global_cells)
    [[ $v == "$nx, $ny, $nz" ]] || fail "$tag: $f: attribute global_cells = '$v', expected '$nx, $ny, $nz'"
    v=$(attr_in "$dump" step)
    [[ $v == "$s" ]] || fail "$tag: $f: attribute step = '$v', expected $s"
    v=$(attr_in "$dump" time)
    [[ -n $v ]] || fail "$tag: $f: attribute time missing"
    if [[ $s -eq 0 ]]; then
      awk -v t="$v" 'BEGIN {exit !(t == 0)}' || fail "$tag: $f: time = $v at step 0"
    else
      awk -v t="$v" 'BEGIN {exit !(t > 0 && t < 1)}' || fail "$tag: $f: time = $v at step $s, expected in (0, 1)"
    fi
    for v in spacing origin deck; do
      [[ -n $(attr_in "$dump" "$v") ]] || fail "$tag: $f: root attribute '$v' missing"
    done
  done

  # (c) per-snapshot XDMF sidecars
  local x base
  for s in "${SNAP_STEPS[@]}"; do
    f=$(snap_file "$out" "$s")
    base=$(basename "$f")
    x=${f%.h5}.xmf
    [[ -f $x ]] || fail "$tag: sidecar $x missing"
    grep -qE "<DataItem [^>]*Dimensions=\"$nz $ny $nx\"[^>]*>$base:/fields/q</DataItem>" "$x" ||
      fail "$tag: $x does not reference $base:/fields/q with Dimensions \"$nz $ny $nx\""
  done

  # (c) the time series lists one grid per snapshot, in order, each pointing at an existing file
  x=$out/$NAME.xmf
  [[ -f $x ]] || fail "$tag: time series $x missing"
  local refs want=""
  refs=$(grep -oE "Dimensions=\"$nz $ny $nx\">[^<]*:/fields/q<" "$x" | sed -E 's/.*>([^<:]*):.*/\1/' | tr '\n' ' ')
  for s in "${SNAP_STEPS[@]}"; do want+="$(basename "$(snap_file "$out" "$s")") "; done
  [[ $refs == "$want" ]] || fail "$tag: $x references '$refs', expected '$want'"
  local ngrids
  ngrids=$(grep -c '<Grid [^>]*GridType="Uniform"' "$x" || true)
  [[ $ngrids -eq ${#SNAP_STEPS[@]} ]] || fail "$tag: $x has $ngrids uniform grids, expected ${#SNAP_STEPS[@]}"
  for f in $refs; do
    [[ -f $out/$f ]] || fail "$tag: $x references $f, which does not exist"
  done

  # (d) history table
  local csv=$out/${NAME}_history.csv
  [[ -f $csv ]] || fail "$tag: history table $csv missing"
  [[ $(head -n 1 "$csv") == "$HEADER" ]] || fail "$tag: $csv header is '$(head -n 1 "$csv")', expected '$HEADER'"
  local steps want_steps
  steps=$(awk -F, 'NR > 1 {printf "%s ", $1}' "$csv")
  want_steps="${HIST_STEPS[*]} "
  [[ $steps == "$want_steps" ]] || fail "$tag: $csv has rows for steps '$steps', expected '$want_steps'"
  awk -F, -v n=11 'NR > 1 && NF != n {print "row " NR - 1 " has " NF " columns"; bad = 1} END {exit bad}' "$csv" ||
    fail "$tag: $csv has rows with the wrong number of columns"
  awk -F, 'NR > 1 {v = $5 + 0; if (v < 0) v = -v; if (v > 1e-12 || $5 == "" || $5 ~ /nan|inf/) {
             print "step " $1 ": d_mass = " $5; bad = 1 } } END {exit bad}' "$csv" ||
    fail "$tag: $csv: |d_mass| > 1e-12"
  pass "$tag: files, shape ($nz, $ny, $nx), attributes (nranks $np, decomposition $used), xmf, history OK"
}

for tag in "${TAGS3D[@]}"; do check_run "$tag" "$NX" "$NY" "$NZ"; done
check_run np1_2d "$NX" "$NY" 1
check_run np2_2d "$NX" "$NY" 1

# (a) the field is bitwise identical across rank counts and decompositions (h5diff without a
# tolerance compares exactly; exit 0 iff equal), for the initial, an intermediate and the final snapshot.
compare_to() {
  local ref=$1 tag=$2 s fa fb
  for s in "${SNAP_STEPS[@]}"; do
    fa=$(snap_file "${OUT[$ref]}" "$s")
    fb=$(snap_file "${OUT[$tag]}" "$s")
    if ! h5diff -q "$fa" "$fb" /fields/q /fields/q; then
      h5diff -r "$fa" "$fb" /fields/q /fields/q 2>&1 | head -n 12 >&2 || true
      fail "$tag vs $ref: /fields/q at step $s differs (h5diff -q $fa $fb /fields/q /fields/q)"
    fi
    # the time of a snapshot is the same too
    [[ $(attr "$fa" time) == $(attr "$fb" time) ]] ||
      fail "$tag vs $ref: time at step $s differs: $(attr "$fa" time) vs $(attr "$fb" time)"
  done
  # and so are the step, time and dt columns of the history table
  cmp -s <(cut -d, -f1-3 "${OUT[$ref]}/${NAME}_history.csv") <(cut -d, -f1-3 "${OUT[$tag]}/${NAME}_history.csv") ||
    fail "$tag vs $ref: step/time/dt columns of the history table differ"
  pass "$tag vs $ref: /fields/q bitwise identical at steps ${SNAP_STEPS[*]}"
}
for tag in "${TAGS3D[@]:1}"; do compare_to np1 "$tag"; done
compare_to np1_2d np2_2d

# (f) compressed snapshots (run.compression): the same values, with the shuffle and deflate filters.
out_c=$T/out_np2_deflate
"$MPIEXEC" -n 2 "$STRATUS" run "$T/deck3d.ini" --set "run.output_dir=$out_c" --set run.compression=4 \
  > "$T/stdout_deflate" 2>&1 || { cat "$T/stdout_deflate" >&2; fail "np2 run with run.compression=4 failed"; }
for s in "${SNAP_STEPS[@]}"; do
  fc=$(snap_file "$out_c" "$s")
  h5diff -q "$(snap_file "${OUT[np1]}" "$s")" "$fc" /fields/q /fields/q ||
    fail "compressed snapshot $fc: /fields/q differs from the uncompressed np1 run"
done
# Into a file first: grep -q stops reading at the first match, and under pipefail h5dump's SIGPIPE would
# then fail the pipeline.
h5dump -p -H "$fc" > "$T/h5dump_deflate" || fail "h5dump cannot read the compressed snapshot $fc"
grep -q "COMPRESSION DEFLATE { LEVEL 4 }" "$T/h5dump_deflate" || fail "compressed snapshot $fc: no deflate filter"
grep -q "PREPROCESSING SHUFFLE" "$T/h5dump_deflate" || fail "compressed snapshot $fc: no shuffle filter"
pass "run.compression=4 at np2: shuffle + deflate filters, /fields/q identical to np1 at steps ${SNAP_STEPS[*]}"

# (g) a run killed (SIGKILL) while it writes a snapshot every step leaves only complete files under final
# names: every snapshot opens and holds /fields/q, every XDMF file is whole, and the series lists only
# snapshots that exist. Snapshots are not fsynced (docs/output.md, "Durability"); a kill needs no fsync.
out_k=$T/out_kill
make_deck "$T/deck_kill.ini" 32 32 32
"$STRATUS" run "$T/deck_kill.ini" --set "run.output_dir=$out_k" --set run.max_steps=1000000 \
  --set run.snapshot_every=1 -q > "$T/stdout_kill" 2>&1 &
pid=$!
for _ in $(seq 100); do  # until a few snapshots exist (at most 10 s), then kill at once
  (( $(find "$out_k" -name "${NAME}_*.h5" 2> /dev/null | wc -l) >= 4 )) && break
  sleep 0.1
done
kill -KILL $pid 2> /dev/null || true
wait $pid 2> /dev/null || true
mapfile -t snaps < <(find "$out_k" -name "${NAME}_*.h5" | sort)
(( ${#snaps[@]} >= 4 )) || fail "killed run: only ${#snaps[@]} snapshots written"
for f in "${snaps[@]: -3}"; do  # the newest ones, those a kill could have caught
  h5dump -H -d /fields/q "$f" > /dev/null 2>&1 || fail "killed run: $f is not a complete snapshot"
done
for x in "$out_k"/*.xmf; do
  [[ $(tail -n 1 "$x") == "</Xdmf>" ]] || fail "killed run: $x is not a whole XDMF file"
  for h in $(grep -o "${NAME}_[0-9]*\.h5" "$x" | sort -u); do
    [[ -f $out_k/$h ]] || fail "killed run: $x names $h, which does not exist"
  done
done
pass "a run killed while writing a snapshot every step left only complete snapshots and XDMF files"

echo "cli_output: all checks passed"
