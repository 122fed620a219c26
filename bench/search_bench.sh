#!/usr/bin/env bash
# Search benchmark: ctxsearch vs rg 13 (Debian) and rg 14.1.1 on a real source tree, with queries
# shaped like ripgrep's benchsuite. A benchmark, not a timed test: nothing here fails on a slow
# result, but differing output is reported as a correctness bug.
#
# usage: bench/search_bench.sh [-x CTXSEARCH] [-n RUNS] [-r ROUNDS] [-W WARMUP] [-o OUTDIR]
#                              [-q QUERIES_TSV] [-s QUERY_NAME_REGEX] [-j1] [-P] [-F] CORPUS_DIR...
#   -x  ctxsearch binary (default: build/release/ctxsearch of this checkout; skipped if missing)
#   -n  timed runs per command and round (default 5, at least 5)      -W  warmup runs (default 1)
#   -r  rounds (default 3): every query's comparison is repeated ROUNDS times (the tool order
#       rotates) and the medians are taken over all runs, so a load change on a shared machine
#       hits every tool alike
#   -o  output directory (default /tmp/search-bench-<time>); one subdir per corpus
#   -q  queries, one per line: name<TAB>flags<TAB>pattern (flags: space-separated rg flags or '-';
#       pattern '@LITERALS' means -f with 1,000 identifiers taken from the corpus)
#   -s  only the queries whose name matches this (grep -E) regex
#   -j1 also time single-threaded runs (ctxsearch -j1, rg -j1) of every query
#   -P  also run the shared peer runner (../shared/bench/peers.sh: ugrep, ag, git grep, grep)
#   -F  also time, on the plain-literal queries (no flags, or -l), the floor: `io_floor` (bench/
#       io_floor.cpp: open, fstat, read or map, memmem, close per file of ctxsearch's file list, on
#       all cores, no walk) and the walk alone (`ctxsearch --files`); their output is not compared
# env: RG14 (default ~/.cache/ctxsearch/rg14/rg; fetch it with bench/get-rg14.sh), RG13 (default
#      /usr/bin/rg), PEERS (path of peers.sh), TMO (seconds before an untimed run is given up, 600)
#
# Every command runs in the corpus dir as `TOOL -n FLAGS -e PATTERN` (-l/-c: without -n), with its
# output going to a pipe (hyperfine --output=pipe, never /dev/null). Before timing, each command
# runs once untimed: output lines (for -c the summed counts), peak RSS (/usr/bin/time %M) and the
# sorted output's digest; outputs of ctxsearch, rg 13 and rg 14 that differ are kept as diff-*.
# Per corpus: OUTDIR/<corpus>/{env.txt,counts.tsv,load.tsv,hyperfine-<query>-<round>.json,
# table.md,diff-*}. The ratio is ctxsearch's median / the median of the faster rg on that query.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
CTX=$REPO/build/release/ctxsearch RUNS=5 ROUNDS=3 WARM=1 OUT='' QUERIES='' SELECT='' J1=0 PEER=0 FLOOR=0
RG13=${RG13:-/usr/bin/rg}
RG14=${RG14:-$HOME/.cache/ctxsearch/rg14/rg}
PEERS=${PEERS:-$(realpath -m "$REPO/../shared/bench/peers.sh")}
TMO=${TMO:-600}
usage() { awk 'NR>1 && /^#/{sub(/^# ?/,""); print; next} NR>1{exit}' "$0"; exit 2; }
while [ $# -gt 0 ]; do case $1 in
  -x) CTX=$2; shift 2;; -n) RUNS=$2; shift 2;; -r) ROUNDS=$2; shift 2;; -W) WARM=$2; shift 2;;
  -o) OUT=$2; shift 2;; -q) QUERIES=$(realpath "$2"); shift 2;; -s) SELECT=$2; shift 2;;
  -j1) J1=1; shift;; -P) PEER=1; shift;; -F) FLOOR=1; shift;; -h|--help) usage;; -*) usage;; *) break;; esac; done
[ $# -ge 1 ] || usage
[ "$RUNS" -ge 5 ] 2>/dev/null || { echo "search_bench: -n must be >= 5" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "search_bench: hyperfine is required (apt-get install hyperfine)" >&2; exit 1; }
OUT=$(realpath -m "${OUT:-${TMPDIR:-/tmp}/search-bench-$(date +%Y%m%d-%H%M%S)}"); mkdir -p "$OUT"
export LC_ALL=C.UTF-8
if [ -x "$CTX" ]; then
  # time a private copy: the build dir may be rebuilt by someone else while this runs
  mkdir -p "$OUT/bin"; cp "$(realpath "$CTX")" "$OUT/bin/ctxsearch"
  CTX_FROM="$(realpath "$CTX") (sha256 $(sha256sum "$OUT/bin/ctxsearch" | cut -c1-12), built $(date -r "$CTX" -u +%FT%TZ))"
  CTX=$OUT/bin/ctxsearch
else echo "search_bench: no ctxsearch at $CTX: benchmarking the peers only" >&2; CTX=; fi
IO_FLOOR=
if [ "$FLOOR" = 1 ]; then
  if [ -n "$CTX" ] && [ -x "$REPO/build/release/bench/io_floor" ]; then
    cp "$REPO/build/release/bench/io_floor" "$OUT/bin/io_floor"; IO_FLOOR=$OUT/bin/io_floor
  else echo "search_bench: -F needs ctxsearch and build/release/bench/io_floor: no floor rows" >&2; fi
fi
[ -x "$RG14" ] || { echo "search_bench: no rg 14 at $RG14 (run bench/get-rg14.sh): skipping it" >&2; RG14=; }
[ -x "$RG13" ] || RG13=

# ripgrep's benchsuite shapes (linux_*), with words that occur in C/C++ trees.
default_queries() { printf '%s\t%s\t%s\n' \
  literal      -         'NotImplementedException' \
  literal_i    -i        'NotImplementedException' \
  word         -w        'NotImplementedException' \
  suffix_re    -         '[A-Z]+_SUSPEND' \
  alt4         -         'EXIT_FAILURE|CURLE_OK|NotImplementedException|strerror' \
  alt4_i       -i        'EXIT_FAILURE|CURLE_OK|NotImplementedException|strerror' \
  greek        -         '\p{Greek}' \
  no_literal   -         '\w{5}\s+\w{5}\s+\w{5}' \
  files_with   -l        'TODO' \
  count        -c        'TODO' \
  literals1000 -         '@LITERALS'; }

sq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }  # single-quoted for sh and hyperfine -N

# 1,000 identifiers (8-32 characters) found in the corpus, the same ones on every run: from every
# 50th file of rg's sorted file list, unique, then evenly spaced in byte order.
make_literals() {
  local rg=${RG13:-$RG14}
  "$rg" --files | LC_ALL=C sort | awk 'NR % 50 == 1' \
    | xargs -d '\n' "$rg" -oNI --no-filename -e '\b[A-Za-z_][A-Za-z0-9_]{7,31}\b' 2>/dev/null \
    | LC_ALL=C sort -u > "$1.all"
  awk -v n="$(wc -l < "$1.all")" 'BEGIN{k=0} {if (k < 1000 && NR > k * n / 1000) {print; k++}}' \
    "$1.all" > "$1"
  rm -f "$1.all"
}

# name<TAB>command for the query's flags and pattern, one line per tool present
commands() {
  local flags=$1 pat=$2 f="" t b
  [ "$flags" = - ] && flags=""
  case " $flags " in *" -l "*|*" -c "*) ;; *) f="-n";; esac
  [ -n "$flags" ] && f="${f:+$f }$flags"
  local pe; if [ "$pat" = @LITERALS ]; then pe="-f $(sq "$LITS")"; else pe="-e $(sq "$pat")"; fi
  for t in ctxsearch rg13 rg14; do
    case $t in ctxsearch) b=$CTX;; rg13) b=$RG13;; rg14) b=$RG14;; esac
    [ -n "$b" ] || continue
    printf '%s\t%s %s %s\n' "$t" "$(sq "$b")" "$f" "$pe"
    [ "$J1" = 1 ] && printf '%s-j1\t%s -j1 %s %s\n' "$t" "$(sq "$b")" "$f" "$pe"
  done
  if [ -n "$IO_FLOOR" ] && { [ -z "$flags" ] || [ "$flags" = -l ]; } && [[ $pat =~ ^[A-Za-z0-9_]+$ ]]; then
    printf 'floor\t%s %s %s\n' "$(sq "$IO_FLOOR")" "$(sq "$FILES0")" "$(sq "$pat")"
    printf 'walk\t%s --files\n' "$(sq "$CTX")"
  fi; true; }

# hits: output lines, or for -c the sum of the per-file counts
hits() { case " $1 " in *" -c "*) awk -F: '{s+=$NF} END{print s+0}' "$2";; *) wc -l < "$2";; esac; }

bench_corpus() {
  local C; C=$(realpath "$1"); local name; name=$(basename "$C")
  local O=$OUT/$name; mkdir -p "$O"; rm -f "$O"/diff-*.txt "$O"/hyperfine-*.json
  cd "$C" || return 1
  LITS=$O/literals-1000.txt
  [ -s "$LITS" ] || make_literals "$LITS"
  FILES0=$O/files0.txt
  [ -n "$IO_FLOOR" ] && "$CTX" --files -0 > "$FILES0"
  local QT=$O/queries.tsv
  if [ -n "$QUERIES" ]; then cp "$QUERIES" "$QT"; else default_queries > "$QT"; fi
  if [ -n "$SELECT" ]; then awk -F'\t' -v re="$SELECT" '$1 ~ re' "$QT" > "$QT.sel"; mv "$QT.sel" "$QT"; fi
  local rgfiles; rgfiles=$("${RG13:-$RG14}" --files | wc -l)
  local rgbytes; rgbytes=$("${RG13:-$RG14}" --files -0 | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
  {
    echo "# $name ($C)  $(date -u +%FT%TZ)"
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GiB RAM, $(uname -r)"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    [ -n "$CTX" ] && echo "ctxsearch: copy of $CTX_FROM; checkout HEAD $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null)"
    [ -n "$RG13" ] && echo "rg13: $("$RG13" --version | head -1)"
    [ -n "$RG14" ] && echo "rg14: $("$RG14" --version | head -1)"
    echo "hyperfine: $(hyperfine --version); runs=$RUNS per round, rounds=$ROUNDS, warmup=$WARM"
    echo "corpus: $rgfiles files searched by rg, $((rgbytes / 1000000)) MB ($rgbytes bytes); $(du -sh --exclude=.git . | cut -f1) on disk without .git"
    echo "-f file: $(wc -l < "$LITS") identifiers from the corpus ($LITS)"
  } > "$O/env.txt"
  cat "$O/env.txt" >&2

  # untimed run per (query, tool): hits, bytes, peak RSS, rc, digest of the sorted output
  printf 'query\ttool\thits\tbytes\tmaxrss_kb\trc\tsecs\tsorted_md5\tcommand\n' > "$O/counts.tsv"
  while IFS=$'\t' read -r -u 3 q flags pat; do
    [ -z "$q" ] || [ "${q#\#}" != "$q" ] && continue
    commands "$flags" "$pat" > "$O/cmds-$q.tsv"
    while IFS=$'\t' read -r -u 4 t c; do
      local s0; s0=$(date +%s.%N)
      /usr/bin/time -f '%M' -o "$O/rss" timeout "$TMO" sh -c "exec $c" < /dev/null > "$O/out-$t" 2> "$O/err-$q-$t.txt"; local rc=$?
      local secs; secs=$(echo "$(date +%s.%N) - $s0" | bc)
      LC_ALL=C sort "$O/out-$t" -o "$O/out-$t"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%s\n' "$q" "$t" "$(hits "$flags" "$O/out-$t")" "$(stat -c %s "$O/out-$t")" \
        "$(tail -1 "$O/rss")" "$rc" "$secs" "$(md5sum < "$O/out-$t" | cut -c1-12)" "$c" >> "$O/counts.tsv"
      echo "$q $t: rc=$rc $(hits "$flags" "$O/out-$t") lines, ${secs}s" >&2
    done 4< "$O/cmds-$q.tsv"
    local a b
    for a in rg13 rg14; do for b in ctxsearch rg14; do
      [ "$a" != "$b" ] && [ -f "$O/out-$a" ] && [ -f "$O/out-$b" ] || continue
      cmp -s "$O/out-$a" "$O/out-$b" && continue
      { echo "# $q: sorted output of $a (<) vs $b (>); differing lines per file, then the first 200 diff lines"
        diff "$O/out-$a" "$O/out-$b" | LC_ALL=C awk '/^[<>] /{s = substr($0, 3); i = index(s, ":");
          print substr($0, 1, 1), (i ? substr(s, 1, i - 1) : s)}' | sort | uniq -c | sort -rn | head -20
        diff "$O/out-$a" "$O/out-$b" | head -200; } > "$O/diff-$q-$a-vs-$b.txt"
    done; done
    rm -f "$O"/out-*
    find "$O" -name "err-$q-*.txt" -empty -delete
  done 3< "$QT"
  rm -f "$O/rss"

  # timed runs: per round, per query, one hyperfine over the tools (order rotated each round)
  printf 'round\tquery\tload_before\tload_after\n' > "$O/load.tsv"
  local k
  for k in $(seq 1 "$ROUNDS"); do
    while IFS=$'\t' read -r -u 3 q flags pat; do
      [ -z "$q" ] || [ "${q#\#}" != "$q" ] && continue
      local args=() lines=()
      mapfile -t lines < "$O/cmds-$q.tsv"
      local n=${#lines[@]} i
      for ((i = 0; i < n; i++)); do
        local line=${lines[$(((i + k - 1) % n))]}
        # a command whose untimed run failed or timed out (rc >= 2) is not timed
        awk -F'\t' -v q="$q" -v t="${line%%$'\t'*}" '$1==q && $2==t && $6<2 {f=1} END{exit !f}' "$O/counts.tsv" || continue
        args+=(-n "${line%%$'\t'*}" "${line#*$'\t'}")
      done
      [ ${#args[@]} -gt 0 ] || continue
      local l0; l0=$(cut -d' ' -f1 /proc/loadavg)
      hyperfine -N --output=pipe -i --warmup "$WARM" --runs "$RUNS" --style basic \
        --export-json "$O/hyperfine-$q-$k.json" "${args[@]}" < /dev/null >&2
      printf '%s\t%s\t%s\t%s\n' "$k" "$q" "$l0" "$(cut -d' ' -f1 /proc/loadavg)" >> "$O/load.tsv"
    done 3< "$QT"
  done
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$O/env.txt"

  python3 - "$O" "$name" > "$O/table.md" <<'EOF'
import csv, glob, json, os, re, statistics, sys
O, name = sys.argv[1], sys.argv[2]
counts = list(csv.DictReader(open(os.path.join(O, "counts.tsv")), delimiter="\t"))
queries = [r.split("\t") for r in open(os.path.join(O, "queries.tsv")).read().splitlines()
           if r and not r.startswith("#")]
loads = [float(r["load_before"]) for r in csv.DictReader(open(os.path.join(O, "load.tsv")), delimiter="\t")]
c = {(r["query"], r["tool"]): r for r in counts}
tools = []
for r in counts:
    if r["tool"] not in tools: tools.append(r["tool"])
searchers = [t for t in tools if t not in ("floor", "walk")]  # floor and walk print other things
print(f"## {name}\n")
print("".join("    " + l for l in open(os.path.join(O, "env.txt"))))
if loads:
    print(f"\n1-minute load average before each hyperfine: min {min(loads):.2f}, "
          f"median {statistics.median(loads):.2f}, max {max(loads):.2f}")
print("\nmedian seconds over all rounds; ratio = ctxsearch / the faster of rg13, rg14 on that query")
print("\n| query | flags | pattern | " + " | ".join(tools) + " | ctxsearch ratio |")
print("|---|---|---|" + "---:|" * (len(tools) + 1))
bugs = []
floors = []
for q, flags, pat in queries:
    times = {}
    for p in sorted(glob.glob(os.path.join(O, f"hyperfine-{q}-*.json"))):
        for r in json.load(open(p))["results"]:
            times.setdefault(r["command"], []).extend(r["times"])
    med = {t: statistics.median(ts) for t, ts in times.items()}
    cells = []
    for t in tools:
        cells.append(f"{med[t]:.3f} ({len(times[t])})" if t in med else "–")
    rgs = [med[t] for t in ("rg13", "rg14") if t in med]
    ratio = f"{med['ctxsearch'] / min(rgs):.2f}x" if rgs and "ctxsearch" in med else "–"
    shown = "-f 1,000 identifiers" if pat == "@LITERALS" else pat.replace("|", "\\|")
    print(f"| {q} | {'' if flags == '-' else flags} | `{shown}` | " + " | ".join(cells) + f" | {ratio} |")
    if rgs and "floor" in med:
        floors.append(f"- {q}: floor {med['floor']:.3f} s = {med['floor'] / min(rgs):.2f}x the faster rg; "
                      f"walk alone {med.get('walk', float('nan')):.3f} s; ctxsearch - floor = "
                      f"{med.get('ctxsearch', float('nan')) - med['floor']:.3f} s")
    hs = {t: c[(q, t)]["hits"] for t in searchers if (q, t) in c}
    md = {t: c[(q, t)]["sorted_md5"] for t in searchers if (q, t) in c}
    if len(set(md.values())) > 1 or len(set(hs.values())) > 1:
        bugs.append((q, flags, pat, hs, md))
if floors:
    print("\nfloor (io_floor: open, fstat, read or map, memmem, close per listed file, all cores, no walk):\n")
    print("\n".join(floors))
print("\noutput lines (-c: summed counts) / peak RSS MB / exit code of the untimed run")
print("\n| query | " + " | ".join(tools) + " | same output |")
print("|---|" + "---:|" * len(tools) + "---|")
for q, flags, pat in queries:
    cells = []
    for t in tools:
        r = c.get((q, t))
        cells.append(f"{r['hits']} / {int(r['maxrss_kb'] or 0) / 1024:.0f} / {r['rc']}" if r else "–")
    same = len({c[(q, t)]["sorted_md5"] for t in searchers if (q, t) in c}) == 1
    print(f"| {q} | " + " | ".join(cells) + f" | {'yes' if same else '**NO**'} |")
if bugs:
    print("\n**Output differs (a correctness bug unless rg13 and rg14 differ too):**")
    for q, flags, pat, hs, md in bugs:
        cmd = next((c[(q, t)]["command"] for t in tools if (q, t) in c), shown)
        print(f"- {q}: `{cmd}` (run in the corpus dir): lines "
              + ", ".join(f"{t}={n}" for t, n in hs.items()))
    print("  (rg's own output for a file whose first NUL byte lies past its first 64 KiB varies from run"
          " to run: it searches only the reads before the one holding the NUL, and read sizes vary;"
          " compare such files with -j1 or by hand.)")
    for f in sorted(glob.glob(os.path.join(O, "diff-*.txt"))):
        print(f"  - {os.path.basename(f)}: first lines:")
        ls = open(f, encoding="utf-8", errors="backslashreplace").read().rstrip("\n").split("\n")[:8]
        print("".join("        " + "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in l[:200]) + "\n"
                      for l in ls), end="")
EOF
  cat "$O/table.md"

  if [ "$PEER" = 1 ]; then
    if [ -f "$PEERS" ]; then
      # the same queries in peers.sh's modes (its -f equivalent does not exist)
      awk -F'\t' 'BEGIN{OFS="\t"} $3 != "@LITERALS" {
          m = "re"; if ($2 == "-i") m = "lit_i"; else if ($2 == "-w") m = "word";
          else if ($2 == "-l") m = "files_l"; else if ($2 == "-c") m = "count";
          print $1, m, $3 }' "$QT" > "$O/peer-queries.tsv"
      local xo=(); [ -n "$CTX" ] && xo=(-x "$CTX")
      bash "$PEERS" -C "$C" "${xo[@]}" -n "$RUNS" -W "$WARM" -q "$O/peer-queries.tsv" -o "$O/peers"
    else echo "search_bench: no peer runner at $PEERS" >&2; fi
  fi
}

for c in "$@"; do bench_corpus "$c"; done
echo "results: $OUT" >&2
