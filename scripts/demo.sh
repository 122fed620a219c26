#!/usr/bin/env bash
# `make demo`: ctxsearch's main jobs on a real tree: a search (beside rg's, when rg is installed),
# the file list a search visits, and what a coding agent's model reads from the tools.
set -euo pipefail
bin=$(realpath "$1")
tree=${2:-/usr/include}
pattern=${3:-'struct stat\b'}
[ -d "$tree" ] || { echo "demo: '$tree' is not a directory; run 'make demo DEMO_TREE=/some/dir'" >&2; exit 2; }
cd "$tree"
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null || true; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
lines() { "$@" 2>/dev/null | wc -l; }
json_str() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$/"/'; }
echo "== ctxsearch -n '$pattern' in $tree (first 8 matches, sorted by path)"
"$bin" -n --sort path -e "$pattern" | head -n 8 || true
echo "== matching lines: ctxsearch $(lines "$bin" -e "$pattern") in $(ms "$bin" -e "$pattern") ms"
if command -v rg >/dev/null 2>&1; then
  echo "== matching lines: rg        $(lines rg -e "$pattern") in $(ms rg -e "$pattern") ms" \
       "(one warm run each; bench/search_bench.sh takes medians)"
fi
echo "== files a search visits: ctxsearch --files lists $(lines "$bin" --files) in $(ms "$bin" --files) ms"
if command -v rg >/dev/null 2>&1; then
  echo "== files a search visits: rg --files        lists $(lines rg --files) in $(ms rg --files) ms"
fi
echo "== what an agent's model reads: ctxsearch tool --text search_files (budget: 200 tokens)"
"$bin" tool --text search_files \
  "{\"pattern\": $(json_str "$pattern"), \"max_tokens\": 200}"
echo
first=$("$bin" -l --sort path -e "$pattern" | head -n 1 || true)
if [ -n "$first" ]; then
  echo "== ctxsearch tool --text read_file (the first 6 lines of $first)"
  "$bin" tool --text read_file "{\"path\": $(json_str "$first"), \"limit\": 6}"
fi
