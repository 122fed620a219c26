#!/usr/bin/env python3
"""Differential test: `ctxsearch PATTERN [PATH...]` against ripgrep on generated trees.

Oracles:
  rg 14   $RG14 or ~/.cache/ctxsearch/rg14/rg (the reference; skipped when absent)
  rg 13   $RG13 or /usr/bin/rg (Debian)
Where rg 13 and rg 14 differ, ctxsearch follows rg 14; the differences found are listed in
KNOWN_RG13_BUGS (a description plus a predicate telling whether a case may hit one). Each case
is compared against rg 14 when present, else against rg 13 unless it may hit a known rg 13 bug
(then it is skipped). With both present, rg 13 vs rg 14 differences that no KNOWN_RG13_BUGS
entry explains are printed as notes.

Trees (deterministic from the seed, Python stdlib only): C/Python/Rust/Markdown/text files in a
few directories, CRLF files, long lines (tens of KiB), files without a trailing newline, empty
files, binary files (a NUL byte early, or late: beyond the first 64 KiB), UTF-8 text (Greek,
Cyrillic, CJK, ß, the Kelvin sign and long s), invalid UTF-8 bytes, a file with a UTF-8 BOM,
text in legacy encodings (latin1, cp1252, Shift_JIS, GBK, EUC-KR, Big5, KOI8-R, UTF-16 without
a BOM, EUC-JP, ISO-2022-JP) and UTF-16 with a BOM, searched with -E LABEL (those encodings and
others, none, auto) or without.
NUL-separated records holding line feeds (for --null-data).

Flags: -n -i -s -S -w -x -F -v -c -l -o -m N, -e (repeated), -f FILE, -P --column -b --crlf
--null-data (NUL as the line terminator; trees hold NUL-separated records for it)
--count-matches --files-without-match -H -I --null --heading -a --binary -q, --passthru,
--stop-on-nonmatch, --include-zero, --context-separator / --no-context-separator,
--field-match-separator, --field-context-separator, --path-separator, -r/--replace (groups
numbered, named, missing; `$$`), -U (with patterns that span lines:
ML_PATTERNS) --multiline-dotall, -M N --max-columns-preview, --trim, -A/-B/-C N, --json,
--vimgrep, --stats (durations masked: --json's elapsed fields, --stats' seconds lines),
--color=always with --colors specs; patterns: literals, a literal dot,
alternations, classes, \\w+, \\bfoo\\b, \\p{Greek}, (?i), anchors, empty-matching patterns (a*, ^,
the empty pattern). Every command gets `--color never --sort path`; it runs from the tree root
with no path, `.`, a directory, a single file (no file names then), a binary file, several
paths, or a missing path (exit 2, other paths still searched). Compared: stdout exactly, the
exit code, and stderr loosely (both empty or both non-empty).

OPEN_BUGS lists ctxsearch-vs-rg 14 disagreements found by this test and reported but not fixed.
A mismatching case for which an entry applies is an expected failure (XFAIL, counted in the
summary) only if the case *without* what the entries need (their `ablate` functions: e.g. the
NUL bytes of binary files, a BOM, the -o flag) agrees with the oracle; otherwise it is a
failure. CTX_STRICT=1 turns XFAILs into failures. Remove an entry once fixed. RG_QUIRKS works
the same way for ripgrep bugs (rg 13 and 14 alike) that ctxsearch does not copy.

Found here and fixed since (now plain regressions): Unicode simple case folds (`-i s` vs `ſ`,
`-i k` vs `K`) dropped by the Hyperscan prefilter; `.` and negated classes matching one byte in
Hyperscan; Hyperscan's UTF-8 mode on invalid UTF-8 dropping matches (`\\bfoo\\b` on
`\\xc3foo`); smart case on non-ASCII uppercase and escapes; an empty match right where a match
ended (`a*` -o); an empty file matching an empty-matching pattern; -v --column printing `1:`;
-v -o printing nothing; -b counting a UTF-8 BOM; -m 0 still walking the paths; binary files
(where ripgrep notices a NUL: its roll buffer's reads, a 3-byte first one and context lines kept
from round to round, or the whole file when memory-mapped or multiline; what its printers do
then); --stats' bytes searched when -m stops a search; -P -S (rg 14 counts any uppercase
character not right after a backslash, `\\p{Han}` included); -U -m N with -A (later blocks print
as matches while the after-context lasts; ripgrep's duplicate of the line that ends it); POSIX
classes read as Unicode (Rust's are ASCII: `[[:upper:]]` is `[A-Z]`, `-i [[:^upper:]]` excludes
U+017F and U+212A); Rust's word characters for \\w \\W \\b \\B -w (Alphabetic, marks, Nd, Pc,
Join_Control; PCRE2's are letters, numbers and `_`); -w next to invalid UTF-8 or inside a
multibyte character (rg 14's half word boundaries fail there; Rust's decode_last reads a valid
character followed by stray continuation bytes as the character before: `-w bar` matches
`.\\x80bar`); empty matches inside invalid UTF-8 (PCRE2 10.42 never starts a search there
past the start offset: `-U -c -e '^|foo'` missed a line starting with `\\xaf`, `\\b` between
`b` and `\\xaf`); smart case without any literal (`-S '[[:upper:]]+'` is case-sensitive in rg)
and with hex escapes (`-S '\\x41'` holds an uppercase `A`); Rust's class dialect: \\s without
U+180E, \\d and \\w with Unicode 15's additions, nested classes and `&&` `--` `~~` (PCRE2 read
`[a-z&&[^aeiou]]` as another class), \\p{..} names and aliases (`\\p{Letter}`, `\\p{gc=Lu}`),
\\p{..} classes dropped by Hyperscan's older Unicode tables (`\\p{Lu}` and Cherokee capitals);
the bytes searched (--stats, --json) behind a BOM when -m or --stop-on-nonmatch stops a search
(ripgrep's reads there are its decoder's).

Many patterns: MANY_FLAGS, MANY_ASCII_FLAGS and MANY_LONG_FLAGS run on CTX_SEARCH_MANY_TREES trees with -f files
of thousands of patterns (see many_patterns_cases).

On a mismatch the case is shrunk (files, flags, patterns, lines, bytes) and printed: the files
involved, the command, expected vs got.

Environment:
  CTXSEARCH              binary under test (default: rg from PATH, a sanity check of the test)
  CTX_SEARCH_SEEDS       number of trees (default 48)
  CTX_SEARCH_SEED_START  first seed (default 0)
  CTX_SEARCH_SEED        only this seed
  CTX_SEARCH_CASES       cases per tree (default 24)
  CTX_SEARCH_JOBS        parallel workers (default 2)
  CTX_SEARCH_TIME_BUDGET seconds after which no new tree starts (default 100)
  CTX_SEARCH_MANY_TREES  trees for the many-patterns cases (default 1)
  CTX_SEARCH_MANY_COUNT  identifiers in the many-patterns sets (default 2500)
  CTX_SEARCH_MANY_ASCII_COUNT  identifiers in the ASCII literal sets (default 5200)
  CTX_SEARCH_SHRINK      max failures to shrink (default 3)
  CTX_SEARCH_SHRINK_BUDGET  seconds for shrinking in all (default 30)
  CTX_SEARCH_VERBOSE     print every XFAIL
  CTX_SEARCH_DUMP        a directory: each reported case's files are also written under it
                         (DIR/case-N/, the -f file as DIR/case-N.patterns) to replay the
                         printed command there
  CTX_STRICT             open ctxsearch bugs fail instead of XFAIL
  RG13, RG14             oracle binaries
"""

from __future__ import annotations

import codecs
import concurrent.futures
import difflib
import os
import random
import re
import unicodedata
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

CTX = os.environ.get("CTXSEARCH") or shutil.which("rg") or "rg"
if os.sep in CTX:
    CTX = os.path.abspath(CTX)  # the commands run in temp directories
SEEDS = int(os.environ.get("CTX_SEARCH_SEEDS", "48"))
SEED_START = int(os.environ.get("CTX_SEARCH_SEED_START", "0"))
ONLY_SEED = os.environ.get("CTX_SEARCH_SEED")
CASES = int(os.environ.get("CTX_SEARCH_CASES", "24"))
JOBS = int(os.environ.get("CTX_SEARCH_JOBS", "2"))
TIME_BUDGET_S = float(os.environ.get("CTX_SEARCH_TIME_BUDGET", "100"))
SHRINK_MAX = int(os.environ.get("CTX_SEARCH_SHRINK", "3"))
SHRINK_BUDGET_S = float(os.environ.get("CTX_SEARCH_SHRINK_BUDGET", "30"))
VERBOSE = bool(os.environ.get("CTX_SEARCH_VERBOSE"))
DUMP_DIR = os.environ.get("CTX_SEARCH_DUMP")
STRICT = bool(os.environ.get("CTX_STRICT"))
TIMEOUT_S = 60


def find_oracle(env_name, default):
    p = os.environ.get(env_name) or default
    return p if p and os.path.exists(p) and os.access(p, os.X_OK) else None


RG13 = find_oracle("RG13", "/usr/bin/rg")
RG14 = find_oracle("RG14", os.path.expanduser("~/.cache/ctxsearch/rg14/rg"))


def version_of(binary):
    try:
        out = subprocess.run([binary, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=30).stdout
    except OSError:
        return ""
    return out.decode(errors="replace").splitlines()[0] if out else ""


# ----------------------------------------------------------------------------------------------
# Tree generation
# ----------------------------------------------------------------------------------------------

KELVIN = "\u212a"  # K, folds to k
LONG_S = "\u017f"  # ſ, folds to s

COMMON_WORDS = [
    "foo", "foo", "bar", "bar", "baz", "Foo", "FOO", "foobar", "foo_bar", "barfoo", "qux", "a.b",
    "axb", "aab", "a", "aa", "x", "y", "123", "4.5", "foo()", "foo.bar", "-foo-", "#include",
    "def", "fn", "let", "return", "int", "main", "{", "}", "//", "=", "ss", "SS",
    "αβγ", "Ωμέγα", "ελληνικά", "ΣΟΦΙΑ", "σοφία", "привет", "Мир", "мир", "中文", "日本語",
    "Straße", "STRASSE", "é", "naïve", "über",
]
# Characters where Unicode \\w definitions differ (Rust: Alphabetic, marks, Nd, Pc, Join_Control;
# PCRE2: letters, all numbers, `_`), only in "wordy" files.
WORDY_WORDS = ["x²", "H₂O", "½", "e\u0301t\u00e9", "a‿b", "Ⓐ", "a\u200db", "Ⅻ", "٣", "foo²",
               # \s: U+180E and U+200B are not White_Space, U+00A0, U+2003, U+0085 are
               "a\u180eb", "a\u200bb", "foo\u00a0bar", "\u2003", "x\u0085y", "Ꭰ"]
# Unicode simple case-folding variants of ASCII letters, only in "fold" files.
FOLD_WORDS = [KELVIN, LONG_S, KELVIN + "elvin", "me" + LONG_S + LONG_S, "ǅ"]
INVALID = [b"\xff", b"\xc3", b"\xe2\x82", b"\x80", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf5"]
SEPS = [" ", " ", " ", " ", "\t", ", ", "  ", ".", "", "(", ")", ": "]


def gen_word(rng, invalid_rate, fold_rate=0.0, wordy_rate=0.0):
    r = rng.random()
    if r < fold_rate:
        w = rng.choice(FOLD_WORDS).encode()
    elif r < fold_rate + wordy_rate:
        w = rng.choice(WORDY_WORDS).encode()
    else:
        w = rng.choice(COMMON_WORDS).encode()
    if rng.random() < invalid_rate:
        bad = rng.choice(INVALID)
        w = rng.choice([bad + w, w + bad, w[:1] + bad + w[1:], bad])
    return w


def gen_line(rng, invalid_rate=0.0, max_words=8, fold_rate=0.0, wordy_rate=0.0):
    r = rng.random()
    if r < 0.07:
        return b""
    if r < 0.1:
        return rng.choice([b" ", b"\t", b"  "])
    parts = []
    if rng.random() < 0.15:
        parts.append(rng.choice([b" ", b"    ", b"\t"]))
    for i in range(rng.randint(1, max_words)):
        if i:
            parts.append(rng.choice(SEPS).encode())
        parts.append(gen_word(rng, invalid_rate, fold_rate, wordy_rate))
    if rng.random() < 0.05:
        parts.append(b" ")
    return b"".join(parts)


def gen_lines(rng, n, invalid_rate=0.0):
    return [gen_line(rng, invalid_rate) for _ in range(n)]


def join(lines, eol=b"\n", trailing=True):
    body = eol.join(lines)
    return body + eol if trailing and lines else body


def gen_text(rng, invalid_rate=0.0):
    return join(gen_lines(rng, rng.randint(1, 25), invalid_rate))


def gen_long_line_file(rng):
    lines = gen_lines(rng, rng.randint(0, 6))
    words = []
    size = 0
    target = rng.choice([3000, 20000, 70000])
    while size < target:
        w = gen_word(rng, 0.0)
        words.append(w)
        size += len(w) + 1
    lines.insert(rng.randint(0, len(lines)), b" ".join(words))
    return join(lines)


def gen_binary_early(rng):
    lines = gen_lines(rng, rng.randint(2, 12))
    k = rng.randint(0, min(2, len(lines) - 1))
    line = lines[k]
    cut = rng.randint(0, len(line))
    lines[k] = line[:cut] + b"\x00" + line[cut:]
    return join(lines)


def gen_binary_late(rng):
    before = []
    size = 0
    target = rng.choice([70000, 140000])
    while size < target:
        ln = gen_line(rng)
        before.append(ln)
        size += len(ln) + 1
    after = gen_lines(rng, rng.randint(1, 6))
    return join(before) + b"bin\x00ary " + gen_line(rng) + b"\n" + join(after)


# Legacy encodings for the -E cases (Python's codecs make the test data; rg 14 is the oracle).
LEGACY_CODECS = ["latin-1", "cp1252", "shift_jis", "gbk", "euc_kr", "big5", "koi8_r",
                 "utf-16-le", "utf-16-be", "euc_jp", "iso2022_jp"]
ENCODING_LABELS = ["latin1", "windows-1252", "shift_jis", "gbk", "gb18030", "euc-kr", "big5",
                   "koi8-r", "utf-16le", "utf-16be", "euc-jp", "iso-2022-jp", "utf-8", "none",
                   "auto", "x-user-defined"]


def gen_legacy(rng):
    """Text (with its Greek, Cyrillic, CJK words) in a legacy encoding, '?' where it has none."""
    text = gen_text(rng).decode("utf-8", errors="replace")
    return text.encode(rng.choice(LEGACY_CODECS), errors="replace")


def gen_utf16_bom(rng):
    text = gen_text(rng).decode("utf-8", errors="replace")
    if rng.random() < 0.5:
        return b"\xff\xfe" + text.encode("utf-16-le")
    return b"\xfe\xff" + text.encode("utf-16-be")


def gen_nul_records(rng):
    """NUL-separated records (--null-data's lines), some holding line feeds, empty ones too;
    the last NUL sometimes missing."""
    records = []
    for _ in range(rng.randint(1, 12)):
        records.append(b"\n".join(gen_line(rng) for _ in range(rng.choice([0, 1, 1, 1, 2, 3]))))
    return join(records, b"\x00", trailing=rng.random() < 0.7)


FILE_KINDS = [
    # (kind, weight, generator)
    ("text", 10, lambda rng: gen_text(rng)),
    ("crlf", 2, lambda rng: join(gen_lines(rng, rng.randint(1, 12)), b"\r\n")),
    ("noeol", 2, lambda rng: join(gen_lines(rng, rng.randint(1, 8)), trailing=False)),
    ("empty", 1, lambda rng: b""),
    ("newline", 1, lambda rng: rng.choice([b"\n", b"\n\n", b"\r\n"])),
    ("long", 1, gen_long_line_file),
    ("invalid", 2, lambda rng: gen_text(rng, invalid_rate=0.3)),
    ("bom", 1, lambda rng: b"\xef\xbb\xbf" + gen_text(rng)),
    ("fold", 1, lambda rng: join([gen_line(rng, fold_rate=0.2)
                                  for _ in range(rng.randint(1, 10))])),
    ("wordy", 1, lambda rng: join([gen_line(rng, wordy_rate=0.25)
                                   for _ in range(rng.randint(1, 10))])),
    ("bin-early", 1, gen_binary_early),
    ("bin-late", 1, gen_binary_late),
    ("legacy", 2, gen_legacy),
    ("utf16", 1, gen_utf16_bom),
    ("nul-records", 2, gen_nul_records),
]

NAMES = [
    "main.c", "util.h", "lib.rs", "mod.rs", "app.py", "README.md", "notes.txt", "data.json",
    "Makefile", "script.sh", "a b.txt", "x.txt", "y.py", "z.rs", "blob.bin", "log",
]
DIRS = ["", "", "src", "src/util", "docs", "data", "tests"]


class Tree:
    def __init__(self, files):
        self.files = dict(files)  # relative path -> bytes

    def clone(self):
        return Tree(self.files)

    def binary_files(self):
        return [p for p, d in self.files.items() if b"\x00" in d]

    def dirs(self):
        out = set()
        for p in self.files:
            parts = p.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                out.add("/".join(parts[:i]))
        return sorted(out)

    def describe(self, limit=600):
        out = []
        for p in sorted(self.files):
            d = self.files[p]
            if len(d) <= limit:
                out.append("  %s (%d bytes): %r" % (p, len(d), d))
            else:
                out.append("  %s (%d bytes): %r ... %r"
                           % (p, len(d), d[:limit // 2], d[-limit // 2:]))
        return "files:\n" + "\n".join(out) if out else "files: (none)"


def gen_tree(seed):
    rng = random.Random(seed)
    files = {}
    n = rng.randint(4, 12)
    kinds, weights = zip(*[(k, w) for k, w, _ in FILE_KINDS])
    gens = {k: g for k, _, g in FILE_KINDS}
    # At least one plain text file; the rest drawn by weight.
    chosen = ["text"] + rng.choices(kinds, weights, k=n - 1)
    for kind in chosen:
        for _ in range(10):
            d = rng.choice(DIRS)
            name = rng.choice(NAMES)
            path = (d + "/" if d else "") + name
            if path not in files and not any(p.startswith(path + "/") for p in files):
                break
        files[path] = gens[kind](rng)
    return Tree(files)


# ----------------------------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------------------------

# Patterns in the syntax both engines share (Rust regex and PCRE2).
PATTERNS = [
    # literals
    "foo", "foo", "Foo", "bar", "foobar", "foo bar", "qux", "αβγ", "привет", "Мир", "中文",
    "Straße", "ss", "é", "x", "123", "k", "s", "int main",
    # a literal dot, escaped or not
    "a.b", "a\\.b", "foo.bar", "4.5", "foo()",
    # alternations
    "foo|bar", "foo|αβγ", "ba(r|z)", "qux|中文|мир", "(foo|bar)baz", "FOO|x",
    # groups for -r: a named one, an optional one that may not take part
    "(?P<w>fo+)|bar", "(a)?b(c)",
    # classes
    "[fb]oo", "[^a-z ]+", "[0-9]+", "[[:upper:]]+", "[α-ω]+", "[A-Z][a-z]+", "\\d+", "\\s+$",
    "[ks]", "[A-Z]+",
    # \w, \b
    "\\Wfoo", "\\Sfoo", "\\p{Greek}|foo", "\\w+", "\\bfoo\\b", "\\bbar", "foo\\b",
    "\\w+\\.\\w+", "\\W+", "-foo-", "\\bx\\b",
    # Unicode classes, Rust's property names, nested classes and set operations
    "\\p{Greek}", "\\p{Greek}+", "\\p{Cyrillic}+", "\\p{Han}", "\\p{Lu}", "\\pL+",
    "\\p{Letter}+", "\\p{gc=Lu}", "\\p{Is_Greek}", "\\S+", "[^\\S ]", "\\s\\S", "\\d+",
    "[\\w--\\d]+", "[a-z&&[^aeiou]]+", "[^\\W_]+", "[a[\\W]]", "[\\p{Greek}~~α-γ]",
    # \p{..} from Unicode 15 tables (folded under -i / (?i) / -S), Age, break properties, scx
    "\\P{Lu}", "\\p{Ll}+", "[^\\p{Lu}\\d]+", "(?i)\\p{Lu}+", "(?i:\\P{Greek})", "\\p{scx=Greek}",
    "\\p{Age=6.0}+", "\\P{Age=1.1}", "\\p{gcb=Extend}", "\\p{wb=ALetter}+", "\\p{sb=Upper}",
    "[\\p{Greek}--\\p{Lowercase}]+", "\\p{Age=15.0}|k", "[\\pL&&\\p{ASCII}]+", "\\p{lu}x",
    # inline flags
    "(?i)foo", "(?i)привет", "(?i)straße", "(?i)σοφία", "(?i)k",
    # anchors
    "^foo", "bar$", "^$", "^", "$", "^[a-z]+$", "^#include", "^\\s",
    # anchors where multi-line mode is off: a line's ends (the buffer's under -U)
    "(?-m)^foo", "(?-m)bar$", "(?-m:^\\w+)|x", "(?-m)^$", "(?i-m)^F",
    # empty-matching
    "a*", "x?", "(foo)*", "",
    # repetition and dots
    "fo+", "o{2}", "a.*b", "foo.*bar", ".", ".+", "f.o",
    # Unicode mode off (bytes), alone and mixed with Unicode pieces
    "(?-u)\\xff", "(?-u:[^a-z ])+", "(?-u).", "(?-u)\\w+", "(?-u:\\b)foo", "(?i-u)k",
    "(?-u)[\\x80-\\xff]+", "\\w+(?-u:\\W)", "(?-u)(?u:\\w+)", "(?-u:\\xce\\xb1)", "(?-u)\\B.",
    "(?i-u)strasse|ß", "(?-u)[[:^alpha:]]+", "é(?-u:\\xc3)", "(?-u)\\bfoo\\b|\\p{Greek}+",
    "(?i)σ(?-u:.)", "(?-u)\\S+", "(?-u)f.o|.\\xaf",
]

# Patterns for -U (multiline): line feeds, classes and anchors that reach across lines. Without -U
# a literal line feed is an error in both (exit 2, "the literal "\n" is not allowed").
ML_PATTERNS = [
    "foo\\nbar", "o\\n", "\\n\\n", "foo\\s+bar", "[a-z]\\n[a-z]", "a.*\\n.*b", "\\nfoo",
    "bar\\n?", "(?s)foo.bar", "foo.{0,30}bar", "x\\n|y", "\\w+\\n\\w+", "^\\s*$\\n",
    "[^x]{5}", "[\\s\\S]{3}", "}\\n", "\\n$", "^foo", "bar$", "\\n\\S", "[^a-z]+", "\\s+$",
    "α\\n|中文", "(?m)^$", "(?-m)^foo", "(?-m)\\n$", "bar$(?-m:\\s+$)", "(?-u)\\n[^a]",
    "(?s-u).\\n",
]

OUTPUT_MODES = ["lines"] * 8 + ["-c", "-l", "--files-without-match", "--count-matches", "-o", "-o"]

BOOL_FLAGS = [("-n", 0.35), ("-i", 0.2), ("-w", 0.15), ("-x", 0.07), ("-F", 0.12), ("-v", 0.12),
              ("-S", 0.1), ("-s", 0.04), ("-P", 0.1), ("--column", 0.12), ("-b", 0.1), ("-H", 0.1),
              ("-I", 0.08), ("--null", 0.08), ("--heading", 0.04), ("-a", 0.07), ("-q", 0.04),
              ("--binary", 0.05), ("--passthru", 0.04), ("--stop-on-nonmatch", 0.04),
              ("--include-zero", 0.04), ("--crlf", 0.1), ("--no-unicode", 0.08),
              ("--null-data", 0.08)]

# Separator flags (values with rg's escapes: \t, \x2D, a lone backslash).
SEPARATOR_FLAGS = ["--context-separator=@@", "--context-separator=", "--no-context-separator",
                   "--context-separator=\\x2D\\t", "--field-match-separator=\\t",
                   "--field-match-separator=::", "--field-context-separator=|~",
                   "--path-separator=\\\\", "--path-separator=+"]

# -r/--replace texts: literal text, the empty text, the whole match, numbered and named groups
# (also ones the pattern lacks: they expand to nothing), braces, an escaped dollar.
REPLACEMENTS = ["X", "", "[$0]", "<$1>", "${1}_", "$2", "$$", "$w|", "${w}", "é$1é"]


class Case:
    def __init__(self, tree, flags, patterns, how, paths):
        self.tree = tree
        self.flags = list(flags)  # "-m N" kept as two items
        self.patterns = list(patterns)
        self.how = how  # "pos": one positional pattern; "e": -e each; "f": -f FILE
        self.paths = list(paths)

    def copy(self, **kw):
        c = Case(self.tree, self.flags, self.patterns, self.how, self.paths)
        for k, v in kw.items():
            setattr(c, k, v)
        return c

    def args(self, pattern_file):
        a = ["--color", "never", "--sort", "path"] + self.flags
        if self.how == "f":
            a += ["-f", pattern_file]
        elif self.how == "e" or (self.patterns and self.patterns[0].startswith("-")):
            for p in self.patterns:
                a += ["-e", p]
        else:
            a.append(self.patterns[0])
        return a + self.paths

    def command(self, pattern_file="PATTERNS"):
        return " ".join(["ctxsearch"] + [shell_quote(x) for x in self.args(pattern_file)])

    def describe(self):
        s = self.command()
        if self.how == "f":
            s += "\n  PATTERNS file: %r" % pattern_file_bytes(self.patterns)
        return s

    def has(self, *flags):
        return any(f in self.flags for f in flags)

    def searched_files(self):
        """Files the command reads (explicit ones and those below directory arguments)."""
        roots = self.paths or [""]
        out = []
        for p in self.tree.files:
            for r in roots:
                r = r.rstrip("/")
                if r in ("", ".") or p == r or p.startswith(r + "/"):
                    out.append(p)
                    break
        return out

    def explicit_files(self):
        return [p for p in self.paths if p in self.tree.files]

    def walked_files(self):
        ex = set(self.explicit_files())
        return [p for p in self.searched_files() if p not in ex]


def shell_quote(s):
    return s if re.fullmatch(r"[A-Za-z0-9_./:=-]+", s) else "'" + s.replace("'", "'\\''") + "'"


def pattern_file_bytes(patterns):
    return "".join(p + "\n" for p in patterns).encode()


# --colors specs (with --color=always): every target, kinds, color forms, styles, none.
COLOR_SPECS = ["match:fg:blue", "match:none", "match:style:nobold", "match:bg:1,2,3",
               "path:fg:0x10", "path:none", "line:style:underline", "line:fg:white",
               "column:bg:green", "column:style:intense", "match:style:intense"]


def gen_case(rng, tree):
    flags = []
    mode = rng.choice(OUTPUT_MODES)
    if mode != "lines":
        flags.append(mode)
    for f, p in BOOL_FLAGS:
        if rng.random() < p:
            flags.append(f)
    # Flags with values are single items (-M20, -A1) so shrinking drops them whole.
    multiline = rng.random() < 0.25
    if multiline:
        flags.append("-U")
        if rng.random() < 0.3:
            flags.append("--multiline-dotall")
    if rng.random() < 0.12:
        flags.append("-M%d" % rng.choice([4, 10, 20, 60]))
        if rng.random() < 0.5:
            flags.append("--max-columns-preview")
    if rng.random() < 0.1:
        flags.append("--trim")
    if rng.random() < 0.12:
        flags.append("-%s%d" % (rng.choice("ABC"), rng.choice([0, 1, 2])))
    if rng.random() < 0.1:
        flags.append(rng.choice(["--json", "--json", "--vimgrep"]))
    if rng.random() < 0.04:
        flags.append("--stats")
    if rng.random() < 0.12:
        flags.append("-E" + rng.choice(ENCODING_LABELS))
    if rng.random() < 0.08:
        flags.append(rng.choice(SEPARATOR_FLAGS))
    if rng.random() < 0.1:
        flags.append("--replace=" + rng.choice(REPLACEMENTS))
    if rng.random() < 0.12:
        flags += ["-m", str(rng.choice([0, 1, 1, 2, 3]))]
    if rng.random() < 0.08:  # after the leading --color never, so it wins
        flags.append("--color=always")
        for _ in range(rng.choice([0, 1, 1, 2])):
            flags.append("--colors=" + rng.choice(COLOR_SPECS))
    rng.shuffle(flags)
    # keep "-m N" adjacent after shuffling
    if "-m" in flags:
        n = [f for f in flags if f.isdigit()][0]
        flags = [f for f in flags if f not in ("-m", n)] + ["-m", n]
    r = rng.random()
    # Under -U most patterns can span lines; without it a few are (an error in both).
    pool = ML_PATTERNS if rng.random() < (0.65 if multiline else 0.03) else PATTERNS
    if r < 0.7:
        how, patterns = "pos", [rng.choice(pool)]
    elif r < 0.88:
        how, patterns = "e", [rng.choice(pool) for _ in range(rng.randint(2, 3))]
    else:
        how, patterns = "f", [rng.choice(pool) for _ in range(rng.randint(1, 3))]
    # --vimgrep prints a whole line per match: with an empty-matching pattern that is a line per
    # byte, gigabytes for the long-line files (both tools print them; the test cannot hold them).
    if "--vimgrep" in flags and any(can_match_empty(p) for p in patterns):
        flags[flags.index("--vimgrep")] = "--json"
    files = sorted(tree.files)
    dirs = tree.dirs()
    r = rng.random()
    if r < 0.35 or not files:
        paths = []
    elif r < 0.45:
        paths = ["."]
    elif r < 0.58 and dirs:
        paths = [rng.choice(dirs)]
    elif r < 0.75:
        paths = [rng.choice(files)]
    elif r < 0.82 and tree.binary_files():
        paths = [rng.choice(tree.binary_files())]
    elif r < 0.92:
        paths = sorted(set(rng.sample(dirs + files, min(2, len(dirs + files)))))
    else:
        paths = ["nope.txt"] + ([rng.choice(dirs)] if dirs else [rng.choice(files)])
    return Case(tree, flags, patterns, how, paths)


# ----------------------------------------------------------------------------------------------
# Running
# ----------------------------------------------------------------------------------------------

class Workspace:
    """A temp dir holding root/ (the tree) and the pattern file outside it."""

    def __init__(self, tree):
        self.tmp = tempfile.mkdtemp(prefix="ctxsearch-diff-")
        self.root = os.path.join(self.tmp, "root")
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(self.root)
        os.makedirs(self.home)
        self.pattern_file = os.path.join(self.tmp, "patterns.txt")
        for p, d in tree.files.items():
            full = os.path.join(self.root, p)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(d)
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith("GIT_") and k != "RIPGREP_CONFIG_PATH"}
        self.env.update({"HOME": self.home, "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
                         "LC_ALL": "C"})

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


TIMING_RES = [
    # --json: end messages {"secs":..,"nanos":..,"human":".."}, the summary's sorted keys
    (re.compile(rb'"secs":\d+,"nanos":\d+,"human":"[0-9.]+s"'), b'"secs":S,"nanos":N,"human":"H"'),
    (re.compile(rb'"human":"[0-9.]+s","nanos":\d+,"secs":\d+'), b'"human":"H","nanos":N,"secs":S'),
    # --stats: the two timing lines
    (re.compile(rb'(?m)^\d+\.\d{6} seconds( spent searching)?$'), rb'T seconds\1'),
]


def masked_timings(out):
    """`out` with the numbers that are durations (only those) masked: --json's elapsed fields,
    --stats' seconds lines."""
    for rx, repl in TIMING_RES:
        out = rx.sub(repl, out)
    return out


class Outcome:
    def __init__(self, rc, stdout, stderr):
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr

    def key(self):
        return (self.rc, masked_timings(self.stdout), bool(self.stderr.strip()))

    def __eq__(self, other):
        return self.key() == other.key()


def run_binary(binary, case, ws):
    with open(ws.pattern_file, "wb") as f:
        f.write(pattern_file_bytes(case.patterns))
    try:
        p = subprocess.run([binary] + case.args(ws.pattern_file), cwd=ws.root, env=ws.env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=TIMEOUT_S)
        return Outcome(p.returncode, p.stdout, p.stderr)
    except subprocess.TimeoutExpired:
        return Outcome(-999, b"", b"timeout after %ds" % TIMEOUT_S)
    except OSError as e:  # e.g. the binary is being relinked: a failure, not a crash of the test
        return Outcome(-998, b"", ("cannot run %s: %s" % (binary, e)).encode())


def run_pair(oracle, subject, case):
    """(oracle's outcome, subject's outcome) on one fresh copy of the case's tree."""
    ws = Workspace(case.tree)
    try:
        return run_binary(oracle, case, ws), run_binary(subject, case, ws)
    finally:
        ws.close()


# ----------------------------------------------------------------------------------------------
# Known rg 13 bugs (rg 14 is the reference) and open ctxsearch bugs
# ----------------------------------------------------------------------------------------------

def has_invalid_utf8(data):
    try:
        data.decode("utf-8")
        return False
    except UnicodeDecodeError:
        return True


def searches_invalid_utf8(case):
    return any(has_invalid_utf8(case.tree.files[p]) for p in case.searched_files())


def rg_pcre2_smart_caseless(patterns):
    """rg 14's smart case under -P: any uppercase character not right after a backslash."""
    for p in patterns:
        i = 0
        while i < len(p):
            if p[i] == "\\":
                i += 2
                continue
            if p[i].isupper():
                return False
            i += 1
    return True


def rg_smart_caseless(patterns):
    """rg 14's smart case without -P: uppercase literal characters (escapes such as \\W or
    \\p{Greek} and POSIX class names do not count)."""
    for p in patterns:
        text = re.sub(r"\\[pP](\{[^}]*\}|.)", "", p)
        text = re.sub(r"\[:[a-z]+:\]", "", text)
        text = re.sub(r"\\.", "", text)
        if any(ch.isupper() for ch in text):
            return False
    return True


def case_mode(case):
    """The last of -i, -s, -S wins (as in rg): "-i", "-s", "-S" or None."""
    modes = [f for f in case.flags if f in ("-i", "-s", "-S")]
    return modes[-1] if modes else None


def without_smart_case(case, caseless):
    flags = [f for f in case.flags if f not in ("-i", "-s", "-S")]
    return case.copy(flags=flags + (["-i"] if caseless else []))


def searches_binary(case):
    return any(b"\x00" in case.tree.files[p] for p in case.searched_files())


SUMMARY_MODES = ("-c", "-l", "--files-without-match", "--count-matches")

KNOWN_RG13_BUGS = [
    ("stop-on-nonmatch",
     "--stop-on-nonmatch is new in rg 14: rg 13 rejects it (exit 2)",
     lambda c: c.has("--stop-on-nonmatch")),
    ("max-columns-trim",
     "--trim with -M: rg 13 measures the line before trimming (`--trim -M4` omits ` abcd`), rg 14 "
     "after (prints `abcd`)",
     lambda c: c.has("--trim") and any(f.startswith("-M") for f in c.flags)),
    ("json-with-summary",
     "--json with -c, -l, --count-matches or --files-without-match: rg 13 rejects the pair "
     "(exit 2); rg 14 lets the last of them choose the output",
     lambda c: c.has("--json") and c.has(*SUMMARY_MODES)),
    ("word-regexp",
     "-w: rg 13 wraps the pattern as `(?:^|\\W)(PAT)(?:$|\\W)` and reports the inner group, "
     "so matches that touch a non-word character are found at other offsets, cut (`-w -o -i "
     "'foo|o{2}'` prints `OO` for `FOO`), missed, and --column differs; rg 14 uses half word "
     "boundaries `(?<!\\w)(?:PAT)(?!\\w)`",
     lambda c: c.has("-w")),
    ("inline-flag-leak",
     "several patterns: rg 13 joins them as `P1|P2` without groups, so an inline `(?i)` in one "
     "applies to the patterns after it (`-e '(?i)k' -e s` matches `S`); rg 14 groups each",
     lambda c: len(c.patterns) > 1 and any("(?" in p for p in c.patterns[:-1])),
    ("match-iteration-context",
     "-o / --count-matches: after a match rg 13 runs the regex again on the rest of the line as a "
     "new haystack, so `^` and `\\b` see a false start: `-o -e '\\bfoo\\b' -e '[α-ω]+'` on "
     "`αfoo` also prints `foo`",
     lambda c: c.has("-o", "--count-matches") and any(
         "^" in p or "\\b" in p or "\\B" in p for p in c.patterns)),
    ("pcre2-invalid-utf8",
     "-P on a file with invalid UTF-8: rg 13 (PCRE2 10.32, no PCRE2_MATCH_INVALID_UTF) transcodes "
     "the file and prints U+FFFD for each bad byte (and may crash: SIGSEGV with --count-matches "
     "on a lone `\\x80`); rg 14 prints the bytes as they are",
     lambda c: c.has("-P") and searches_invalid_utf8(c)),
    ("pcre2-binary",
     "-P on a binary file: rg 13 stops reporting lines at a different point",
     lambda c: c.has("-P") and searches_binary(c)),
    ("json-quiet",
     "--json with -q: rg 13 prints nothing; rg 14 prints the closing summary message, its "
     "statistics counting every file searched",
     lambda c: c.has("--json") and c.has("-q")),
    ("max-count-zero-pattern",
     "-m 0: rg 14 exits 1 before it compiles the pattern, so a pattern that is an error (a line "
     "feed without -U) is none; rg 13 reports it (exit 2)",
     lambda c: "-m" in c.flags and c.flags[c.flags.index("-m") + 1] == "0"),
    ("null-data",
     "--null-data: rg 13 matches lines differently (`--null-data '(?m)^$'` finds no empty line "
     "where rg 14 finds each; its regex crate handles the NUL line terminator otherwise)",
     lambda c: c.has("--null-data")),
    ("multiline-replace",
     "-U with --replace: rg 13 prints the lines of a match that spans lines again after the "
     "replaced text, or bytes of the line after it (`-U -r '[$0]' '^\\s*$\\n'` prints `]n`); "
     "rg 14 prints the replaced lines once",
     lambda c: c.has("-U") and any(f.startswith("--replace") for f in c.flags)),
]


def known_rg13_bugs(case):
    return [name for name, _, pred in KNOWN_RG13_BUGS if pred(case)]


def map_files(case, fn):
    t = case.tree.clone()
    t.files = {p: fn(d) for p, d in t.files.items()}
    return case.copy(tree=t)


def drop_flags(case, *names):
    return case.copy(flags=[f for f in case.flags if f not in names])


def has_empty_line(data):
    return data.startswith(b"\n") or b"\n\n" in data


def can_match_empty(pattern):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "possible nested set" for [[:upper:]]
        try:
            return re.fullmatch(pattern, "") is not None
        except re.error:
            return True


# Open ctxsearch-vs-rg 14 disagreements: (name, description, applies(case), ablate(case) -> the
# case without what the bug needs, or None when nothing is left to compare).
def line_starts_with_continuation(case):
    return any(re.search(rb"\n[\x80-\xbf]", case.tree.files[p])
               for p in case.searched_files())


def uses_word_boundary(case):
    return case.has("-w") or any("\\b" in p or "\\B" in p for p in case.patterns)


OPEN_BUGS = [
    ("null-data-unmultiline-anchors",
     "--null-data without -U, ^ or $ where the pattern turned multi-line mode off ((?-m)), \\A, "
     "\\z: rg's matcher then names no line terminator and its fast line search runs the regex "
     "over its buffer, confirming lines alone only where grep-regex extracts inner literals. "
     "ctxsearch follows the buffer where every pattern ends at the haystack's end (`(?-m)bar$` "
     "matches only a last record without NUL) or some pattern matches empty, and confirms lines "
     "alone otherwise, where rg still runs over the buffer when regex-automata accelerates the "
     "set (`(?-m)bar$|foo`: a literal prefilter) or no good literal is left (`(?-m:^\\w+)|x` "
     "finds `foo` in `foo\\0\\0bar  \\0` and no later record), or where `.` or a class could "
     "match the NUL",
     lambda c: c.has("--null-data") and not (c.has("-U") or c.has("--multiline"))
     and not c.has("-F") and any("-m)" in p or "-m:" in p for p in c.patterns),
     lambda c: drop_flags(c, "--null-data")),
    ("roll-buffer-carry-over",
     "rg's roll buffer grows (by thirds of 3x) for a line longer than it holds and keeps that "
     "capacity for the later files of the same thread (every file under --sort path): a NUL past "
     "64 KiB in a later file then comes in with its first read, where ctxsearch (a fresh buffer "
     "per file) finds it a read later (binary detection, bytes searched). Left open: ctxsearch "
     "searches files in parallel even under --sort (an ordered merge), so a file's capacity "
     "would need the longest line of every file before it",
     lambda c: late_nul_after_long_file(c),
     lambda c: map_files(c, lambda d: d[:65536] + d[65536:].replace(b"\0", b" "))),
    ("pcre2-10.42-word-marks",
     "-P with \\w \\W \\b \\B next to a nonspacing mark (Mn) or connector punctuation (Pc) "
     "other than '_': Debian's PCRE2 10.42 counts neither as a word character, rg 14's PCRE2 "
     "10.43 counts both (`rg -P -o '\\W+'` on ` \\u07ac` prints the space alone); -P -w "
     "follows 10.43, a \\w written in a -P pattern does not",
     lambda c: c.has("-P") and any(re.search(r"\\[wWbB]", p) for p in c.patterns)
     and any(has_word_mark(as_searched(c, c.tree.files[p])) for p in c.searched_files()),
     lambda c: map_files(c, lambda d: in_codec_of(c, d, strip_word_marks))),
    ("word-boundary-line-start-continuation",
     "-w, \\b, \\B where a line starts with UTF-8 continuation bytes (0x80-0xBF): Rust's "
     "decode_last reads the line terminator before them as the character before the position "
     "after them. rg 14 does so only where its regex runs over the whole buffer (`-w '\\w'` on "
     "`\\n\\xafx` matches line 2), not where it confirms a candidate line alone (`-w x`: no "
     "match); ctxsearch always confirms lines alone (and finds -o spans over the buffer, as rg's "
     "printer does). Which path rg takes is grep-regex's inner-literal verdict (literal.rs: "
     "regex-automata's is_accelerated, the literal sequence's quality), and over the buffer the "
     "line terminator is seen only after the line where the search stands",
     lambda c: uses_word_boundary(c) and line_starts_with_continuation(c),
     lambda c: map_files(c, lambda d: re.sub(rb"\n[\x80-\xbf]+", b"\n?", d))),
]


# ripgrep behaviours ctxsearch deliberately does not follow (bugs in rg 13 and rg 14 alike);
# handled like OPEN_BUGS, but nothing to fix.
RG_QUIRKS = [
    ("rg-unmultiline-anchor-stop-on-nonmatch",
     "--stop-on-nonmatch -v with a pattern that turned multi-line mode off ((?-m)): rg stops at "
     "the first line the pattern matches after a printed one, where with the same pattern "
     "without (?-m) it goes on (`rg --stop-on-nonmatch -v 'bar$'` on `a\\nbar\\nx\\n` prints "
     "`a` and `x`, with '(?-m)bar$' only `a`); ctxsearch goes on for both",
     lambda c: c.has("--stop-on-nonmatch") and c.has("-v")
     and not (c.has("-U") or c.has("--multiline")) and not c.has("-F")
     and any("-m)" in p or "-m:" in p for p in c.patterns),
     lambda c: drop_flags(c, "--stop-on-nonmatch")),
    ("rg-unmultiline-anchor-submatches",
     "line by line, where a pattern turned multi-line mode off ((?-m)^, (?-m)$), rg reports each "
     "line that matches alone but finds its submatches with the rest of the buffer around it, "
     "where such anchors match only at the file's start and end: `rg --column '(?-m)^b'` on "
     "`a\\nb\\n` prints `2:b` (no column), --stats counts no match, -o prints nothing, colors "
     "nothing; ctxsearch gives the match the line has",
     lambda c: not (c.has("-U") or c.has("--multiline")) and not c.has("-F")
     and any("-m)" in p or "-m:" in p for p in c.patterns)
     and (c.has("--column", "-o", "--count-matches", "--stats", "--vimgrep", "--json",
                "--color=always")
          or any(f.startswith("--replace") for f in c.flags)),
     lambda c: drop_flags(c, "--column", "-o", "--count-matches", "--stats", "--vimgrep", "--json",
                          "--color=always",
                          *[f for f in c.flags if f.startswith("--replace")])),
    ("rg-crlf-slow-lines-keep-lone-lf",
     "--crlf without -U where rg searches line by line (its slow path: --passthru, "
     "--stop-on-nonmatch after the first match): grep-searcher's lines::without_terminator strips "
     "only a whole CRLF, so a line ending in a lone LF keeps it in the haystack and an empty match "
     "after it counts (`rg --crlf --passthru '^$'` on `\\n.\\n` prints `2:.` as a match; rg 13 "
     "the same; without --crlf, or where the line ends in a CRLF, it does not); ctxsearch searches "
     "the line without its LF (found on seed 1001)",
     lambda c: c.has("--crlf") and not (c.has("-U") or c.has("--multiline"))
     and c.has("--passthru", "--stop-on-nonmatch")
     and any(can_match_empty(p) for p in c.patterns)
     and any(re.search(rb"(?<!\r)\n", c.tree.files[p]) for p in c.searched_files()),
     lambda c: map_files(c, lambda d: re.sub(rb"(?<!\r)\n", b"\r\n", d))),
    ("rg-pcre2-empty-line-match",
     "rg 13 and 14 with -P find no match in an empty line (other than one at the very start of "
     "the file) for --column, -o and --count-matches, though the line is reported: "
     "`rg --column -P '^$'` on `\\n\\n\\n` prints `1:1:`, `2:`, `3:`; `--count-matches -P '^$'` on "
     "`a\\n\\n\\nb\\n` prints 0 (without -P: 2, as ctxsearch); -r leaves such a line as it is, --json gives it no "
     "submatches",
     lambda c: c.has("-P") and (c.has("--column", "-o", "--count-matches", "--stats", "--vimgrep",
                                      "--json")
                                or any(f.startswith("--replace") for f in c.flags))
     and any(can_match_empty(p) for p in c.patterns)
     and any(has_empty_line(c.tree.files[p]) for p in c.searched_files()),
     lambda c: drop_flags(c, "--column", "-o", "--count-matches", "--stats", "--vimgrep", "--json",
                          *[f for f in c.flags if f.startswith("--replace")])),
]


def codec_of(case, data):
    """The Python codec of what rg decodes `data` from (-E LABEL, a UTF-16 BOM), or None."""
    label = next((f[2:] for f in case.flags if f.startswith("-E") and len(f) > 2), None)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) and label != "none":
        return "utf-16"
    if label in (None, "none", "auto", "utf-8"):
        return None
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def as_searched(case, data):
    """`data` as rg searches it: decoded to UTF-8 under -E or a UTF-16 BOM."""
    codec = codec_of(case, data)
    return data if codec is None else data.decode(codec, errors="replace").encode()


def in_codec_of(case, data, fn):
    """`fn` applied to `data` as rg searches it, then encoded back (lossy where invalid)."""
    codec = codec_of(case, data)
    if codec is None:
        return fn(data)
    return fn(data.decode(codec, errors="replace").encode()).decode().encode(codec, errors="replace")


def has_word_mark(data):
    text = data.decode("utf-8", errors="ignore")
    return any(ch != "_" and unicodedata.category(ch) in ("Mn", "Pc") for ch in text)


def strip_word_marks(data):
    """`data` with every Mn/Pc character (not '_') of its valid UTF-8 replaced by '_'."""
    text = data.decode("utf-8", errors="surrogateescape")
    return "".join("_" if ch != "_" and unicodedata.category(ch) in ("Mn", "Pc") else ch
                   for ch in text).encode("utf-8", errors="surrogateescape")


def late_nul_after_long_file(case):
    """A searched file over 64 KiB before (in path order) another with a NUL past 64 KiB."""
    seen_long = False
    for p in sorted(case.searched_files()):
        data = case.tree.files[p]
        if seen_long and b"\0" in data[65536:]:
            return True
        seen_long = seen_long or len(data) > 65536
    return False


def open_bugs(case):
    return [b for b in OPEN_BUGS + RG_QUIRKS if b[2](case)]


def ablate(case, bugs):
    for b in bugs:
        case = b[3](case)
        if case is None:
            return None
    return case


# ----------------------------------------------------------------------------------------------
# Shrinking
# ----------------------------------------------------------------------------------------------

def classify(case, oracle, exp=None, got=None, ws=None):
    """("pass" | "xfail" | "fail", names of the open bugs, expected, got)."""
    if ws is None:
        exp, got = run_pair(oracle, CTX, case)
    else:
        exp = exp if exp is not None else run_binary(oracle, case, ws)
        got = got if got is not None else run_binary(CTX, case, ws)
    if got == exp:
        return "pass", [], exp, got
    # An oracle that panics gives no expected output to compare with (rg 14's JSON printer on a
    # -U match that starts in a line's terminator and ends past it: "range end index 11 out of
    # range for slice of length 8"); counted, never a pass.
    if exp.rc == 101 and b"panicked at" in exp.stderr:
        return "xfail", ["rg-panicked"], exp, got
    bugs = [] if CTX_IS_RG[0] else open_bugs(case)
    if bugs and not STRICT:
        reduced = ablate(case, bugs)
        if reduced is None:
            return "xfail", [b[0] for b in bugs], exp, got
        r_exp, r_got = run_pair(oracle, CTX, reduced)
        if r_exp == r_got:
            return "xfail", [b[0] for b in bugs], exp, got
    return "fail", [b[0] for b in bugs], exp, got


def shrink(case, oracle, deadline, subject=None):
    """Greedy delta debugging: drop files, flags, patterns, lines, then bytes, while `subject`
    (ctxsearch) still disagrees with the oracle in the same way (same differing fields)."""
    subject = subject or CTX

    def signature(exp, got):
        return (exp.rc != got.rc, exp.stdout != got.stdout,
                bool(exp.stderr.strip()) != bool(got.stderr.strip()))

    exp0, got0 = run_pair(oracle, subject, case)
    sig = signature(exp0, got0)

    def still_fails(c):
        if time.time() > deadline:
            return False
        if subject == CTX:  # must stay a failure that no open bug explains
            verdict, _, e, g = classify(c, oracle)
            return verdict == "fail" and signature(e, g) == sig
        if subject == RG13 and known_rg13_bugs(c):  # must stay unexplained
            return False
        e, g = run_pair(oracle, subject, c)
        return e != g and signature(e, g) == sig

    keep_paths = set()
    for p in case.paths:
        keep_paths.add(p)
    # files
    for p in sorted(case.tree.files):
        if p in keep_paths:
            continue
        t = case.tree.clone()
        del t.files[p]
        c = case.copy(tree=t)
        if still_fails(c):
            case = c
    # paths
    i = 0
    while len(case.paths) > 0 and i < len(case.paths):
        c = case.copy(paths=case.paths[:i] + case.paths[i + 1:])
        if still_fails(c):
            case = c
        else:
            i += 1
    # flags ("-m N" as a unit)
    i = 0
    while i < len(case.flags):
        width = 2 if case.flags[i] == "-m" else 1
        c = case.copy(flags=case.flags[:i] + case.flags[i + width:])
        if still_fails(c):
            case = c
        else:
            i += width
    # patterns
    i = 0
    while len(case.patterns) > 1 and i < len(case.patterns):
        c = case.copy(patterns=case.patterns[:i] + case.patterns[i + 1:])
        if still_fails(c):
            case = c
        else:
            i += 1
    if len(case.patterns) == 1 and case.how != "pos":
        c = case.copy(how="pos")
        if still_fails(c):
            case = c
    # lines, then bytes, per file
    for unit in ("lines", "bytes"):
        for p in sorted(case.tree.files):
            data = case.tree.files[p]
            if unit == "lines":
                parts = data.splitlines(keepends=True)
            else:
                parts = [data[i:i + 1] for i in range(len(data))] if len(data) <= 400 else None
            if not parts:
                continue
            chunk = max(1, len(parts) // 2)
            while chunk >= 1 and time.time() < deadline:
                i = 0
                while i < len(parts):
                    trial = parts[:i] + parts[i + chunk:]
                    t = case.tree.clone()
                    t.files[p] = b"".join(trial)
                    c = case.copy(tree=t)
                    if still_fails(c):
                        case, parts = c, trial
                    else:
                        i += chunk
                if chunk == 1:
                    break
                chunk //= 2
    return (case,) + run_pair(oracle, subject, case)


def show(o, limit=1500):
    out = o.stdout if len(o.stdout) <= limit else o.stdout[:limit] + b"..."
    return "rc=%d stderr=%r stdout=%r" % (o.rc, o.stderr.strip()[:300], out)


def stdout_diff(exp, got, limit=16):
    """The differing stdout lines (as reprs), unified-diff style, at most `limit` lines."""
    a = [repr(l) for l in exp.stdout.split(b"\n")]
    b = [repr(l) for l in got.stdout.split(b"\n")]
    lines = list(difflib.unified_diff(a, b, "expected", "got", n=1, lineterm=""))
    if len(lines) > limit:
        lines = lines[:limit] + ["... (%d more diff lines)" % (len(lines) - limit)]
    return "\n".join("    " + l for l in lines)


def dump_tree(tree):
    """Writes `tree`'s files under a new DUMP_DIR/case-N/ and returns that directory."""
    n = 0
    while os.path.exists(os.path.join(DUMP_DIR, "case-%d" % n)):
        n += 1
    root = os.path.join(DUMP_DIR, "case-%d" % n)
    for p, d in tree.files.items():
        full = os.path.join(root, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(d)
    os.makedirs(root, exist_ok=True)
    return root


def report(case, exp, got, oracle_name, subject_name="ctxsearch"):
    print(case.describe())
    print(case.tree.describe())
    if DUMP_DIR:
        root = dump_tree(case.tree)
        if case.how == "f":
            with open(root + ".patterns", "wb") as f:
                f.write(pattern_file_bytes(case.patterns))
        print("  files written to %s%s" % (root, " (-f file: %s.patterns)" % root
                                          if case.how == "f" else ""))
    print("  expected (%s): %s" % (oracle_name, show(exp)))
    print("  got (%s): %s" % (subject_name, show(got)))
    if exp.stdout != got.stdout and len(exp.stdout) + len(got.stdout) > 400:
        print("  stdout diff:")
        print(stdout_diff(exp, got))


# ----------------------------------------------------------------------------------------------
# Main loop
# ----------------------------------------------------------------------------------------------

class Stats:
    def __init__(self):
        self.passed = 0
        self.failed = []  # (seed, i, case, oracle_name, oracle, exp, got)
        self.xfail = {}  # bug name -> count
        self.xfail_examples = {}
        self.skipped = 0
        self.xfail_cases = 0
        self.notes = []  # (case, o13, o14)
        self.rg13_known = {}

    def add(self, o):
        self.passed += o.passed
        self.failed += o.failed
        for k, v in o.xfail.items():
            self.xfail[k] = self.xfail.get(k, 0) + v
        for k, v in o.xfail_examples.items():
            self.xfail_examples.setdefault(k, v)
        self.skipped += o.skipped
        self.xfail_cases += o.xfail_cases
        self.notes += o.notes
        for k, v in o.rg13_known.items():
            self.rg13_known[k] = self.rg13_known.get(k, 0) + v


DEADLINE = [0.0]
CTX_IS_RG = [False]


# Many patterns (-f with thousands of lines): more than PCRE2 compiles into one regex (64 KiB of
# compiled code with Debian's LINK_SIZE 2), so ctxsearch splits its combined regex into chunks;
# plain literals are decided by Hyperscan alone. Each set mixes filler identifiers that match
# nothing with the trees' words (at random places, so pattern order matters: `foo` before or
# after `foobar`), regexes with capture groups (for -r $N, numbered over all patterns) and
# patterns only k/s variants match under -i. Every flag set below runs on every many-patterns
# tree (CTX_SEARCH_MANY_TREES, default 1; 0 skips them).
MANY_TREES = int(os.environ.get("CTX_SEARCH_MANY_TREES", "1"))
MANY_COUNT = int(os.environ.get("CTX_SEARCH_MANY_COUNT", "2500"))
# The ASCII literal sets are bigger than PatternSet's kHashedLiteralsMin (5,000 pieces): the hashed
# literal matcher (engine/src/hashed_literals.hpp) decides them instead of Hyperscan.
MANY_ASCII_COUNT = int(os.environ.get("CTX_SEARCH_MANY_ASCII_COUNT", "5200"))
MANY_FLAGS = [
    ["-n"], ["-i", "-o"], ["-w", "--count-matches"], ["-x", "-i", "-n"], ["-v", "-c"],
    ["--json"], ["--color=always", "-n", "-w"], ["-r", "<$0|$1|$%d>" % (MANY_COUNT + 1), "-o"], ["-F", "-n", "-i"],
]


def many_patterns(rng, regexes):
    words = [w for w in COMMON_WORDS + FOLD_WORDS if re.fullmatch(r"[\w ]+", w)]
    out = ["ident%05d_%s" % (i, rng.choice(["q", "zz", "Qk", "sx"])) for i in range(MANY_COUNT)]
    for w in words:
        out.insert(rng.randrange(len(out) + 1), w)
    if regexes:
        for r in ["(ba)(r|z)", "(?i)(ελλ)\\w+", "(fo+)\\b", "[0-9]+\\.[0-9]+", "(?P<q>qu)x"]:
            out.insert(rng.randrange(len(out) + 1), r)
    return out


# Sets of ASCII literals only, which Hyperscan's literal API decides without PCRE2 (-w: word
# boundaries checked around each occurrence; -x: whole lines). Under -F the trees' ASCII words
# with punctuation ("-foo-", "a.b", "foo()") are literals too, so -w sees punctuation at their
# edges. Each flag set runs on the same trees as MANY_FLAGS.
MANY_ASCII_FLAGS = [
    ["-w", "-n"], ["-w", "-i", "-o"], ["-F", "-w", "-o", "-n"], ["-F", "-w", "-i", "--count-matches"],
    ["-w", "--json"], ["-F", "-w", "-r", "<$0>", "-o"], ["-x", "-n"], ["-F", "-x", "-i", "-c"],
]


def many_ascii_literals(rng, punctuation):
    ok = r"[\x20-\x7e]+" if punctuation else r"[A-Za-z0-9_ ]+"
    words = [w for w in COMMON_WORDS if re.fullmatch(ok, w)]
    out = ["ident%05d_%s" % (i, rng.choice(["q", "zz", "Qk", "sx"]))
           for i in range(MANY_ASCII_COUNT)]
    for w in words:
        out.insert(rng.randrange(len(out) + 1), w)
    return out


# Sets of a few hundred ASCII literals of 7+ bytes (below kHashedLiteralsMin, over
# kSampledLiteralsMin): the hashed matcher's sampling mode decides them. Two words of the trees
# with a separator between them ("foo bar", "return foo") and long words, among fillers.
MANY_LONG_FLAGS = [
    ["-n"], ["-i", "-o"], ["-w", "-n"], ["-x", "-n"], ["-F", "-i", "-c"], ["--count-matches"],
    ["-o", "-b"],
]


def many_long_literals(rng):
    words = [w for w in COMMON_WORDS if re.fullmatch(r"[A-Za-z0-9_ ]+", w)]
    out = ["ident%05d_%s" % (i, rng.choice(["q", "zz", "Qk", "sx"])) for i in range(300)]
    while len(out) < 400:
        w = rng.choice(words) + rng.choice([" ", "  ", ", ", "."]) + rng.choice(words)
        if len(w) >= 7 and w not in out:
            out.insert(rng.randrange(len(out) + 1), w)
    for w in words:
        if len(w) >= 7:
            out.insert(rng.randrange(len(out) + 1), w)
    return out


def many_patterns_cases(seed):
    rng = random.Random(seed * 104729 + 3)
    tree = gen_tree(seed)
    literals = many_patterns(rng, False)
    mixed = many_patterns(rng, True)
    cases = []
    for n, flags in enumerate(MANY_FLAGS):
        patterns = literals if "-F" in flags or n % 3 == 1 else mixed
        cases.append(Case(tree, flags, patterns, "f", []))
    ascii_words = many_ascii_literals(rng, False)
    ascii_punct = many_ascii_literals(rng, True)
    for flags in MANY_ASCII_FLAGS:
        cases.append(Case(tree, flags, ascii_punct if "-F" in flags else ascii_words, "f", []))
    long_literals = many_long_literals(rng)
    for flags in MANY_LONG_FLAGS:
        cases.append(Case(tree, flags, long_literals, "f", []))
    return tree, cases


def run_seed(seed, many=False):
    if time.time() > DEADLINE[0]:
        return None
    st = Stats()
    if many:
        tree, many_cases = many_patterns_cases(seed)
    else:
        tree = gen_tree(seed)
        many_cases = None
    rng = random.Random(seed * 7919 + 1)
    ws = Workspace(tree)
    try:
        for i in range(len(many_cases) if many else CASES):
            case = many_cases[i] if many else gen_case(rng, tree)
            o14 = run_binary(RG14, case, ws) if RG14 else None
            o13 = run_binary(RG13, case, ws) if RG13 and not (many and o14) else None
            rg13_bugs = known_rg13_bugs(case)
            if o14 is not None and o13 is not None and o13 != o14:
                if rg13_bugs:
                    for b in rg13_bugs:
                        st.rg13_known[b] = st.rg13_known.get(b, 0) + 1
                else:
                    st.notes.append((case, o13, o14))
            if o14 is not None:
                oracle_name, oracle, exp = "rg 14", RG14, o14
            elif o13 is not None and not rg13_bugs:
                oracle_name, oracle, exp = "rg 13", RG13, o13
            else:
                st.skipped += 1
                continue
            verdict, bugs, exp, got = classify(case, oracle, exp=exp, ws=ws)
            if verdict == "pass":
                st.passed += 1
            elif verdict == "xfail":
                names = ",".join(bugs)
                for b in bugs:
                    st.xfail[b] = st.xfail.get(b, 0) + 1
                st.xfail_cases += 1
                if len(bugs) == 1:
                    st.xfail_examples.setdefault(names, (case, exp, got, oracle_name))
                if VERBOSE:
                    print("XFAIL [%s] seed %d case %d: %s" % (names, seed, i, case.describe()))
            else:
                st.failed.append((seed, i, case, oracle_name, oracle, exp, got))
    finally:
        ws.close()
    return st


def main():
    if shutil.which(CTX) is None and not os.path.exists(CTX):
        print("CTXSEARCH binary %r not found" % CTX)
        print("0 passed, 1 failed")
        return 1
    ctx_version = version_of(CTX)
    CTX_IS_RG[0] = ctx_version.startswith("ripgrep")
    print("ctxsearch: %s (%s)" % (CTX, ctx_version))
    print("rg 14 oracle: %s" % ("%s (%s)" % (RG14, version_of(RG14)) if RG14 else
                                "absent: cases compare against rg 13 minus its known bugs"))
    print("rg 13 oracle: %s" % ("%s (%s)" % (RG13, version_of(RG13)) if RG13 else "absent"))
    if not RG13 and not RG14:
        print("no ripgrep oracle found")
        print("0 passed, 0 failed")
        return 0
    start = time.time()
    DEADLINE[0] = start + TIME_BUDGET_S
    seeds = [int(ONLY_SEED)] if ONLY_SEED else list(range(SEED_START, SEED_START + SEEDS))
    total = Stats()
    dropped = []
    many_seeds = list(range(1000, 1000 + MANY_TREES))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, JOBS)) as pool:
        for seed, st in zip(seeds, pool.map(run_seed, seeds)):
            if st is None:
                dropped.append(seed)
            else:
                total.add(st)
        for seed, st in zip(many_seeds, pool.map(lambda s: run_seed(s, many=True), many_seeds)):
            if st is None:
                dropped.append(seed)
            else:
                total.add(st)
    elapsed = time.time() - start

    shrink_deadline = time.time() + SHRINK_BUDGET_S
    for n, (seed, i, case, oracle_name, oracle, exp, got) in enumerate(total.failed):
        print("=" * 78)
        print("MISMATCH vs %s (seed %d, case %d):" % (oracle_name, seed, i))
        report(case, exp, got, oracle_name)
        if n < SHRINK_MAX and time.time() < shrink_deadline:
            small, e, g = shrink(case, oracle, shrink_deadline)
            print("--- minimized:")
            report(small, e, g, oracle_name)
    for n, (case, o13, o14) in enumerate(total.notes[:8]):
        print("note: rg 13 and rg 14 differ and no KNOWN_RG13_BUGS entry explains it:")
        if n < SHRINK_MAX and time.time() < shrink_deadline:
            case, o14, o13 = shrink(case, RG14, shrink_deadline, subject=RG13)
        report(case, o14, o13, "rg 14", "rg 13")
    if len(total.notes) > 8:
        print("note: %d more unexplained rg 13/rg 14 differences" % (len(total.notes) - 8))
    if total.rg13_known:
        print("rg 13 differed from rg 14 through known rg 13 bugs: %s" % ", ".join(
            "%s=%d" % kv for kv in sorted(total.rg13_known.items())))
    if total.xfail:
        print("XFAIL cases per open bug (a case may need several; CTX_STRICT=1 makes them "
              "fail): %s" % ", ".join("%s=%d" % kv for kv in sorted(total.xfail.items())))
        for names, (case, exp, got, oracle_name) in sorted(total.xfail_examples.items()):
            print("  e.g. [%s]: %s" % (names, case.describe().replace("\n", "\n  ")))
    for name, desc, _, _ in OPEN_BUGS:
        print("OPEN_BUGS %s: %s" % (name, desc))
    for name, desc, _, _ in RG_QUIRKS:
        print("RG_QUIRKS %s: %s" % (name, desc))
    if dropped:
        print("time budget (%gs, CTX_SEARCH_TIME_BUDGET) reached: %d of %d trees not run"
              % (TIME_BUDGET_S, len(dropped), len(seeds)))
    xfailed = total.xfail_cases
    print("%d trees, %d xfail, %d skipped, %.1fs (shrinking excluded)"
          % (len(seeds) + len(many_seeds) - len(dropped), xfailed, total.skipped, elapsed))
    print("%d passed, %d failed" % (total.passed, len(total.failed)))
    return 0 if not total.failed else 1


if __name__ == "__main__":
    sys.exit(main())
