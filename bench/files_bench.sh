#!/usr/bin/env bash
# `--files` benchmark: ctxsearch vs rg 13 (Debian), rg 14.1.1, fd and git ls-files, side by side.
# A benchmark, not a timed test: nothing here fails on a slow result.
#
# usage: bench/files_bench.sh [-x CTXSEARCH] [-n RUNS] [-r ROUNDS] [-W WARMUP] [-o OUTDIR] [-j1] [-P] CORPUS_DIR...
#   -x  ctxsearch binary (default: build/release/ctxsearch of this checkout; skipped if missing)
#   -n  timed runs per command and round (default 7, at least 5)      -W  warmup runs (default 1)
#   -r  rounds (default 1): the hyperfine comparison is repeated ROUNDS times and the medians are
#       taken over all runs, so that a load change on a shared machine hits every tool alike
#   -o  output directory (default /tmp/files-bench-<time>); one subdir per corpus
#   -j1 also time single-threaded runs (ctxsearch -j1, rg -j1)
#   -P  also run the shared peer runner (../shared/bench/peers.sh, queries list_files and glob_go)
# env: RG14 (default ~/.cache/ctxsearch/rg14/rg; fetch it with bench/get-rg14.sh), RG13 (default
#      /usr/bin/rg), PEERS (path of peers.sh), TARGET (ratio goal for ctxsearch, default 0.7)
#
# Each command runs in the corpus dir with its output going to a pipe (hyperfine --output=pipe,
# never /dev/null).  Before timing, every command is run once untimed to count its output lines and
# peak RSS; the lists of ctxsearch, rg 13, rg 14 and fd are compared (sorted) and differences saved.
# Per corpus: OUTDIR/<corpus>/{hyperfine-<group>-<round>.{json,md},counts.tsv,table.md,env.txt,diff-*}.
# The ratio column is median / median of the faster rg (13 or 14) in the same group (unsorted or
# --sort path): that is the one to beat.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
CTX=$REPO/build/release/ctxsearch RUNS=7 ROUNDS=1 WARM=1 OUT= J1=0 PEER=0
RG13=${RG13:-/usr/bin/rg}
RG14=${RG14:-$HOME/.cache/ctxsearch/rg14/rg}
PEERS=${PEERS:-$(realpath -m "$REPO/../shared/bench/peers.sh")}
TARGET=${TARGET:-0.7}
FD=$(command -v fdfind || command -v fd || true)
usage() { awk 'NR>1 && /^#/{sub(/^# ?/,""); print; next} NR>1{exit}' "$0"; exit 2; }
while [ $# -gt 0 ]; do case $1 in
  -x) CTX=$2; shift 2;; -n) RUNS=$2; shift 2;; -r) ROUNDS=$2; shift 2;; -W) WARM=$2; shift 2;; -o) OUT=$2; shift 2;;
  -j1) J1=1; shift;; -P) PEER=1; shift;; -h|--help) usage;; -*) usage;; *) break;; esac; done
[ $# -ge 1 ] || usage
[ "$RUNS" -ge 5 ] 2>/dev/null || { echo "files_bench: -n must be >= 5" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "files_bench: hyperfine is required (apt-get install hyperfine)" >&2; exit 1; }
OUT=$(realpath -m "${OUT:-${TMPDIR:-/tmp}/files-bench-$(date +%Y%m%d-%H%M%S)}"); mkdir -p "$OUT"
export LC_ALL=C.UTF-8
if [ -x "$CTX" ]; then
  # time a private copy: the build dir may be rebuilt by someone else while this runs
  mkdir -p "$OUT/bin"; cp "$(realpath "$CTX")" "$OUT/bin/ctxsearch"
  CTX_FROM="$(realpath "$CTX") (sha256 $(sha256sum "$OUT/bin/ctxsearch" | cut -c1-12), built $(date -r "$CTX" -u +%FT%TZ))"
  CTX=$OUT/bin/ctxsearch
else echo "files_bench: no ctxsearch at $CTX: benchmarking the peers only" >&2; CTX=; fi
[ -x "$RG14" ] || { echo "files_bench: no rg 14 at $RG14 (run bench/get-rg14.sh): skipping it" >&2; RG14=; }
[ -x "$RG13" ] || RG13=

q() { printf '%q' "$1"; }
# name<TAB>group<TAB>command  (group: files | sorted); only tools that exist
commands() {
  [ -n "$CTX" ]  && printf 'ctxsearch\tfiles\t%s --files\n' "$(q "$CTX")"
  [ -n "$RG13" ] && printf 'rg13\tfiles\t%s --files\n' "$(q "$RG13")"
  [ -n "$RG14" ] && printf 'rg14\tfiles\t%s --files\n' "$(q "$RG14")"
  if [ "$J1" = 1 ]; then
    [ -n "$CTX" ]  && printf 'ctxsearch-j1\tfiles\t%s -j1 --files\n' "$(q "$CTX")"
    [ -n "$RG13" ] && printf 'rg13-j1\tfiles\t%s -j1 --files\n' "$(q "$RG13")"
    [ -n "$RG14" ] && printf 'rg14-j1\tfiles\t%s -j1 --files\n' "$(q "$RG14")"
  fi
  [ -n "$FD" ] && printf 'fd\tfiles\t%s -t f\n' "$(q "$FD")"
  if [ "$GIT" = 1 ]; then
    printf 'git-ls-files\tfiles\tgit ls-files\n'
    printf 'git-ls-files-co\tfiles\tgit ls-files --cached --others --exclude-standard\n'
  fi
  [ -n "$CTX" ]  && printf 'ctxsearch-sort\tsorted\t%s --files --sort path\n' "$(q "$CTX")"
  [ -n "$RG13" ] && printf 'rg13-sort\tsorted\t%s --files --sort path\n' "$(q "$RG13")"
  [ -n "$RG14" ] && printf 'rg14-sort\tsorted\t%s --files --sort path\n' "$(q "$RG14")"
  true; }

bench_corpus() {
  local C; C=$(realpath "$1"); local name; name=$(basename "$C")
  local O=$OUT/$name; mkdir -p "$O"; rm -f "$O/notes.txt" "$O"/diff-*.txt
  cd "$C" || return 1
  GIT=0; git rev-parse --is-inside-work-tree >/dev/null 2>&1 && GIT=1
  commands > "$O/commands.tsv"
  {
    echo "# $name ($C)  $(date -u +%FT%TZ)"
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GiB RAM, $(uname -r)"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    [ -n "$CTX" ] && echo "ctxsearch: $("$CTX" --version 2>/dev/null | head -1), copy of $CTX_FROM; checkout HEAD $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null)"
    [ -n "$RG13" ] && echo "rg13: $("$RG13" --version | head -1)"
    [ -n "$RG14" ] && echo "rg14: $("$RG14" --version | head -1)"
    [ -n "$FD" ] && echo "fd: $("$FD" --version)"
    echo "git: $(git --version)"; echo "hyperfine: $(hyperfine --version)"
    echo "corpus: $(find . -path ./.git -prune -o -type f -print | wc -l) files, $(find . -path ./.git -prune -o -type d -print | wc -l) dirs, $(du -sh --exclude=.git . | cut -f1) without .git"
    [ "$GIT" = 1 ] && echo "git: HEAD $(git rev-parse --short HEAD 2>/dev/null || echo none), $(git ls-files | wc -l) files in the index"
  } > "$O/env.txt"
  cat "$O/env.txt" >&2

  # untimed run per command: output lines, bytes, peak RSS, exit code; keep the lists for diffs
  printf 'tool\tgroup\tlines\tbytes\tmaxrss_kb\trc\tcommand\n' > "$O/counts.tsv"
  while IFS=$'\t' read -r -u 3 t g c; do
    /usr/bin/time -f '%M' -o "$O/rss" sh -c "exec $c" < /dev/null > "$O/list-$t.txt" 2> "$O/stderr-$t.txt"; rc=$?
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$g" "$(wc -l < "$O/list-$t.txt")" "$(stat -c %s "$O/list-$t.txt")" \
      "$(tail -1 "$O/rss")" "$rc" "$c" >> "$O/counts.tsv"
  done 3< "$O/commands.tsv"
  rm -f "$O/rss"
  # same set of files? (sorted, byte order) ctxsearch, rg14, fd vs rg13; ctxsearch vs rg14
  local ref=rg13; [ -s "$O/list-rg13.txt" ] || ref=rg14
  for t in ctxsearch rg14 fd ctxsearch-sort; do
    [ -f "$O/list-$t.txt" ] && [ "$t" != "$ref" ] || continue
    local r=$ref; [ "$t" = ctxsearch-sort ] && r=$ref-sort
    [ -f "$O/list-$r.txt" ] || continue
    comm -3 <(sort "$O/list-$r.txt") <(sort "$O/list-$t.txt") > "$O/diff-$r-vs-$t.txt"
    [ -s "$O/diff-$r-vs-$t.txt" ] || rm -f "$O/diff-$r-vs-$t.txt"
  done
  if [ -f "$O/list-ctxsearch.txt" ] && [ -f "$O/list-rg14.txt" ] && [ "$ref" != rg14 ]; then
    comm -3 <(sort "$O/list-rg14.txt") <(sort "$O/list-ctxsearch.txt") > "$O/diff-rg14-vs-ctxsearch.txt"
    [ -s "$O/diff-rg14-vs-ctxsearch.txt" ] || rm -f "$O/diff-rg14-vs-ctxsearch.txt"
  fi
  # --sort path orders by path components (rg's order, not plain byte order): same order as rg?
  for t in ctxsearch-sort rg14-sort; do
    [ -f "$O/list-$t.txt" ] && [ -f "$O/list-rg13-sort.txt" ] || continue
    if cmp -s "$O/list-rg13-sort.txt" "$O/list-$t.txt"; then echo "order: $t output is identical to rg13-sort" >> "$O/notes.txt"
    else echo "order: $t output differs from rg13-sort; first difference: $(diff "$O/list-rg13-sort.txt" "$O/list-$t.txt" | head -3 | tr '\n' ' ')" >> "$O/notes.txt"; fi
  done

  # timed runs: one hyperfine per group, every command with its own name
  rm -f "$O"/hyperfine-*.json "$O"/hyperfine-*.md
  local k
  for k in $(seq 1 "$ROUNDS"); do
    for g in files sorted; do
      local args=()
      while IFS=$'\t' read -r t gg c; do [ "$gg" = "$g" ] && args+=(-n "$t" "$c"); done < "$O/commands.tsv"
      [ ${#args[@]} -gt 0 ] || continue
      hyperfine -N --output=pipe -i --warmup "$WARM" --runs "$RUNS" --style basic \
        --export-json "$O/hyperfine-$g-$k.json" --export-markdown "$O/hyperfine-$g-$k.md" "${args[@]}" < /dev/null >&2
    done
  done
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$O/env.txt"

  python3 - "$O" "$name" "$TARGET" > "$O/table.md" <<'EOF'
import csv, glob, json, os, statistics, sys
O, name, target = sys.argv[1], sys.argv[2], float(sys.argv[3])
counts = {r["tool"]: r for r in csv.DictReader(open(os.path.join(O, "counts.tsv")), delimiter="\t")}
print(f"## {name}\n")
print("".join("    " + l for l in open(os.path.join(O, "env.txt"))))
for g in ("files", "sorted"):
    files = sorted(glob.glob(os.path.join(O, f"hyperfine-{g}-*.json")))
    if not files:
        continue
    times = {}  # command -> all timed runs over all rounds
    for p in files:
        for r in json.load(open(p))["results"]:
            times.setdefault(r["command"], []).extend(r["times"])
    res = [{"command": c, "times": ts, "median": statistics.median(ts), "mean": statistics.mean(ts),
            "stddev": statistics.stdev(ts) if len(ts) > 1 else 0.0, "min": min(ts)} for c, ts in times.items()]
    med = {r["command"]: r["median"] for r in res}
    rgs = [med[t] for t in (("rg13", "rg14") if g == "files" else ("rg13-sort", "rg14-sort")) if t in med]
    base = min(rgs) if rgs else None
    bname = [t for t in med if base is not None and med[t] == base and t.startswith("rg")]
    print(f"\n### `--files`{' --sort path' if g == 'sorted' else ''}: median of {len(res[0]['times'])} runs"
          + (f" ({len(files)} rounds)" if len(files) > 1 else "")
          + (f"; ratio = median / {bname[0]} (the faster rg)" if bname else ""))
    print("\n| tool | median s | mean ± σ s | min s | ratio | files listed | peak RSS MB | command |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for r in res:
        t = r["command"]; c = counts.get(t, {})
        ratio = f"{r['median'] / base:.2f}x" if base else "–"
        rss = f"{int(c.get('maxrss_kb') or 0) / 1024:.0f}" if c else "–"
        print(f"| {t} | {r['median']:.4f} | {r['mean']:.4f} ± {r['stddev'] or 0:.4f} | {r['min']:.4f} | {ratio} "
              f"| {c.get('lines', '?')}{'' if c.get('rc', '0') == '0' else ' (rc ' + c['rc'] + ')'} | {rss} | `{c.get('command', '')}` |")
    if base and ("ctxsearch" in med or "ctxsearch-sort" in med):
        t = "ctxsearch" if g == "files" else "ctxsearch-sort"
        if t in med:
            ratio = med[t] / base
            print(f"\n{t}: {ratio:.2f}x the faster rg; target <= {target:.2f}x: {'met' if ratio <= target else 'NOT met'}")
lines = {t: c["lines"] for t, c in counts.items() if t in ("ctxsearch", "rg13", "rg14", "fd", "ctxsearch-sort", "rg13-sort", "rg14-sort")}
if len(set(lines.values())) > 1:
    print("\n**file counts differ:** " + ", ".join(f"{t}={n}" for t, n in lines.items()))
diffs = sorted(f for f in os.listdir(O) if f.startswith("diff-"))
for f in diffs:
    ls = open(os.path.join(O, f), errors="replace").read().splitlines()
    a = sum(1 for l in ls if not l.startswith("\t")); b = len(ls) - a
    x, y = f[5:-4].split("-vs-")
    print(f"\n{f}: {a} only in {x}, {b} only in {y}; first lines:")
    print("".join(f"    {l}\n" for l in ls[:8]), end="")
if os.path.exists(os.path.join(O, "notes.txt")):
    print("\n" + open(os.path.join(O, "notes.txt")).read())
print("\ngit ls-files lists the index (tracked files, hidden ones too); --cached --others --exclude-standard adds\n"
      "untracked files that are not ignored. git reads no .ignore files; rg and fd skip hidden files by default.")
EOF
  cat "$O/table.md"
  rm -f "$O"/list-*.txt  # large; counts.tsv and diff-* keep what matters
  find "$O" -name 'stderr-*.txt' -empty -delete

  if [ "$PEER" = 1 ]; then
    if [ -x "$PEERS" ] || [ -f "$PEERS" ]; then
      printf 'list_files\tfiles\t\nglob_go\tglob\tgo\n' > "$O/peer-queries.tsv"
      local xo=(); [ -n "$CTX" ] && xo=(-x "$CTX")
      bash "$PEERS" -C "$C" "${xo[@]}" -t "rg rg1" -n "$RUNS" -W "$WARM" -q "$O/peer-queries.tsv" -o "$O/peers"
    else echo "files_bench: no peer runner at $PEERS" >&2; fi
  fi
}

for c in "$@"; do bench_corpus "$c"; done
echo "results: $OUT" >&2
