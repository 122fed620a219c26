#!/usr/bin/env bash
# MCP benchmark: the same lookups through `ctxsearch mcp` and through the reference
# @modelcontextprotocol/server-filesystem, each one long-lived server process driven over one
# stdio connection by the official TypeScript SDK client (N calls per query, medians), plus the
# CLI time of the same work (`ctxsearch tool ...` one process per call, and the rg-style
# commands), and each server's RSS before and after many calls. A benchmark, not a timed test.
#
# usage: bench/mcp_bench.sh [-x CTXSEARCH] [-n RUNS] [-c RSS_CALLS] [-s STEP] [-r] [-o OUTDIR]
#                           [-L] [-X OLD_CTXSEARCH] [-R ROUNDS] [-N CALLS] [-g GLOB] [-p PATTERN] [-d DIR] [-f FILE]
#                           CORPUS_DIR
#   -x  ctxsearch binary (default: build/release/ctxsearch of this checkout)
#   -n  timed calls per query and server (default 9; medians)   -c  calls for RSS (default 10000)
#   -s  RSS series: read the server's RSS after every STEP calls of the RSS run (default 1000)
#   -r  the RSS run of ctxsearch mcp only (no timings, no server-filesystem, no CLI): the series
#       goes to OUTDIR/rss-series.md
#   -w  with -r: a wide RSS mix, four calls per top-level directory of the corpus (list_directory
#       depth 2, find_files '**/*.md', search_files 'TODO' max_results 20, file_info), so the
#       session's caches (compiled ignore files, search results) fill up to their bounds
#   -L  the lean run instead (bench/mcp_lean.py, no SDK): each server's own cost per call,
#       round-trip latency (median, p90) and the server process's CPU time per call
#       (utime+stime), for ping, list_directory (ours at depth 1 with every entry shown, and by
#       default; theirs list_directory and list_directory_with_sizes), read_file vs
#       read_text_file (ours whole and by default), file_info vs get_file_info, find_files vs
#       search_files; plus the CLI's CPU for the find (`ctxsearch --files -g`, hyperfine) and
#       the kernel's floor of listing DIR with sizes (bench/list_floor beside CTXSEARCH's build).
#       Output: OUTDIR/lean.md, lean.json
#   -X  with -L: an older ctxsearch binary run side by side too (server "ctxsearch-old": the same
#       calls, its ratios to server-filesystem and new / old), so a change is measured against
#       the peer and the build before it in the same rounds
#   -R  lean rounds (default 5; servers alternate which goes first)
#   -N  lean timed calls per cheap query and round (default 1000; ping 3x, finds far fewer)
#   -o  output directory (default /tmp/mcp-bench-<time>)
#   -g  find glob (default '**/Makefile.am')      -p  search regex (default 'CURLOPT_[A-Z_]*TIMEOUT')
#   -d  directory to list (default: the corpus's first subdirectory; with -L the directory of
#       depth <= 2 with the most entries)
#   -f  file to read (default: the first *.c of 8-24 KiB under the corpus, sorted)
# env: CTXSEARCH_NPM_DIR (default ~/.cache/ctxsearch/npm; the SDK and server-filesystem are
#      installed there on first use, never inside the repository)
#
# Pairs (the nearest equivalents): ctxsearch find_files vs server-filesystem search_files (a
# name glob; it walks everything, so it gets excludePatterns ["**/.git"], while find_files also
# skips .gitignored files: both variants of ours are timed, include_ignored false and true);
# list_directory vs list_directory; read_file vs read_text_file; search_files (content regex) has
# no equivalent there and is compared with the CLI (`ctxsearch -n PATTERN`). ctxsearch answers
# within its token budget (it says what it cut); server-filesystem returns everything, so result
# bytes are in the table. The RSS run cycles through cheap calls (read, list, info, a find and a
# search inside the read file's directory) RSS_CALLS times and reads /proc/PID/status of the server.
# Output: OUTDIR/{env.txt,spec-*.json,client-*.json,cli-*.json,table.md}.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
CTX=$REPO/build/release/ctxsearch RUNS=9 RSS_CALLS=10000 STEP=1000 RSS_ONLY=0 WIDE=0 LEAN=0 ROUNDS=5 LEAN_CALLS=1000 OUT='' GLOB='**/Makefile.am'
PATTERN='CURLOPT_[A-Z_]*TIMEOUT' DIR='' FILE='' OLD_CTX=''
NPM_DIR=${CTXSEARCH_NPM_DIR:-$HOME/.cache/ctxsearch/npm}
usage() { awk 'NR>1 && /^#/{sub(/^# ?/,""); print; next} NR>1{exit}' "$0"; exit 2; }
while [ $# -gt 0 ]; do case $1 in
  -x) CTX=$2; shift 2;; -n) RUNS=$2; shift 2;; -c) RSS_CALLS=$2; shift 2;; -o) OUT=$2; shift 2;;
  -s) STEP=$2; shift 2;; -r) RSS_ONLY=1; shift;; -w) WIDE=1; shift;;
  -L) LEAN=1; shift;; -X) OLD_CTX=$2; shift 2;; -R) ROUNDS=$2; shift 2;; -N) LEAN_CALLS=$2; shift 2;;
  -g) GLOB=$2; shift 2;; -p) PATTERN=$2; shift 2;; -d) DIR=$2; shift 2;; -f) FILE=$2; shift 2;;
  -h|--help) usage;; -*) usage;; *) break;; esac; done
[ $# -eq 1 ] || usage
CORPUS=$(realpath "$1")
die() { echo "mcp_bench: $*" >&2; exit 1; }
[ -d "$CORPUS" ] || die "no corpus directory $1"
[ -x "$CTX" ] || die "no ctxsearch at $CTX (build the release preset or pass -x)"
command -v node >/dev/null || die "node is required"
command -v npm >/dev/null || die "npm is required"
[ "$RSS_ONLY" = 1 ] || command -v hyperfine >/dev/null || die "hyperfine is required (apt-get install hyperfine)"
[ "$RUNS" -ge 3 ] 2>/dev/null || die "-n must be >= 3"
[ "$STEP" -ge 1 ] 2>/dev/null || die "-s must be >= 1"
[ "$RSS_ONLY" = 0 ] || [ "$RSS_CALLS" -ge 1 ] 2>/dev/null || die "-r needs -c >= 1"
[ "$WIDE" = 0 ] || [ "$RSS_ONLY" = 1 ] || die "-w goes with -r"
[ "$LEAN" = 0 ] || [ "$RSS_ONLY" = 0 ] || die "-L and -r are separate runs"
[ "$LEAN" = 0 ] || command -v python3 >/dev/null || die "-L needs python3"
[ -z "$OLD_CTX" ] || [ "$LEAN" = 1 ] || die "-X goes with -L"
[ -z "$OLD_CTX" ] || [ -x "$OLD_CTX" ] || die "no ctxsearch at $OLD_CTX (-X)"
[ "$ROUNDS" -ge 1 ] 2>/dev/null || die "-R must be >= 1"
[ "$LEAN_CALLS" -ge 10 ] 2>/dev/null || die "-N must be >= 10"
OUT=$(realpath -m "${OUT:-${TMPDIR:-/tmp}/mcp-bench-$(date +%Y%m%d-%H%M%S)}"); mkdir -p "$OUT"
export LC_ALL=C.UTF-8

# A private copy of the binary: the build dir may be rebuilt while this runs.
mkdir -p "$OUT/bin"; cp "$(realpath "$CTX")" "$OUT/bin/ctxsearch"; CTX_FROM=$(realpath "$CTX"); CTX=$OUT/bin/ctxsearch
if [ -n "$OLD_CTX" ]; then
  cp "$(realpath "$OLD_CTX")" "$OUT/bin/ctxsearch-old"; OLD_FROM=$(realpath "$OLD_CTX"); OLD_CTX=$OUT/bin/ctxsearch-old
fi

for pkg in @modelcontextprotocol/sdk @modelcontextprotocol/server-filesystem; do
  if [ ! -f "$NPM_DIR/node_modules/$pkg/package.json" ]; then
    mkdir -p "$NPM_DIR"; [ -f "$NPM_DIR/package.json" ] || echo '{"private": true}' > "$NPM_DIR/package.json"
    npm install --no-audit --no-fund --prefix "$NPM_DIR" "$pkg" >&2 || die "npm install $pkg failed (is the registry reachable?)"
  fi
done
FS_SERVER=$NPM_DIR/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
pkgver() { node -e "console.log(require(process.argv[1]).version)" "$NPM_DIR/node_modules/$1/package.json"; }

FILES=$(find "$CORPUS" -type f | wc -l)
[ "$FILES" -ge 40000 ] || echo "mcp_bench: warning: $CORPUS has $FILES files (the comparison is meant for >= 40k)" >&2
if [ -z "$DIR" ] && [ "$LEAN" = 1 ]; then  # the biggest directory near the top
  DIR=$(cd "$CORPUS" && find . -mindepth 1 -maxdepth 2 -type d ! -path '*/.*' | sort |
    while IFS= read -r d; do echo "$(find "$d" -mindepth 1 -maxdepth 1 | wc -l) $d"; done |
    sort -k1,1nr -k2 | head -1 | sed 's|^[0-9]* \./||')
fi
[ -n "$DIR" ] || DIR=$(cd "$CORPUS" && find . -mindepth 1 -maxdepth 1 -type d ! -name '.*' | sort | head -1 | sed 's|^\./||')
[ -n "$FILE" ] || FILE=$(cd "$CORPUS" && find . -path '*/.git' -prune -o -type f -name '*.c' -size +8k -size -24k -print | sort | head -1 | sed 's|^\./||')
[ -n "$DIR" ] && [ -n "$FILE" ] || die "could not pick a directory and a file to read; pass -d and -f"
FILE_DIR=$(dirname "$FILE")

{
  echo "date: $(date -u +%FT%TZ)"; echo "host: $(uname -srm), $(nproc) cpus"; uptime
  echo "ctxsearch: $CTX_FROM (sha256 $(sha256sum "$CTX" | cut -c1-12))"
  [ -z "$OLD_CTX" ] || echo "ctxsearch-old: $OLD_FROM (sha256 $(sha256sum "$OLD_CTX" | cut -c1-12))"
  echo "node: $(node --version); sdk $(pkgver @modelcontextprotocol/sdk); server-filesystem $(pkgver @modelcontextprotocol/server-filesystem)"
  echo "corpus: $CORPUS ($FILES files)"; echo "glob: $GLOB; pattern: $PATTERN; dir: $DIR; file: $FILE"
  [ "$LEAN" = 0 ] || echo "lean: $ROUNDS rounds, $LEAN_CALLS calls per cheap query"
  [ "$LEAN" = 1 ] || echo "runs: $RUNS per query; rss calls: $RSS_CALLS (series step $STEP)$([ "$RSS_ONLY" = 1 ] && echo '; RSS run only')$([ "$WIDE" = 1 ] && echo '; wide mix')"
} > "$OUT/env.txt"
cat "$OUT/env.txt" >&2

json() { node -e 'console.log(JSON.stringify(process.argv[1]))' "$1"; }  # a JSON string literal
ABS=$CORPUS

if [ "$LEAN" = 1 ]; then
  # Pairs: the nearest equivalents (see the header); "#" keys are variants of one server.
  PINGS=$((LEAN_CALLS * 3))
  cat > "$OUT/spec-lean.json" <<EOF
{"rounds": $ROUNDS, "warmup": 20,
 "servers": {"ctxsearch": [$(json "$CTX"), "mcp", "--root", $(json "$CORPUS")],
             "filesystem": ["node", $(json "$FS_SERVER"), $(json "$CORPUS")]},
 "queries": [
  {"name": "ping", "calls": $PINGS, "per_server": {
    "ctxsearch": {"method": "ping"}, "filesystem": {"method": "ping"}}},
  {"name": "list", "calls": $LEAN_CALLS, "per_server": {
    "ctxsearch": {"tool": "list_directory", "label": "ctxsearch list_directory (all entries, sizes)",
                  "args": {"path": $(json "$DIR"), "depth": 1, "max_results": 1000000, "max_tokens": 1000000}},
    "ctxsearch#default": {"tool": "list_directory", "label": "ctxsearch list_directory (defaults)",
                          "args": {"path": $(json "$DIR")}},
    "filesystem": {"tool": "list_directory", "args": {"path": $(json "$ABS/$DIR")}},
    "filesystem#sizes": {"tool": "list_directory_with_sizes", "args": {"path": $(json "$ABS/$DIR")}}}},
  {"name": "read", "calls": $LEAN_CALLS, "per_server": {
    "ctxsearch": {"tool": "read_file", "label": "ctxsearch read_file (whole file)",
                  "args": {"path": $(json "$FILE"), "max_tokens": 1000000}},
    "ctxsearch#default": {"tool": "read_file", "label": "ctxsearch read_file (defaults)",
                          "args": {"path": $(json "$FILE")}},
    "filesystem": {"tool": "read_text_file", "args": {"path": $(json "$ABS/$FILE")}}}},
  {"name": "info", "calls": $LEAN_CALLS, "per_server": {
    "ctxsearch": {"tool": "file_info", "args": {"path": $(json "$FILE")}},
    "filesystem": {"tool": "get_file_info", "args": {"path": $(json "$ABS/$FILE")}}}},
  {"name": "find", "warmup": 1, "per_server": {
    "ctxsearch": {"tool": "find_files", "calls": 10,
                  "args": {"pattern": $(json "$GLOB"), "max_results": 1000000, "max_tokens": 1000000}},
    "filesystem": {"tool": "search_files", "calls": 2,
                   "args": {"path": $(json "$ABS"), "pattern": $(json "$GLOB"), "excludePatterns": ["**/.git"]}}}}],
 "ratios": [["ping", "ctxsearch", "filesystem"], ["list", "ctxsearch", "filesystem"],
            ["list", "ctxsearch", "filesystem#sizes"], ["list", "ctxsearch#default", "filesystem#sizes"],
            ["read", "ctxsearch", "filesystem"], ["read", "ctxsearch#default", "filesystem"],
            ["info", "ctxsearch", "filesystem"], ["find", "ctxsearch", "filesystem"]]}
EOF
  if [ -n "$OLD_CTX" ]; then  # the older build: the same calls, its ratios, and new / old
    python3 - "$OUT/spec-lean.json" "$OLD_CTX" <<'PY' || die "could not add -X to the spec"
import json, sys
path, old = sys.argv[1], sys.argv[2]
spec = json.load(open(path))
spec["servers"]["ctxsearch-old"] = [old] + spec["servers"]["ctxsearch"][1:]
for query in spec["queries"]:
    for key in [k for k in query["per_server"] if k.split("#")[0] == "ctxsearch"]:
        entry = dict(query["per_server"][key])
        if "label" in entry:
            entry["label"] = "old " + entry["label"]
        query["per_server"]["ctxsearch-old" + key[len("ctxsearch"):]] = entry
ratios = []
for q, a, b in spec["ratios"]:
    ratios.append([q, a, b])
    if a.split("#")[0] == "ctxsearch":
        ratios.append([q, "ctxsearch-old" + a[len("ctxsearch"):], b])
for query in spec["queries"]:
    for key in query["per_server"]:
        if key.split("#")[0] == "ctxsearch":
            ratios.append([query["name"], key, "ctxsearch-old" + key[len("ctxsearch"):]])
spec["ratios"] = ratios
json.dump(spec, open(path, "w"), indent=1)
PY
  fi
  python3 "$HERE/mcp_lean.py" "$OUT/spec-lean.json" -o "$OUT/lean.json" -t "$OUT/lean.md" ||
    die "the lean driver failed"
  # The CLI's cost for the same find: wall and CPU (user+system) of one process per run.
  if command -v hyperfine >/dev/null; then
    (cd "$CORPUS" && hyperfine -N --warmup 1 --runs 10 --export-json "$OUT/cli-lean-find.json" \
      "$CTX --files -g $(basename "$GLOB")" >/dev/null 2>&1) || echo "mcp_bench: hyperfine failed" >&2
    node -e 'const r = require(process.argv[1]).results[0];
      console.log("\nCLI `ctxsearch --files -g` (10 runs): wall median " + (r.median * 1000).toFixed(1) +
        " ms, CPU (user+system, mean) " + ((r.user + r.system) * 1000).toFixed(1) + " ms");' \
      "$OUT/cli-lean-find.json" | tee -a "$OUT/lean.md"
  fi
  # The kernel's floor of listing DIR with sizes (bench/list_floor, built with the release preset).
  FLOOR=$(dirname "$CTX_FROM")/bench/list_floor
  if [ -x "$FLOOR" ]; then
    { echo; echo "Floor of a sized listing of $DIR (bench/list_floor, 3 runs):"
      for _ in 1 2 3; do "$FLOOR" "$CORPUS/$DIR" 500 | sed -n 1p; done; } | tee -a "$OUT/lean.md"
  fi
  uptime | tee -a "$OUT/env.txt" >&2
  echo "mcp_bench: results in $OUT" >&2
  exit 0
fi

# The client: one SDK Client over stdio, a warm-up call, then RUNS timed calls per query; then
# RSS_CALLS calls cycling through `rss_mix`, reading the server's VmRSS/VmHWM before, after every
# `rss_step` calls (the series) and after.
cat > "$OUT/client.mjs" <<'EOF'
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
const [npmDir, specPath, ...rest] = process.argv.slice(2);
const [command, ...args] = rest.slice(rest.indexOf('--') + 1);
const require = createRequire(join(npmDir, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const spec = JSON.parse(readFileSync(specPath, 'utf8'));
const transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
const client = new Client({ name: 'mcp-bench', version: '1' });
const options = { timeout: 600000, maxTotalTimeout: 600000 };
const status = () => {
  const text = readFileSync(`/proc/${transport.pid}/status`, 'utf8');
  const kb = (key) => Number((text.match(new RegExp(`^${key}:\\s+(\\d+)`, 'm')) || [0, 0])[1]);
  return { rss_kb: kb('VmRSS'), hwm_kb: kb('VmHWM') };
};
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
await client.connect(transport);
await client.listTools();
const out = { queries: {}, rss: null };
for (const q of spec.rss_only ? [] : spec.queries) {
  const times = [];
  let last = null;
  for (let i = 0; i <= spec.runs; i++) {
    const t0 = performance.now();
    last = await client.callTool({ name: q.tool, arguments: q.args }, undefined, options);
    if (i > 0) times.push(performance.now() - t0);  // call 0 is the warm-up
  }
  out.queries[q.name] = { tool: q.tool, median_ms: median(times), min_ms: Math.min(...times),
    max_ms: Math.max(...times), is_error: last.isError === true,
    truncated: last.structuredContent?.truncated === true,
    result_bytes: JSON.stringify(last.content).length + JSON.stringify(last.structuredContent ?? null).length,
    sample: JSON.stringify(last.content).slice(0, 200) };
}
if (spec.rss_calls > 0) {
  const before = status();
  const t0 = performance.now();
  let errors = 0;
  const series = [{ calls: 0, ...before }];
  for (let i = 0; i < spec.rss_calls; i++) {
    const q = spec.rss_mix[i % spec.rss_mix.length];
    const r = await client.callTool({ name: q.tool, arguments: q.args }, undefined, options);
    if (r.isError) errors++;
    if ((i + 1) % spec.rss_step === 0) series.push({ calls: i + 1, ...status() });
  }
  const seconds = (performance.now() - t0) / 1000;
  out.rss = { calls: spec.rss_calls, errors, seconds, calls_per_s: spec.rss_calls / seconds,
    before, after: status(), series };
}
await client.close();
console.log(JSON.stringify(out));
EOF

# The RSS mix of ctxsearch: cheap calls around one file, or (-w) four calls per top-level directory.
RSS_MIX="
  {\"tool\": \"read_file\", \"args\": {\"path\": $(json "$FILE")}},
  {\"tool\": \"list_directory\", \"args\": {\"path\": $(json "$DIR")}},
  {\"tool\": \"file_info\", \"args\": {\"path\": $(json "$FILE")}},
  {\"tool\": \"find_files\", \"args\": {\"pattern\": \"**/*.h\", \"path\": $(json "$FILE_DIR")}},
  {\"tool\": \"search_files\", \"args\": {\"pattern\": \"main\", \"path\": $(json "$FILE_DIR")}}"
if [ "$WIDE" = 1 ]; then
  RSS_MIX=''
  while IFS= read -r top; do
    [ -n "$RSS_MIX" ] && RSS_MIX="$RSS_MIX,"
    RSS_MIX="$RSS_MIX
  {\"tool\": \"list_directory\", \"args\": {\"path\": $(json "$top"), \"depth\": 2}},
  {\"tool\": \"find_files\", \"args\": {\"pattern\": \"**/*.md\", \"path\": $(json "$top")}},
  {\"tool\": \"search_files\", \"args\": {\"pattern\": \"TODO\", \"path\": $(json "$top"), \"max_results\": 20}},
  {\"tool\": \"file_info\", \"args\": {\"path\": $(json "$top")}}"
  done < <(cd "$CORPUS" && find . -mindepth 1 -maxdepth 1 -type d ! -name '.*' | sort | sed 's|^\./||')
fi
# ctxsearch's queries (root-relative paths) and server-filesystem's (absolute paths).
cat > "$OUT/spec-ctxsearch.json" <<EOF
{"runs": $RUNS, "rss_calls": $RSS_CALLS, "rss_step": $STEP, "rss_only": $([ "$RSS_ONLY" = 1 ] && echo true || echo false),
 "queries": [
  {"name": "find", "tool": "find_files", "args": {"pattern": $(json "$GLOB")}},
  {"name": "find_all", "tool": "find_files", "args": {"pattern": $(json "$GLOB"), "include_ignored": true}},
  {"name": "list", "tool": "list_directory", "args": {"path": $(json "$DIR")}},
  {"name": "read", "tool": "read_file", "args": {"path": $(json "$FILE")}},
  {"name": "search", "tool": "search_files", "args": {"pattern": $(json "$PATTERN")}}],
 "rss_mix": [$RSS_MIX]}
EOF
cat > "$OUT/spec-filesystem.json" <<EOF
{"runs": $RUNS, "rss_calls": $RSS_CALLS, "rss_step": $STEP, "rss_only": false,
 "queries": [
  {"name": "find", "tool": "search_files", "args": {"path": $(json "$ABS"), "pattern": $(json "$GLOB"), "excludePatterns": ["**/.git"]}},
  {"name": "list", "tool": "list_directory", "args": {"path": $(json "$ABS/$DIR")}},
  {"name": "read", "tool": "read_text_file", "args": {"path": $(json "$ABS/$FILE")}}],
 "rss_mix": [
  {"tool": "read_text_file", "args": {"path": $(json "$ABS/$FILE")}},
  {"tool": "list_directory", "args": {"path": $(json "$ABS/$DIR")}},
  {"tool": "get_file_info", "args": {"path": $(json "$ABS/$FILE")}},
  {"tool": "search_files", "args": {"path": $(json "$ABS/$FILE_DIR"), "pattern": "**/*.h", "excludePatterns": ["**/.git"]}}]}
EOF

echo "mcp_bench: ctxsearch mcp ..." >&2
node "$OUT/client.mjs" "$NPM_DIR" "$OUT/spec-ctxsearch.json" -- "$CTX" mcp --root "$CORPUS" > "$OUT/client-ctxsearch.json" || die "the ctxsearch client failed"
if [ "$RSS_ONLY" = 1 ]; then  # the series alone: calls, RSS and peak in MiB
  node - "$OUT" <<'EOF' | tee "$OUT/rss-series.md"
const r = JSON.parse(require('fs').readFileSync(`${process.argv[2]}/client-ctxsearch.json`, 'utf8')).rss;
const mib = (kb) => (kb / 1024).toFixed(1);
console.log(`ctxsearch mcp RSS series: ${r.calls} calls in ${r.seconds.toFixed(1)} s (${r.calls_per_s.toFixed(0)}/s), ${r.errors} errors\n`);
console.log('| calls | RSS MiB | peak MiB |');
console.log('|---:|---:|---:|');
for (const s of r.series) console.log(`| ${s.calls} | ${mib(s.rss_kb)} | ${mib(s.hwm_kb)} |`);
EOF
  echo "mcp_bench: results in $OUT" >&2
  exit 0
fi
echo "mcp_bench: server-filesystem ..." >&2
node "$OUT/client.mjs" "$NPM_DIR" "$OUT/spec-filesystem.json" -- node "$FS_SERVER" "$CORPUS" > "$OUT/client-filesystem.json" || die "the server-filesystem client failed"

echo "mcp_bench: CLI ..." >&2
cd "$CORPUS" || die "cannot enter $CORPUS"
hf() {  # name, command...
  local name=$1; shift
  hyperfine -N --warmup 1 --runs "$RUNS" --output=pipe --export-json "$OUT/cli-$name.json" "$@" >/dev/null 2>&1 ||
    echo "mcp_bench: hyperfine failed for $name" >&2
}
hf tool_find "$CTX tool find_files --root $CORPUS '{\"pattern\": \"$GLOB\"}'"
hf tool_search "$CTX tool search_files --root $CORPUS '{\"pattern\": \"$PATTERN\"}'"
hf tool_read "$CTX tool read_file --root $CORPUS '{\"path\": \"$FILE\"}'"
hf rg_files "$CTX --files -g $(basename "$GLOB")"
hf rg_search "$CTX -n -e $PATTERN"

node - "$OUT" "$RUNS" <<'EOF' > "$OUT/table.md"
const fs = require('fs');
const [out, runs] = process.argv.slice(2);
const read = (f) => { try { return JSON.parse(fs.readFileSync(`${out}/${f}`, 'utf8')); } catch { return null; } };
const ctx = read('client-ctxsearch.json'), fsrv = read('client-filesystem.json');
const cli = (n) => { const j = read(`cli-${n}.json`); return j ? (j.results[0].median * 1000).toFixed(1) : 'n/a'; };
const cell = (q) => q ? `${q.median_ms.toFixed(1)} ms${q.is_error ? ' (error)' : ''}${q.truncated ? ' (truncated)' : ''}, ${q.result_bytes} B` : '-';
const rows = [
  ['find (name glob)', ctx.queries.find, fsrv.queries.find, `tool: ${cli('tool_find')} ms; --files -g: ${cli('rg_files')} ms`],
  ['find incl. ignored', ctx.queries.find_all, fsrv.queries.find, ''],
  ['list_directory', ctx.queries.list, fsrv.queries.list, ''],
  ['read file', ctx.queries.read, fsrv.queries.read, `tool: ${cli('tool_read')} ms`],
  ['search (regex)', ctx.queries.search, null, `tool: ${cli('tool_search')} ms; -n -e: ${cli('rg_search')} ms`],
];
console.log(`Medians of ${runs} calls over one stdio connection (SDK client; after one warm-up call).\n`);
console.log('| query | ctxsearch mcp | server-filesystem | ctxsearch CLI (median, one process per run) |');
console.log('|---|---|---|---|');
for (const [name, a, b, c] of rows) console.log(`| ${name} | ${cell(a)} | ${cell(b)} | ${c} |`);
const rss = (r) => r ? `${(r.before.rss_kb / 1024).toFixed(1)} MiB -> ${(r.after.rss_kb / 1024).toFixed(1)} MiB (peak ${(r.after.hwm_kb / 1024).toFixed(1)} MiB), ${r.calls} calls in ${r.seconds.toFixed(1)} s (${r.calls_per_s.toFixed(0)}/s), ${r.errors} errors` : 'n/a';
console.log(`\nRSS, ctxsearch mcp: ${rss(ctx.rss)}`);
console.log(`RSS, server-filesystem: ${rss(fsrv.rss)}`);
EOF
cat "$OUT/table.md"
echo "mcp_bench: results in $OUT" >&2
