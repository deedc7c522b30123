#!/usr/bin/env bash
# Prints the apt source entry that lets `apt-get source` fetch Debian source packages (trilinos, for
# Kokkos) on a machine whose apt has only binary sources: the deb822 file sources.list.d/debian.sources
# with "Types: deb-src", or else every classic "deb" line of sources.list and sources.list.d/*.list as
# "deb-src". stdout: first line the file name to create in sources.list.d/ (stratus-deb-src.sources or
# .list), then its content. Exits 1 with a message on stderr when there is no binary source to copy.
# Writes nothing; scripts/install-deps.sh installs what it prints.
#   usage: scripts/deb-src-entry.sh [ROOT]   (ROOT: the file-system root to read, default /)
set -euo pipefail
root=${1:-}
etc="$root/etc/apt"
if [ -f "$etc/sources.list.d/debian.sources" ]; then
  echo "stratus-deb-src.sources"
  sed 's/^Types: deb$/Types: deb-src/' "$etc/sources.list.d/debian.sources"
  exit 0
fi
# Only the files that exist: an unmatched glob would make grep fail, and under pipefail that ended the
# first run on a classic sources.list with an empty sources.list.d/ without a word.
lists=()
for f in "$etc/sources.list" "$etc"/sources.list.d/*.list; do
  if [ -f "$f" ]; then lists+=("$f"); fi
done
lines=""
if [ ${#lists[@]} -gt 0 ]; then lines=$(grep -h '^deb ' "${lists[@]}" | sed 's/^deb /deb-src /' || true); fi
if [ -z "$lines" ]; then
  echo "deb-src-entry: no 'deb' line in $etc/sources.list or $etc/sources.list.d/ to copy as deb-src" >&2
  exit 1
fi
echo "stratus-deb-src.list"
printf '%s\n' "$lines"
