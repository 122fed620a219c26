#!/usr/bin/env bash
# `make demo`: list the files a search would visit in a real tree, as `rg --files` would, and put the
# count and the time beside ripgrep's when rg is installed.
set -euo pipefail
bin=$(realpath "$1")
tree=${2:-/usr/include}
[ -d "$tree" ] || { echo "demo: '$tree' is not a directory; run 'make demo DEMO_TREE=/some/dir'" >&2; exit 2; }
cd "$tree"
echo "== ctxsearch --files in $tree (first 10, sorted by path)"
"$bin" --files --sort path | head -n 10
echo "== C and C++ headers only (-t c -t cpp), first 5"
"$bin" --files --sort path -t c -t cpp | head -n 5
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
ours=$("$bin" --files | wc -l)
echo "== files listed: ctxsearch $ours in $(ms "$bin" --files) ms"
if command -v rg >/dev/null 2>&1; then
  echo "== files listed: rg        $(rg --files | wc -l) in $(ms rg --files) ms (one cold-ish run each; see bench/ for medians)"
fi
