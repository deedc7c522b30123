#!/usr/bin/env bash
# scripts/deb-src-entry.sh on the apt layouts a new user's Debian 12 may have: the classic sources.list
# with an empty sources.list.d/ (the debootstrap and installer layout, on which the first run of
# scripts/test.sh once stopped without a word), classic lines spread over sources.list.d/*.list, the deb822
# debian.sources of container images, and no binary source at all (exit 1 with a message).
#   usage: deb_src_entry.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
script=$SRC/scripts/deb-src-entry.sh

mkroot() { mkdir -p "$T/$1/etc/apt/sources.list.d"; echo "$T/$1"; }

r=$(mkroot classic)
printf '# bookworm\ndeb http://deb.debian.org/debian bookworm main\ndeb http://deb.debian.org/debian-security bookworm-security main\n' \
  > "$r/etc/apt/sources.list"
out=$(bash "$script" "$r") || fail "classic sources.list, empty sources.list.d/: exit $?"
[[ $(head -n 1 <<< "$out") == stratus-deb-src.list ]] || fail "classic: file name '$(head -n 1 <<< "$out")'"
[[ $(tail -n +2 <<< "$out") == $'deb-src http://deb.debian.org/debian bookworm main\ndeb-src http://deb.debian.org/debian-security bookworm-security main' ]] ||
  fail "classic: content '$out'"
echo "ok: classic sources.list with an empty sources.list.d/"

r=$(mkroot split)
echo "deb http://deb.debian.org/debian bookworm main" > "$r/etc/apt/sources.list.d/a.list"
echo "deb [arch=amd64] http://example.org/x bookworm main" > "$r/etc/apt/sources.list.d/b.list"
out=$(bash "$script" "$r") || fail "lines in sources.list.d/*.list only: exit $?"
[[ $(tail -n +2 <<< "$out" | wc -l) -eq 2 && $out == *"deb-src [arch=amd64] http://example.org/x"* ]] || fail "split: '$out'"
echo "ok: no sources.list, lines in sources.list.d/*.list"

r=$(mkroot deb822)
printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\n' \
  > "$r/etc/apt/sources.list.d/debian.sources"
out=$(bash "$script" "$r") || fail "deb822: exit $?"
[[ $(head -n 1 <<< "$out") == stratus-deb-src.sources && $out == *$'\nTypes: deb-src\n'* ]] || fail "deb822: '$out'"
echo "ok: deb822 debian.sources"

r=$(mkroot empty)
set +e
out=$(bash "$script" "$r" 2> "$T/err")
rc=$?
set -e
[[ $rc -eq 1 && -z $out ]] || fail "no sources: exit $rc, output '$out'"
grep -q "no 'deb' line" "$T/err" || fail "no sources: no message"
echo "ok: no binary source: exit 1 with '$(cat "$T/err")'"
