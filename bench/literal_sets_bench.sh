#!/usr/bin/env bash
# Big literal sets (-f with thousands of identifiers): two ctxsearch builds side by side with rg 14
# and rg 13, on a tiny input (where compiling the set is all the cost) and on a source tree. A
# benchmark, not a timed test: nothing fails on a slow result; differing output is reported.
#
# usage: bench/literal_sets_bench.sh [-r RUNS] OLD_CTXSEARCH NEW_CTXSEARCH CORPUS_DIR LIST...
#   Each LIST (one literal a line) is searched with `TOOL -c -f LIST .`, first in a directory
#   holding one 24-byte file, then in CORPUS_DIR. Per command: peak RSS (/usr/bin/time %M) of an
#   untimed run, whether its sorted output equals OLD's, then hyperfine (-r RUNS, default 5; one
#   warmup) and the medians. `uptime` is printed around each comparison (the machine is shared).
# env: RG14 (default ~/.cache/ctxsearch/rg14/rg), RG13 (default /usr/bin/rg)
set -u
RUNS=5
if [ "${1:-}" = -r ]; then RUNS=$2; shift 2; fi
[ $# -ge 4 ] || { awk 'NR>1 && /^#/{sub(/^# ?/,""); print; next} NR>1{exit}' "$0"; exit 2; }
OLD=$(realpath "$1") NEW=$(realpath "$2") CORPUS=$(realpath "$3"); shift 3
RG14=${RG14:-$HOME/.cache/ctxsearch/rg14/rg}
RG13=${RG13:-/usr/bin/rg}
WORK=$(mktemp -d /tmp/literal-sets-bench.XXXXXX)
mkdir -p "$WORK/tiny" && echo "hello world foo_bar baz" > "$WORK/tiny/tiny.txt"

compare() {  # name dir list
  local name=$1 dir=$2 list=$3 tool bin
  echo "== $name: $(wc -l < "$list") literals ($list) in $dir"; uptime
  cd "$dir" || return
  for tool in OLD NEW RG14 RG13; do
    bin=${!tool}
    /usr/bin/time -f "%M" "$bin" -c -f "$list" . 2> "$WORK/rss" | sort > "$WORK/out-$tool"
    echo "  $tool peak RSS $(tail -1 "$WORK/rss") KB"
    [ "$tool" = OLD ] || cmp -s "$WORK/out-OLD" "$WORK/out-$tool" || echo "  OUTPUT DIFFERS: $tool vs OLD"
  done
  hyperfine -N -w 1 -r "$RUNS" -i --export-json "$WORK/$name.json" \
    -n old "$OLD -c -f $list ." -n new "$NEW -c -f $list ." \
    -n rg14 "$RG14 -c -f $list ." -n rg13 "$RG13 -c -f $list ." > /dev/null 2>&1
  python3 - "$WORK/$name.json" <<'EOF'
import json, statistics, sys
results = json.load(open(sys.argv[1]))["results"]
print("  medians: " + "  ".join("%s %.3f s (mean user %.2f s)" % (
    r["command"], statistics.median(r["times"]), r["user"]) for r in results))
EOF
  uptime
}

for list in "$@"; do
  list=$(realpath "$list")
  compare "tiny-$(basename "$list" .txt)" "$WORK/tiny" "$list"
  compare "tree-$(basename "$list" .txt)" "$CORPUS" "$list"
done
echo "raw results: $WORK"
