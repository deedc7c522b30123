#!/usr/bin/env bash
# `cmake --install` of this build tree into a prefix, then the installed tree moved elsewhere (it must be
# relocatable) and used from a directory that holds no decks:
#   - the layout: bin/stratus, share/stratus/{inputs,post,slurm}, share/doc/stratus, the Lmod module;
#   - `stratus decks` lists the installed example decks, from the moved tree;
#   - `stratus run` runs the built-in default deck; `stratus check md/lj_melt` and `stratus run lj_melt`
#     (a bare name) run the installed example; a name that is neither a file nor an example fails with
#     exit 2 naming it;
#   - `module load stratus` (Lmod, Debian's lmod: scripts/test.sh installs it; the module check is skipped
#     without it) puts the moved tree's stratus and post tools on PATH and sets STRATUS_ROOT.
#   usage: install.sh STRATUS MPIEXEC SOURCE_DIR   (STRATUS in its build tree)
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
BUILD=$(dirname "$STRATUS")
[[ -f $BUILD/CMakeCache.txt ]] || fail "$STRATUS is not in a build tree"

expect_rc 0 install.log cmake --install "$BUILD" --prefix "$T/prefix"
for f in bin/stratus share/stratus/inputs/md/lj_melt.ini share/stratus/inputs/climate/thermal.ini \
  share/stratus/post/md_analysis.py share/stratus/slurm/stratus-cpu.sbatch share/doc/stratus/README.md \
  share/doc/stratus/md.md share/modulefiles/stratus; do
  [[ -e $T/prefix/$f ]] || fail "not installed: $f ($(cd "$T/prefix" && find . | head -30))"
done
[[ -x $T/prefix/share/stratus/post/md_analysis.py ]] || fail "post tools installed without their execute bit"
! grep -rqF "$T/prefix" "$T/prefix/bin" || fail "the installed executable names its prefix"
mv "$T/prefix" "$T/moved"
EXE=$T/moved/bin/stratus
mkdir "$T/work"
cd "$T/work"

expect_rc 0 decks.log "$EXE" decks
grep -qF "example decks in $T/moved/share/stratus/inputs" decks.log || fail "decks not from the moved tree: $(cat decks.log)"
grep -qE '^ +md/lj_melt\.ini +The Lennard-Jones melt' decks.log || fail "md/lj_melt.ini not listed: $(cat decks.log)"
pass "stratus decks lists $(grep -c '\.ini' decks.log) example decks of the moved tree"

expect_rc 0 default.log "$EXE" run --set run.output_dir="$T/work/default"
[[ -f $T/work/default/default.done ]] || fail "the default deck did not complete: $(ls "$T/work/default")"
expect_rc 0 check.log "$EXE" check md/lj_melt --set md.cells="4 4 4"
grep -q "256 atoms" check.log || fail "check md/lj_melt: not the 4x4x4 LJ melt: $(head -20 check.log)"
expect_rc 0 lj.log "$MPIEXEC" -n 2 "$EXE" run lj_melt --set md.cells="4 4 4" --set run.max_steps=20 \
  --set run.output_dir="$T/work/lj"
[[ -f $T/work/lj/lj_melt.done ]] || fail "run lj_melt did not complete: $(ls "$T/work/lj")"
expect_rc 2 missing.log "$EXE" run no_such_deck
grep -qF "cannot read deck file 'no_such_deck'" missing.log || fail "no message naming the deck: $(cat missing.log)"
pass "the moved tree runs the default deck and its examples by name; an unknown name exits 2"

if [[ ! -f /usr/share/lmod/lmod/init/bash ]]; then
  skip "Lmod not installed (Debian: lmod): the module file was not loaded"
fi
out=$(env -i HOME="$T" PATH=/usr/bin:/bin bash -c "source /usr/share/lmod/lmod/init/bash && \
  module use '$T/moved/share/modulefiles' && module load stratus && command -v stratus && \
  command -v md_analysis.py && echo \"\$STRATUS_ROOT\"" 2>&1) || fail "module load stratus failed: $out"
[[ $out == "$T/moved/bin/stratus"$'\n'"$T/moved/share/stratus/post/md_analysis.py"$'\n'"$T/moved" ]] ||
  fail "module load stratus: expected the moved tree's paths, got: $out"
pass "module load stratus: $T/moved on PATH"
