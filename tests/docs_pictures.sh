#!/usr/bin/env bash
# scripts/docs-pictures.sh --quick regenerates every picture docs/ shows (small runs) with this build's
# stratus into a temporary directory: one PNG per picture in docs/img, each a real image, and nothing
# written into the checkout. Skipped (77) without ParaView's pvbatch and Xvfb (Debian: paraview,
# python3-paraview, xvfb; scripts/test.sh installs them).
#   usage: docs_pictures.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
command -v pvbatch > /dev/null || skip "no pvbatch (Debian: paraview python3-paraview)"
[[ -n ${DISPLAY:-} ]] || command -v Xvfb > /dev/null || skip "no display and no Xvfb (Debian: xvfb)"
before=$(git -C "$SRC" status --porcelain 2> /dev/null || true)
expect_rc 0 pictures.log "$SRC/scripts/docs-pictures.sh" --quick --exe "$STRATUS" --out "$T/img" -n 2
for f in "$SRC"/docs/img/*.png; do
  png=$T/img/$(basename "$f")
  [[ -s $png ]] || fail "docs-pictures.sh did not make $(basename "$f"): $(cat pictures.log)"
  [[ $(head -c 8 "$png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "$png is not a PNG"
  [[ $(stat -c %s "$png") -gt 10000 ]] || fail "$png is suspiciously small ($(stat -c %s "$png") bytes)"
done
after=$(git -C "$SRC" status --porcelain 2> /dev/null || true)
[[ $before == "$after" ]] || fail "docs-pictures.sh changed the checkout: $after"
pass "docs-pictures.sh --quick: $(find "$T/img" -name '*.png' | wc -l) pictures, the checkout untouched"
