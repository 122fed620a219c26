#!/usr/bin/env python3
"""Golden CLI cases for `ctxsearch PATTERN [PATH...]`: output formats and exit codes.

Covers: exit codes (0 a match, 1 none, 2 an error: a bad regex, a missing path while the other
paths are still searched, no pattern), the bad-regex message naming the pattern and the offset
(`ctxsearch: regex parse error in 'foo(' at offset 3: unclosed group`), -q exit codes (0 on a match even
after an error), stdin search (`printf ... | ctxsearch foo`, also -n/-H/-c, binary and empty
input, and stdin = /dev/null searching the cwd), the standard line format (path:, -n, --column,
-b, -o, --null, CRLF kept), --heading (a blank line between files, none at the end; no heading
for a single file unless -H), -l / -c / --count-matches / --files-without-match with and without
--null, -m N (with -c and -v), binary files found by the walk vs named on the command line
(`binary file matches (found "\\0" byte around offset N)`), -a and --binary, a file with
millions of matching lines piped to `head -1` (no hang; EPIPE ends the search early), stdin
searched as it arrives (a 64 MiB stream whose reader leaves after one line is not read whole,
also UTF-16 named by -E or a BOM, decoded as it arrives; line numbers and offsets continue across
the pieces of a stream), `-` as a path naming stdin,
-U/--multiline (blocks, -n, -o, -c, --count-matches, --vimgrep, --column, -b, -v, -r, -m, -A,
--multiline-dotall, the error for `\n` without -U), -M/--max-columns (+ --max-columns-preview),
--trim, --stats (timings masked), rg 14's --passthru, --context-separator and
--no-context-separator, --field-match-separator, --field-context-separator, --include-zero,
--no-messages, --no-ignore-messages (an unreadable --ignore-file is a warning), -p/--pretty,
--sort-files, --line-buffered/--block-buffered, --path-separator, --stop-on-nonmatch (with rg's
-v quirk), --engine/--auto-hybrid-regex, --pcre2-version, --regex-size-limit/--dfa-size-limit,
--debug/--trace, -A/-B winning over -C, -z/--search-zip (gzip, bzip2, xz, lzma; a file that is
not what its extension says), --pre/--pre-glob/--no-pre, --generate (bash/zsh/fish completions and the man page
list every flag of --help; bash -n, zsh -n, fish --no-execute and groff check them when present),
--crlf/--no-crlf (`$` before CRLF and a lone CR, `^` after one, a CR never matched, the literal
`\r` error, CRLF after every line rg ends itself), --hyperlink-format with every alias and a
custom format ({path} {host} {line} {column} {wslprefix}; OSC 8 bytes with --color=always, none
without colors; rg's format errors), --hostname-bin, --no-invert-match, --no-byte-offset,
--ignore-files and --null-data (NUL-ended lines, line feeds inside them, NUL after every printed
line, context separator, -c, -l, -o, -b, -x, -r, --vimgrep, --json, -U across a NUL, no binary
detection, UTF-16 still transcoded, stdin, the literal NUL error, --crlf after it winning), rg
14's NUL ban (a pattern that must match a NUL while binary detection is on; alternations of single
characters are classes, for it and for the literal \\n error), \\u/\\U escapes of a line feed or
CR, -f from stdin, a FIFO or /dev/null (`-f -` leaves stdin unsearched; rg's errors), patterns,
-f lines and flag values that are not UTF-8 (rg's errors, its escaping of the line), rg 14's
wording of a missing path (walkdir's "IO error for operation on" on one thread; an empty path
names nothing), -C=1/-e=foo, --max-filesize suffixes, the last of --files/--type-list/--generate
and the search output flags choosing the mode, a closed stdin read as empty, the hints of
unknown flags and of look-around errors, -N/--no-column under --vimgrep and --json, -r's literal
`${}`, a --pre program that fails after writing (rg's CommandReader: at the end of its output, or
at its close after -l/-q/-m stopped the search), capture group names as regex-syntax 0.8 checks
them, `-` as rg 14's "<stdin>" entry (--files, --sortr path, sorts by a time), -q on a one-thread
walk never reaching the roots or walk errors after its match, -c -m across piped stdin's pieces.

Expected outputs are ripgrep 14's. Cases that disagree with rg 14 and are reported but not yet
fixed name their bug in OPEN_BUGS: they run, and a failure is printed as XFAIL (a pass is
printed as XPASS: remove the entry). CTX_STRICT=1 makes them fail.

Run as `python3 tests/cli/test_search_cli.py` with CTXSEARCH set (default: rg from PATH, in which
case the ctxsearch-specific messages are only checked to be non-empty).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from case_runner import CASES, Skip, case, check  # noqa: E402  (the main loop is this file's)

CTX = os.environ.get("CTXSEARCH") or shutil.which("rg") or "rg"
if os.sep in CTX:
    CTX = os.path.abspath(CTX)
PROG = os.path.basename(CTX)
TIMEOUT = 60
STRICT = bool(os.environ.get("CTX_STRICT"))


def version_of(binary):
    try:
        out = subprocess.run([binary, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=30).stdout.decode(errors="replace")
    except OSError:
        return ""
    return out.splitlines()[0] if out else ""


CTX_VERSION = version_of(CTX)
IS_RG = CTX_VERSION.startswith("ripgrep")

# Disagreements with rg 14 found by these cases (and tests/diff/test_rg_search.py), reported,
# not yet fixed. Remove an entry once fixed.
OPEN_BUGS = {
}

class OpenBug(Exception):
    """A failure explained by an OPEN_BUGS entry."""


# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------

class Tree:
    """A temp dir: `root` holds the files, HOME is private (no ripgrep config, no git)."""

    def __init__(self, files):
        self.tmp = tempfile.mkdtemp(prefix="ctxsearch-cli-")
        self.root = os.path.join(self.tmp, "root")
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(self.root)
        os.makedirs(self.home)
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith("GIT_") and k != "RIPGREP_CONFIG_PATH"}
        self.env.update({"HOME": self.home, "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
                         "LC_ALL": "C"})
        for rel, data in files.items():
            self.write(rel, data)

    def p(self, rel):
        return os.path.join(self.root, rel)

    def write(self, rel, data):
        full = self.p(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)

    def run(self, args, stdin=None, cwd="", timeout=TIMEOUT):
        """Runs ctxsearch; `stdin` bytes are piped, None means /dev/null."""
        p = subprocess.run([CTX] + list(args), cwd=self.p(cwd) if cwd else self.root,
                           env=self.env, input=stdin,
                           stdin=subprocess.DEVNULL if stdin is None else None,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


BINARY = b"foo 1\nfoo 2\x00foo\nfoo 3\n"  # NUL at offset 11
LATE_NUL = b"foo first\n" + b"filler line\n" * 20000 + b"nul\x00here foo\n" + b"foo after\n"
LATE_NUL_OFFSET = LATE_NUL.index(b"\x00")  # 240013, past rg's first 64 KiB buffer
QUIET_NUL = b"foo first\n" + b"filler line\n" * 20000 + b"nul\x00here\n" + b"foo after\n"

FILES = {
    "ev/text.txt": b"a\nb\n",
    "ev/nul.bin": b"a\nb\x00\nc\n",
    "d/a.txt": b"foo one\nbar\nfoo two\n",
    "d/b.txt": b"nothing here\n",
    "d/call.c": b"call foo(x);\n",
    "d/crlf.txt": b"foo\r\nbar\r\n",
    "d/sub/c.txt": b"x foo\n",
    "bin/mixed/bin.dat": BINARY,
    "bin/mixed/t.txt": b"foo\n",
    "bin/only/bin.dat": BINARY,
    "bin/late/late.dat": LATE_NUL,
    "latequiet/q.dat": QUIET_NUL,
    "bin/peek/p.dat": b"ar\nbb\x00 ar\n",
    "bin/conv/c.dat": b"a foo\x00foo b\nfoo\n",
    "u/greek.txt": "αβγ foo\nΑΒΓ\n".encode(),
    "u/nonl.txt": b"last foo",
    "mlm/b.txt": b"foo\nbar\nfoo\nx\nfoo\nfoo\ny\nz\nfoo\n",
    "mlm/gap.txt": b"a\n\nb\n",
    "pw/w.txt": "a\u203f b\n\u0301c d\n".encode(),
    "pcase/case.txt": b".FOO\nxfoo\n\\foo\n",
    "cr/a.txt": b"foo\r\nbar x\r\nfoo\rbaz\r\n\r\nlast foo",
    "anchors/m.txt": b"foo one\nbar\nfoo two\n",
    "bytes/w.txt": b", o\n\xbf\n",
    "cr/b.csv": b"a,b\r\n",
    "hl/a b.txt": b"x foo\nbar\n",
    "hl/c.txt": b"foo\n",
    "ig/skip.ignore": b"a.txt\n",
    # a, A, k, KELVIN SIGN, alpha, Alpha, 1, CHEROKEE SMALL LETTER YE (folds to U+13F0, Lu)
    "u/props.txt": b"a\nA\nk\n\xe2\x84\xaa\n\xce\xb1\n\xce\x91\n1\n\xe1\x8f\xb8\n",
    # --null-data: NUL-separated records (one holding a line feed, one empty, the last unended)
    "nd/n1.dat": b"foo\x00bar baz\nqux\x00foo bar\x00\x00last foo",
    "nd/sep.dat": b"x\x00foo\x00a\x00b\x00c\x00foo\x00",
    "nd/u16.txt": b"\xff\xfeh\x00i\x00\n\x00",  # UTF-16LE with a BOM: "hi\n"
    "nd/trim.dat": b"\n  x\x00",
}

TREE = None


def tree():
    global TREE
    if TREE is None:
        TREE = Tree(FILES)
    return TREE


def stderr_ok(err, want):
    """`want`: None (stderr must be empty), "any" (non-empty), or a list of (kind, text) where
    kind is "line" (an exact stderr line) or "prefix" (a line starting with text). Messages are
    ctxsearch's own: with a ripgrep stand-in only non-emptiness is checked."""
    lines = [l for l in err.splitlines() if l]
    if want is None:
        return not lines
    if not lines:
        return False
    if want == "any" or IS_RG:
        return True
    for kind, text in want:
        text = text.replace("ctxsearch:", PROG + ":")
        if kind == "line" and text not in lines:
            return False
        if kind == "prefix" and not any(l.startswith(text) for l in lines):
            return False
    return True


def golden(name, args, out, rc, err=None, stdin=None, cwd="", open_bug=None):
    """A golden case: `ctxsearch ARGS` prints exactly `out` and exits `rc`; stderr as `err`."""

    def fn():
        rc_got, out_got, err_got = tree().run(["--color", "never"] + args, stdin=stdin, cwd=cwd)
        ok = out_got == out and rc_got == rc and stderr_ok(err_got, err)
        if ok:
            return
        msg = ("`%s %s`%s%s:\n    expected rc=%d stdout=%r stderr=%s\n    got      rc=%d "
               "stdout=%r stderr=%r" % (
                   PROG, " ".join(shell_quote(a) for a in args),
                   " in %s" % cwd if cwd else "",
                   " with stdin %r" % stdin if stdin is not None else "",
                   rc, out, "empty" if err is None else err, rc_got, out_got[:600], err_got[:400]))
        if open_bug:
            raise OpenBug("[%s] %s" % (open_bug, msg))
        raise AssertionError(msg)

    fn.__name__ = name
    fn.open_bug = open_bug
    CASES.append(fn)


def shell_quote(s):
    import re
    return s if re.fullmatch(r"[A-Za-z0-9_./:=-]+", s) else "'" + s.replace("'", "'\\''") + "'"


# ----------------------------------------------------------------------------------------------
# exit codes and errors
# ----------------------------------------------------------------------------------------------

S = ["--sort", "path"]

golden("a match exits 0", S + ["foo", "d"],
       b"d/a.txt:foo one\nd/a.txt:foo two\nd/call.c:call foo(x);\nd/crlf.txt:foo\r\n"
       b"d/sub/c.txt:x foo\n", 0)
golden("no match exits 1 and prints nothing", S + ["zzz", "d"], b"", 1)
golden("a bad regex exits 2 naming the pattern and the offset", S + ["foo(", "d"], b"", 2,
       [("prefix", "ctxsearch: regex parse error in 'foo(' at offset 3: unclosed group")])
golden("a bad regex among several -e names that one", S + ["-e", "foo", "-e", "a[", "d"], b"", 2,
       [("prefix", "ctxsearch: regex parse error in 'a[' at offset 1: unclosed character class")])
golden("a bad regex under -P exits 2 too", S + ["-P", "foo(", "d"], b"", 2,
       [("prefix", "ctxsearch: regex parse error in 'foo(' at offset 4: ")])
# Capture group names as regex-syntax 0.8 reads them: '.', '[' and ']' after the first character
# (PCRE2 refuses them: ctxsearch said "syntax error in subpattern name"), and rg's errors.
golden("a group name may hold '.', '[' and ']'", ["-r", "<$1|$2|$c>", "(?P<a.b>f)(?P<c[0]>o)o",
                                                   "d/a.txt"],
       b"<f|o|> one\n<f|o|> two\n", 0)
golden("a non-ASCII group name under --no-unicode", ["--no-unicode", "-c", "(?P<\u00e9>f)oo",
                                                     "d/a.txt"], b"2\n", 0)
golden("a duplicate group name is rg's error", S + ["(?P<a>x)|(?<a>y)", "d"], b"", 2,
       [("line", "ctxsearch: regex parse error in '(?P<a>x)|(?<a>y)' at offset 12: duplicate "
                 "capture group name")])
golden("an empty group name is rg's error", S + ["(?P<>a)", "d"], b"", 2,
       [("line", "ctxsearch: regex parse error in '(?P<>a)' at offset 4: empty capture group "
                 "name")])
golden("a group name starting with a digit is rg's error", S + ["(?P<1a>a)", "d"], b"", 2,
       [("line", "ctxsearch: regex parse error in '(?P<1a>a)' at offset 4: invalid capture group "
                 "character")])
golden("a reversed class range is rg's error at its start", S + ["[z-a]", "d"], b"", 2,
       [("line", "ctxsearch: regex parse error in '[z-a]' at offset 1: invalid character class "
                 "range, the start must be <= the end")])
golden("-F makes a bad regex a literal", S + ["-F", "foo(", "d"], b"d/call.c:call foo(x);\n", 0)
# rg 14 words a root it cannot stat as its walk does: walkdir's "IO error for operation on" when
# it walks on one thread (sorted, -j1, one path that is no directory), plain on several threads.
NOPE_IO = [("line", "ctxsearch: nope: IO error for operation on nope: No such file or directory "
                    "(os error 2)")]
golden("a missing path is an error but the other paths are searched",
       S + ["foo", "nope", "d/sub"], b"d/sub/c.txt:x foo\n", 2, NOPE_IO)
golden("a missing path and no match exits 2", S + ["zzz", "nope", "d"], b"", 2, NOPE_IO)
golden("a missing path alone is walked on one thread: walkdir's wording", ["foo", "nope"], b"", 2,
       NOPE_IO)
golden("... and under -j1", ["-j1", "foo", "nope", "d/sub"], b"d/sub/c.txt:x foo\n", 2, NOPE_IO)
golden("... but not on several threads", ["-j2", "foo", "nope", "d/sub"], b"d/sub/c.txt:x foo\n", 2,
       [("line", "ctxsearch: nope: No such file or directory (os error 2)")])
# rg 14's walk yields `-` as an entry named "<stdin>": --files lists it (ctxsearch said "No such
# file"), --sortr path sorts it by that name, and a sort by a time puts it after the files (it
# has no time; first when reversed). ctxsearch kept `-` where it was given.
golden("--files lists - as <stdin>", ["--files", "-"], b"<stdin>\n", 0, stdin=b"")
golden("--files --sort path lists <stdin> in its place",
       ["--files", "--sort", "path", "d/sub", "-", "d/b.txt"], b"d/sub/c.txt\n<stdin>\nd/b.txt\n", 0,
       stdin=b"")
golden("--files --sortr path sorts <stdin> by that name", ["--files", "--sortr", "path", "-", "d/sub"],
       b"d/sub/c.txt\n<stdin>\n", 0, stdin=b"")
golden("--sort modified searches stdin after the files", ["--sort", "modified", "foo", "-", "d/sub"],
       b"d/sub/c.txt:x foo\n<stdin>:foo in\n", 0, stdin=b"foo in\n")
golden("--sortr modified searches stdin first", ["--sortr", "modified", "foo", "d/sub", "-"],
       b"<stdin>:foo in\nd/sub/c.txt:x foo\n", 0, stdin=b"foo in\n")
golden("--sortr path searches stdin where <stdin> sorts", ["--sortr", "path", "foo", "-", "d/sub"],
       b"d/sub/c.txt:x foo\n<stdin>:foo in\n", 0, stdin=b"foo in\n")
# rg's one-thread walk (sorted, -j1) reaches a root when its turn comes, and -q stops the walk at
# the first match: a missing root after it is never reported (ctxsearch reported every root
# first; sorted, the walk also ran ahead of the searches).
golden("-q sorted: a missing root after the first match is never reached",
       ["-q", "--sort", "path", "foo", "d", "nope"], b"", 0)
golden("-q -j1: a missing root after the first match is never reached",
       ["-q", "-j1", "foo", "d/a.txt", "nope"], b"", 0)
golden("-q sorted: a missing root before the first match is reported",
       ["-q", "--sort", "path", "foo", "nope", "d"], b"", 0, NOPE_IO)

golden("--sortr path sorts every file, roots too, by its path's components (rg 14; rg 13 kept "
       "the roots' order)", ["--sortr", "path", "foo", "d/a.txt", "hl/c.txt", "d/sub"],
       b"hl/c.txt:foo\nd/sub/c.txt:x foo\nd/a.txt:foo one\nd/a.txt:foo two\n", 0)
golden("a missing directory's file", ["foo", "nope/x.txt"], b"", 2,
       [("line", "ctxsearch: nope/x.txt: IO error for operation on nope/x.txt: No such file or "
                 "directory (os error 2)")])
golden("an empty path names nothing (not the current directory)", ["foo", ""], b"", 2,
       [("line", "ctxsearch: : IO error for operation on : No such file or directory (os error 2)")])
golden("... also among other paths", ["-j2", "foo", "", "d/sub"], b"d/sub/c.txt:x foo\n", 2,
       [("line", "ctxsearch: : No such file or directory (os error 2)")])
golden("a file named with a trailing slash is not a directory", ["foo", "d/a.txt/"], b"", 2,
       [("line", "ctxsearch: d/a.txt/: IO error for operation on d/a.txt/: Not a directory "
                 "(os error 20)")])
golden("... nor with -j2 among other paths", ["-j2", "foo", "d/a.txt/", "d/sub"],
       b"d/sub/c.txt:x foo\n", 2,
       [("line", "ctxsearch: d/a.txt/: Not a directory (os error 20)")])
golden("no pattern is a usage error", [], b"", 2, "any")
golden("an unknown flag is a usage error", ["--no-such-flag", "foo"], b"", 2, "any")
golden("an unknown --no-X names the flag X", ["--no-with-filename", "foo"], b"", 2,
       [("line", "ctxsearch: unrecognized flag --no-with-filename (did you mean "
                 "--with-filename?)")])
golden("an unknown flag names the shortest flag holding it", ["--nul", "foo"], b"", 2,
       [("line", "ctxsearch: unrecognized flag --nul (did you mean --null?)")])
golden("the empty pattern matches every line", ["", "d/a.txt"], b"foo one\nbar\nfoo two\n", 0)
NOTHING_SEARCHED = [
    ("line", "ctxsearch: No files were searched, which means ctxsearch probably applied a filter "
             "you didn't expect."),
    ("line", "Running with --debug will show why files are being skipped.")]
golden("no file searched in the current directory, for want of a path, is an error (rg's)",
       ["-t", "py", "foo"], b"", 2, err=NOTHING_SEARCHED, cwd="d")
golden("... under --sort path and -q too", ["--sort", "path", "-q", "-g", "*.py", "foo"], b"", 2,
       err=NOTHING_SEARCHED, cwd="d")
golden("... not with a path given, even '.'", ["-t", "py", "foo", "."], b"", 1, cwd="d")
golden("... not when stdin is searched", ["-t", "py", "foo"], b"foo\n", 0, stdin=b"foo\n", cwd="d")
golden("... not for --files", ["--files", "-t", "py"], b"", 1, cwd="d")

# modes, as rg 14 chooses them: the last of --files, --type-list, --generate and the search
# output flags (-l, -c, --count-matches, --files-without-match, --json) wins; --help, --version
# and --pcre2-version win over them all
golden("--files then -l searches (the last mode wins)", S + ["--files", "-l", "foo", "d/sub"],
       b"d/sub/c.txt\n", 0)
golden("-l then --files lists", S + ["-l", "--files", "d/sub"], b"d/sub/c.txt\n", 0)
golden("--files then -c wants a pattern", ["--files", "-c"], b"", 2, "any")
golden("--files then --count-matches searches", ["--files", "--count-matches", "o", "d/a.txt"],
       b"6\n", 0)
golden("--files then --files-without-match searches",
       S + ["--files", "--files-without-match", "foo", "d"], b"d/b.txt\n", 0)
golden("--type-list then -c searches", ["--type-list", "-c", "foo", "d/a.txt"], b"2\n", 0)
golden("--generate then -l searches", ["--generate", "man", "-l", "foo", "d/a.txt"],
       b"d/a.txt\n", 0)
golden("--files then -o still lists", S + ["--files", "-o", "d/sub"], b"d/sub/c.txt\n", 0)


@case
def a_closed_stdin_reads_as_empty():
    """As ripgrep (Rust's stdin): with fd 0 closed, `-` and `-f -` read nothing, no error."""
    t = tree()
    for args, want_out, want_rc in ((["-c", "foo", "-", "d/a.txt"], b"d/a.txt:2\n", 0),
                                    (["-f", "-", "d/a.txt"], b"", 1),
                                    (["foo", "-"], b"", 1)):
        p = subprocess.run(["sh", "-c", 'exec "$0" "$@" <&-', CTX, "--color", "never"] + args,
                           cwd=t.root, env=t.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT)
        check(p.stdout == want_out and p.returncode == want_rc and p.stderr == b"",
              "%s: rc %d out %r err %r" % (args, p.returncode, p.stdout, p.stderr))


@case
def pcre2_version_wins_over_a_later_mode():
    for args in (["--pcre2-version", "--files"], ["--pcre2-version", "-l", "foo"],
                 ["--files", "--pcre2-version"]):
        rc, out, err = tree().run(args)
        check(rc == 0 and out.startswith(b"PCRE2 ") and out.count(b"\n") == 1,
              "%s: rc %d out %r err %r" % (args, rc, out, err))


# short flags with attached values, as rg's parser (lexopt) reads them
golden("-C=1 attaches the value after '='", ["-C=1", "bar", "d/a.txt"],
       b"foo one\nbar\nfoo two\n", 0)
golden("-e=foo is the pattern foo", ["-e=foo", "d/a.txt"], b"foo one\nfoo two\n", 0)
golden("-nB=1 after other short flags", ["-nB=1", "bar", "d/a.txt"], b"1-foo one\n2:bar\n", 0)
golden("-g=GLOB", S + ["-g=*.c", "foo", "d"], b"d/call.c:call foo(x);\n", 0)
golden("-e= is the empty pattern", ["-c", "-e=", "d/a.txt"], b"3\n", 0)
golden("-e== is the pattern '='", ["-x", "-e=="], b"=\n", 0, stdin=b"==\n=\n")

# --max-filesize: digits and an optional K, M or G (rg rejects lower case suffixes)
golden("--max-filesize skips larger files found by the walk", S + ["--max-filesize", "13", "foo", "d"],
       b"d/call.c:call foo(x);\nd/crlf.txt:foo\r\nd/sub/c.txt:x foo\n", 0)
golden("--max-filesize with K", S + ["--max-filesize", "1K", "foo", "d/sub"], b"d/sub/c.txt:x foo\n",
       0)
golden("--max-filesize with a lower case suffix is an error", ["--max-filesize", "1k", "foo", "d"],
       b"", 2, [("prefix", "ctxsearch: invalid value '1k' for --max-filesize")])
golden("--max-filesize with a fraction is an error", ["--max-filesize", "1.5M", "foo", "d"], b"", 2,
       [("prefix", "ctxsearch: invalid value '1.5M' for --max-filesize")])

# -q
golden("-q with a match exits 0 and prints nothing", ["-q", "foo", "d"], b"", 0)
golden("-q without a match exits 1", ["-q", "zzz", "d"], b"", 1)
golden("-q with a match and a missing path exits 0", ["-q", "foo", "nope", "d"], b"", 0, "any")
golden("-q without a match and a missing path exits 2", ["-q", "zzz", "nope", "d"], b"", 2, "any")

# stdin
golden("stdin is searched when no path is given", ["foo"], b"a foo\nfoo c\n", 0,
       stdin=b"a foo\nb\nfoo c\n")
golden("stdin with -n", ["-n", "foo"], b"1:a foo\n3:foo c\n", 0, stdin=b"a foo\nb\nfoo c\n")
golden("stdin with -H is named <stdin>", ["-H", "foo"], b"<stdin>:a foo\n<stdin>:foo c\n", 0,
       stdin=b"a foo\nb\nfoo c\n")
golden("stdin with -c", ["-c", "foo"], b"2\n", 0, stdin=b"a foo\nb\nfoo c\n")
golden("stdin without a match exits 1", ["foo"], b"", 1, stdin=b"bar\n")
golden("empty stdin exits 1", ["foo"], b"", 1, stdin=b"")
golden("binary stdin reports a binary match", ["foo"],
       b'binary file matches (found "\\0" byte around offset 3)\n', 0, stdin=b"foo\x00bar\n")
golden("stdin that is /dev/null is not searched: the cwd is", S + ["foo"], b"c.txt:x foo\n", 0,
       cwd="d/sub")
golden("- names stdin among other paths, in argument order", ["foo", "-", "d/sub"],
       b"<stdin>:a foo\nd/sub/c.txt:x foo\n", 0, stdin=b"a foo\nb\n")
golden("- alone is one file: no path printed", ["-n", "foo", "-"], b"2:foo c\n", 0,
       stdin=b"b\nfoo c\n")
golden("- after a path", ["-H", "foo", "d/sub", "-"], b"d/sub/c.txt:x foo\n<stdin>:foo\n", 0,
       stdin=b"foo\n")

# Unicode mode off: (?-u), --no-unicode (rg 14: also for -P), --no-pcre2-unicode
U = b"a\xffb\ncaf\xc3\xa9 \xc3\x89COLE\nK\xe2\x84\xaa k\n\xce\xb1\xce\xb2 x_1\n"
U_ASCII_WORDS = b"a\nb\ncaf\nCOLE\nK\nk\nx_1\n"
U_WORDS = b"a\nb\ncaf\xc3\xa9\n\xc3\x89COLE\nK\xe2\x84\xaa\nk\n\xce\xb1\xce\xb2\nx_1\n"
golden("(?-u) matches a raw byte", ["-o", "(?-u)\\xff"], b"\xff\n", 0, stdin=U)
golden("(?-u) negated classes match any byte but a line feed", ["-o", "-n", "(?-u:[^a-z\\n ])"],
       b"1:\xff\n2:\xc3\n2:\xa9\n2:\xc3\n2:\x89\n2:C\n2:O\n2:L\n2:E\n3:K\n3:\xe2\n3:\x84\n"
       b"3:\xaa\n4:\xce\n4:\xb1\n4:\xce\n4:\xb2\n4:_\n4:1\n", 0, stdin=U)
golden("(?-u) makes \\w ASCII", ["-o", "(?-u)\\w+"], U_ASCII_WORDS, 0, stdin=U)
golden("(?u) turns Unicode mode back on", ["-o", "(?-u)(?u:\\w+)"], U_WORDS, 0, stdin=U)
golden("(?i-u) folds ASCII letters only", ["-o", "(?i-u)k|\\xc3\\xa9"], b"\xc3\xa9\nK\nk\n", 0,
       stdin=U)
golden("a pattern mixes both modes", ["-o", "\\p{Greek}+(?-u:\\x20)|caf(?-u:\\xc3)"],
       b"caf\xc3\n\xce\xb1\xce\xb2 \n", 0, stdin=U)
golden("a set mixes patterns of both modes", ["-o", "-e", "(?-u)\\xff", "-e", "(?i)k"],
       b"\xff\nK\n\xe2\x84\xaa\nk\n", 0, stdin=U)
golden("--no-unicode makes \\w ASCII", ["-o", "--no-unicode", "\\w+"], U_ASCII_WORDS, 0, stdin=U)
golden("--unicode undoes --no-unicode", ["-o", "--no-unicode", "--unicode", "\\w+"], U_WORDS, 0,
       stdin=U)
golden("--no-pcre2-unicode is an alias of --no-unicode", ["-o", "--no-pcre2-unicode", "\\w+"],
       U_ASCII_WORDS, 0, stdin=U)
golden("--pcre2-unicode is an alias of --unicode",
       ["-o", "--no-unicode", "--pcre2-unicode", "\\w+"], U_WORDS, 0, stdin=U)
golden("--no-unicode -i folds no non-ASCII character", ["-o", "--no-unicode", "-i",
                                                          "k|\\xc3\\xa9cole"],
       b"K\nk\n", 0, stdin=U)
golden("--no-unicode -F -i folds ASCII only", ["-c", "--no-unicode", "-F", "-i", "\u00e9cOLE"],
       b"", 1, stdin=U)
golden("-S: a hex escape's digits are no uppercase literal ([^\\x00-\\x7F] folds, leaving out U+017F)",
       ["-S", "-c", "[^\\x00-\\x7F]"], b"1\n", 0, stdin=b"a\xc5\xbf\n\xc3\xa9\n")
golden("-S: nor are a \\u escape's (\\u00Ef is a lowercase literal)", ["-S", "-c", "\\u00Ef"], b"2\n", 0,
       stdin=b"\xc3\xaf\n\xc3\x8f\n")
golden("-F -i folds non-ASCII in Unicode mode", ["-c", "-F", "-i", "\u00e9cOLE"], b"1\n", 0,
       stdin=U)
golden("--no-unicode -w has ASCII word boundaries", ["-o", "--no-unicode", "-w", "caf|a"],
       b"a\ncaf\n", 0, stdin=U)
golden("-w with a (?-u) pattern keeps Unicode word boundaries",
       ["-o", "-w", "-e", "caf", "-e", "(?-u)x_1|a"], b"x_1\n", 0, stdin=U)
golden("--no-unicode with -P searches without UTF", ["-o", "--no-unicode", "-P", "\\w+"],
       U_ASCII_WORDS, 0, stdin=U)
golden("\\p{..} with Unicode off is an error", ["--no-unicode", "\\pL"], b"", 2,
       [("line", "ctxsearch: regex parse error in '\\pL' at offset 0: Unicode not allowed here")],
       stdin=U)
golden("a non-ASCII class literal with Unicode off is an error", ["(?-u)[\u00e9]"], b"", 2,
       [("line", "ctxsearch: regex parse error in '(?-u)[\u00e9]' at offset 6: Unicode not "
                 "allowed here")], stdin=U)


@case
def stdin_pieces_keep_line_numbers_and_offsets():
    """stdin arriving in pieces (a pipe written with pauses, the last line without a newline):
    line numbers and byte offsets continue across pieces, and (ctxsearch only) the first matches
    are printed before stdin ends."""
    p = subprocess.Popen([CTX, "--color", "never", "-n", "-b", "foo"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=tree().env,
                         cwd=tree().root)
    try:
        p.stdin.write(b"a\nfoo 1\n")
        p.stdin.flush()
        first = b""
        # ctxsearch writes each piece's results at once; rg buffers its output when it is not a
        # terminal (--line-buffered changes that), so only the whole output is compared for it.
        if not IS_RG:
            got = []
            reader = threading.Thread(target=lambda: got.append(p.stdout.readline()), daemon=True)
            reader.start()
            reader.join(timeout=10)
            check(got == [b"2:2:foo 1\n"], "before stdin ended, got %r" % got)
            first = got[0]
        p.stdin.write(b"x\nfo")
        p.stdin.flush()
        time.sleep(0.2)
        p.stdin.write(b"o 2")
        p.stdin.close()
        out = first + p.stdout.read()
        rc = p.wait(timeout=TIMEOUT)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    check(out == b"2:2:foo 1\n4:10:foo 2\n" and rc == 0, "got %r rc %d stderr %r"
          % (out, rc, p.stderr.read()))


# ----------------------------------------------------------------------------------------------
# line formats
# ----------------------------------------------------------------------------------------------

golden("a single file prints no path", ["foo", "d/a.txt"], b"foo one\nfoo two\n", 0)
golden("-H names a single file", ["-H", "foo", "d/a.txt"], b"d/a.txt:foo one\nd/a.txt:foo two\n", 0)
golden("-I hides paths under a directory", S + ["-I", "foo", "d/sub"], b"x foo\n", 0)
golden("-n", ["-n", "foo", "d/a.txt"], b"1:foo one\n3:foo two\n", 0)
golden("--column implies -n and gives the first match's column", ["--column", "o", "d/a.txt"],
       b"1:2:foo one\n3:2:foo two\n", 0)
golden("-b gives the line's byte offset", ["-b", "foo", "d/a.txt"], b"0:foo one\n12:foo two\n", 0)
golden("-o prints each match", ["-o", "o", "d/a.txt"], b"o\no\no\no\no\no\n", 0)
golden("-o -b gives each match's offset", ["-o", "-b", "fo+", "d/a.txt"], b"0:foo\n12:foo\n", 0)
golden("-o -n --column", ["-o", "--column", "o", "d/sub/c.txt"], b"1:4:o\n1:5:o\n", 0)
golden("--null follows the path with NUL", S + ["--null", "foo", "d/sub"],
       b"d/sub/c.txt\x00x foo\n", 0)
golden("-N removes line numbers", ["-n", "-N", "foo", "d/a.txt"], b"foo one\nfoo two\n", 0)
golden("CRLF line ends are printed as they are", ["-n", "bar", "d/crlf.txt"], b"2:bar\r\n", 0)
golden("a last line without a newline gets one", ["foo", "u/nonl.txt"], b"last foo\n", 0)
golden("-i folds non-ASCII letters", ["-i", "αβγ", "u/greek.txt"], "αβγ foo\nΑΒΓ\n".encode(), 0)
golden("-v prints the non-matching lines", ["-v", "foo", "d/a.txt"], b"bar\n", 0)
golden("-w", ["-w", "fo", "d/a.txt"], b"", 1)
golden("-x", ["-x", "bar", "d/a.txt"], b"bar\n", 0)

# --heading
golden("--heading: path line, the matches, a blank line between files, none at the end",
       S + ["--heading", "-n", "foo", "d"],
       b"d/a.txt\n1:foo one\n3:foo two\n\nd/call.c\n1:call foo(x);\n\nd/crlf.txt\n1:foo\r\n\n"
       b"d/sub/c.txt\n1:x foo\n", 0)
golden("--heading with a single file prints no heading", ["--heading", "foo", "d/a.txt"],
       b"foo one\nfoo two\n", 0)
golden("--heading -H with a single file", ["--heading", "-H", "foo", "d/a.txt"],
       b"d/a.txt\nfoo one\nfoo two\n", 0)
golden("--heading --null ends the heading with NUL",
       S + ["--heading", "--null", "foo", "d/sub", "u"],
       b"d/sub/c.txt\x00x foo\n\nu/greek.txt\x00\xce\xb1\xce\xb2\xce\xb3 foo\n\n"
       b"u/nonl.txt\x00last foo\n", 0)
golden("--no-heading", S + ["--no-heading", "foo", "d/sub"], b"d/sub/c.txt:x foo\n", 0)

# summaries
golden("-l lists matching files", S + ["-l", "foo", "d"],
       b"d/a.txt\nd/call.c\nd/crlf.txt\nd/sub/c.txt\n", 0)
# ----------------------------------------------------------------------------------------------
# ripgrep's regex dialect (Rust's regex-syntax 0.8), never PCRE2's reading of a pattern
# ----------------------------------------------------------------------------------------------

W = b"foo foo\nbar\nfoo\n"
E = "\u00e9t\u00e9 caf\u00e9 x\u0301y\n".encode()


def parse_error(pattern, offset):
    return [("prefix", "ctxsearch: regex parse error in '%s' at offset %d: " % (pattern, offset))]


golden("\\b{start} holds in Unicode mode (it matched nothing)", ["-c", "\\b{start}foo"], b"2\n", 0,
       stdin=W)
golden("\\b{start} and \\b{end} use Rust's Unicode word characters",
       ["-o", "\\b{start}\\w+\\b{end}"], b"\xc3\xa9t\xc3\xa9\ncaf\xc3\xa9\nx\xcc\x81y\n", 0, stdin=E)
golden("\\< and \\> are \\b{start} and \\b{end}", ["-o", "\\<\\w|\\w\\>"],
       b"\xc3\xa9\n\xc3\xa9\nc\n\xc3\xa9\nx\ny\n", 0, stdin=E)
golden("\\b{start-half} and \\b{end-half} need no word character inside",
       ["-o", "\\b{start-half}[a-z-]+\\b{end-half}"], b"-ab\ncd-\nx\n", 0, stdin=b"-ab cd- x\n")
golden("\\b{2} repeats \\b", ["-o", "\\b{2}foo"], b"foo\n", 0, stdin=b"foo xfoo\n")
golden("an unknown special word boundary is an error", ["-c", "\\b{stat}foo"], b"", 2,
       parse_error("\\b{stat}foo", 0), stdin=W)
golden("look-around is an error outside -P", ["-c", "x(?=foo)"], b"", 2, parse_error("x(?=foo)", 1),
       stdin=W)
golden("... whose message names -P, as rg's", ["-c", "x(?=foo)"], b"", 2,
       [("line", "ctxsearch: regex parse error in 'x(?=foo)' at offset 1: look-around, including "
                 "look-ahead and look-behind, is not supported (use -P/--pcre2, which can handle "
                 "backreferences and look-around)")], stdin=W)
golden("a backreference outside -P names -P too", ["-c", "(a)\\1"], b"", 2,
       [("line", "ctxsearch: regex parse error in '(a)\\1' at offset 3: backreferences are not "
                 "supported (use -P/--pcre2, which can handle backreferences and look-around)")],
       stdin=W)
golden("an escape Rust does not know is an error (PCRE2's \\h)", ["-c", "\\h"], b"", 2,
       parse_error("\\h", 0), stdin=W)
golden("\\Q..\\E is an error outside -P", ["-c", "\\Qfoo\\E"], b"", 2, parse_error("\\Qfoo\\E", 0),
       stdin=W)
golden("a PCRE2 verb is a repetition without an operand", ["-c", "(*FAIL)"], b"", 2,
       parse_error("(*FAIL)", 1), stdin=W)
golden("a dangling flag negation is an error", ["-c", "(?-)foo"], b"", 2, parse_error("(?-)foo", 2),
       stdin=W)
golden("a++ is (a+)+ as in Rust, not possessive", ["-o", "o++o"], b"oo\n", 0, stdin=b"foo\n")
# counted repetitions above PCRE2's 65535: rg takes any u32 its size limit allows
X70000 = b"x" * 70000 + b"\n"
golden("x{0,70000} matches as rg (PCRE2 stops at 65535)", ["x{0,70000}"], b"x\n", 0, stdin=b"x\n")
golden("x{70000} needs 70000 x", ["-c", "x{70000}"], b"", 1, stdin=b"x" * 69999 + b"\n")
golden("x{70000} matches 70000 x", ["-c", "x{70000}"], b"1\n", 0, stdin=X70000)
golden("x{65536,} matches 70000 x whole", ["-o", "x{65536,}"], X70000, 0, stdin=X70000)
golden("x{1,100000}? matches one x at a time", ["-c", "--count-matches", "x{1,100000}?"],
       b"70000\n", 0, stdin=X70000)
golden("x{0,69999}y{0,70000} takes all it can, then the x left", ["-o", "x{0,69999}y{0,70000}"],
       b"x" * 69999 + b"\nx\n", 0, stdin=X70000)
golden("(?:x|y){2,100000} is the class [xy] repeated", ["-o", "(?:x|y){2,100000}"], b"xy\nyx\n", 0,
       stdin=b"xy-z-yx\n")
golden("-i x{70000}", ["-i", "-c", "x{70000}"], b"1\n", 0, stdin=b"X" * 70000 + b"\n")
golden("(?i:x|Y){1,70000}: the count goes inside the group", ["-o", "(?i:x|Y){1,70000}"],
       b"xy\n", 0, stdin=b"xyz\n")
golden("(?s:.){2,70000}? is lazy inside the group", ["-o", "(?s:.){2,70000}?"], b"xy\n", 0,
       stdin=b"xyz\n")
golden("x{4294967295} exceeds the size limit, as rg", ["-c", "x{4294967295}"], b"", 2,
       [("line", "ctxsearch: compiled regex exceeds size limit of 104857600")], stdin=b"x\n")
golden("x{3276794} exceeds the size limit by one state, as rg", ["-c", "x{3276794}"], b"", 2,
       [("line", "ctxsearch: compiled regex exceeds size limit of 104857600")], stdin=b"x\n")
golden("x{3276793} fits", ["-c", "x{3276793}"], b"", 1, stdin=b"x\n")
golden("a count above u32 is rg's error", ["-c", "ab{4294967296}"], b"", 2,
       [("line", "ctxsearch: regex parse error in 'ab{4294967296}' at offset 3: decimal literal "
                 "invalid")], stdin=b"x\n")
golden("a count range that runs backwards is rg's error", ["-c", "x{2,1}"], b"", 2,
       [("line", "ctxsearch: regex parse error in 'x{2,1}' at offset 1: invalid repetition count "
                 "range, the start must be <= the end")], stdin=b"x\n")
golden("whitespace inside a counted repetition", ["-o", "fo{ 1 , 2 }"], b"foo\n", 0, stdin=b"foo\n")
golden("(?x) skips whitespace inside classes", ["-o", "(?x)[ o ]+"], b"o\no\n", 0, stdin=b"fo o\n")
golden("\\A is each line's start", ["-c", "\\A"], b"3\n", 0, stdin=W)
golden("\\z is each line's end", ["-n", "bar\\z"], b"2:bar\n", 0, stdin=W)
golden("(?i)\\x{212A} matches k and K", ["-c", "(?i)\\x{212A}"], b"3\n", 0,
       stdin=b"k\nK\n\xe2\x84\xaa\ns\n")
golden("--crlf: ^ without the m flag is the line's start, not a piece's after a CR",
       ["-n", "--crlf", "(?-m:^f)|(?-m:o$)"], b"1:x\rfoo\r\n2:foo\rx\r\n3:yo\r\n", 0,
       stdin=b"x\rfoo\r\nfoo\rx\r\nyo\r\nx\rfoo\n")
golden("-c -o counts matches (rg 14)", ["-c", "-o", "foo"], b"3\n", 0, stdin=W)
golden("--count --only-matching counts matches", ["--count", "--only-matching", "foo"], b"3\n", 0,
       stdin=W)
golden("-c -o -v counts the inverted lines' matches: none", ["-c", "-o", "-v", "foo"], b"0\n", 0,
       stdin=W)
golden("--count-matches -v counts lines", ["--count-matches", "-v", "foo"], b"1\n", 0, stdin=W)
golden("-c -o -m1 counts the matches of the first line", ["-c", "-o", "-m1", "foo"], b"2\n", 0,
       stdin=W)


golden("-l --null", S + ["-l", "--null", "foo", "d"],
       b"d/a.txt\x00d/call.c\x00d/crlf.txt\x00d/sub/c.txt\x00", 0)
golden("-l without a match exits 1", S + ["-l", "zzz", "d"], b"", 1)
golden("-c counts matching lines per file", S + ["-c", "foo", "d"],
       b"d/a.txt:2\nd/call.c:1\nd/crlf.txt:1\nd/sub/c.txt:1\n", 0)
golden("-c --null", S + ["-c", "--null", "foo", "d/a.txt", "d/sub"],
       b"d/a.txt\x002\nd/sub/c.txt\x001\n", 0)
golden("-c on a single file prints the bare count", ["-c", "foo", "d/a.txt"], b"2\n", 0)
golden("-c -H on a single file", ["-c", "-H", "foo", "d/a.txt"], b"d/a.txt:2\n", 0)
golden("--count-matches counts every match", S + ["--count-matches", "o", "d/a.txt", "d/b.txt"],
       b"d/a.txt:6\nd/b.txt:1\n", 0)
golden("-c -v counts the other lines", ["-c", "-v", "foo", "d/a.txt"], b"1\n", 0)
golden("--files-without-match lists the others and exits 0",
       S + ["--files-without-match", "foo", "d"], b"d/b.txt\n", 0)
golden("--files-without-match exits 1 when every file matches",
       S + ["--files-without-match", "foo", "d/sub"], b"", 1)
golden("--files-without-match --null", S + ["--files-without-match", "--null", "foo", "d"],
       b"d/b.txt\x00", 0)

# -m
golden("-m 1 stops each file after one line", S + ["-m", "1", "foo", "d/a.txt", "d/sub"],
       b"d/a.txt:foo one\nd/sub/c.txt:x foo\n", 0)
golden("-m 1 -c", S + ["-m", "1", "-c", "foo", "d/a.txt"], b"1\n", 0)
golden("-m 2 -n", ["-m", "2", "-n", "o", "d/a.txt"], b"1:foo one\n3:foo two\n", 0)
golden("-m 1 -v", ["-m", "1", "-v", "foo", "d/a.txt"], b"bar\n", 0)
golden("-m 1 -o prints every match of that line", ["-m", "1", "-o", "o", "d/a.txt"],
       b"o\no\no\n", 0)
golden("-m 0 exits 1 and prints nothing", S + ["-m", "0", "foo", "d"], b"", 1)
golden("-m 0 does not even look at the paths", S + ["-m", "0", "foo", "nope"], b"", 1)

# ----------------------------------------------------------------------------------------------
# binary files
# ----------------------------------------------------------------------------------------------

OFF11 = b'binary file matches (found "\\0" byte around offset 11)\n'

golden("a binary file found by the walk is skipped from its first NUL's buffer on",
       S + ["foo", "bin/mixed"], b"bin/mixed/t.txt:foo\n", 0)
golden("a walked binary file alone: nothing found, exit 1", S + ["foo", "bin/only"], b"", 1)
golden("-q: a walked binary file alone is no match", ["-q", "foo", "bin/only"], b"", 1)
golden("-c skips a walked binary file", S + ["-c", "foo", "bin/only"], b"", 1)
golden("a walked binary file with a match before a late NUL: the match, then a warning on stdout",
       S + ["-n", "foo", "bin/late"],
       b"bin/late/late.dat:1:foo first\nbin/late/late.dat: WARNING: stopped searching binary file "
       b"after match (found \"\\0\" byte around offset %d)\n" % LATE_NUL_OFFSET, 0)
golden("named files around a missing one", ["-j2", "-n", "foo", "d/sub/c.txt", "nope.txt", "d/a.txt"],
       b"d/sub/c.txt:1:x foo\nd/a.txt:1:foo one\nd/a.txt:3:foo two\n", 2,
       err=[("prefix", "ctxsearch: nope.txt: ")])


@case
def named_files_print_in_the_order_given():
    """A few named files are searched on all threads and written in the order given (rg -j2
    writes them as its threads finish: any order there)."""
    for args, want in (
            (["-c", "foo", "mlm/b.txt", "d/a.txt", "d/sub/c.txt", "d/b.txt", "u/nonl.txt"],
             b"mlm/b.txt:5\nd/a.txt:2\nd/sub/c.txt:1\nu/nonl.txt:1\n"),
            (["-l", "foo", "u/nonl.txt", "d/b.txt", "d/a.txt"], b"u/nonl.txt\nd/a.txt\n"),
            (["-n", "foo", "d/a.txt", "d/sub/c.txt"],
             b"d/a.txt:1:foo one\nd/a.txt:3:foo two\nd/sub/c.txt:1:x foo\n")):
        rc, out, err = tree().run(["--color", "never", "-j2"] + args)
        got = out if not IS_RG else b"".join(sorted(out.splitlines(True), key=want.find))
        check(rc == 0 and got == want and not err, "%s: rc=%d stdout=%r" % (args, rc, out))


golden("a binary file named on the command line reports a binary match",
       ["foo", "bin/only/bin.dat"], OFF11, 0)
golden("named binary file among others is prefixed with its path",
       S + ["foo", "bin/mixed/bin.dat", "bin/mixed/t.txt"],
       b"bin/mixed/bin.dat: " + OFF11 + b"bin/mixed/t.txt:foo\n", 0)
golden("a named binary file without a match prints nothing", ["zzz", "bin/only/bin.dat"], b"", 1)
golden("-c on a named binary file counts all its matching lines (memory-mapped: NUL is no line end)",
       ["-c", "foo", "bin/only/bin.dat"], b"3\n", 0)
golden("-l on a named binary file", ["-l", "foo", "bin/only/bin.dat"], b"bin/only/bin.dat\n", 0)
golden("a named file with a late NUL prints the lines before it, then the message",
       ["foo", "bin/late/late.dat"],
       b"foo first\nbinary file matches (found \"\\0\" byte around offset %d)\n" % LATE_NUL_OFFSET,
       0)
golden("--binary searches walked binary files like named ones", S + ["--binary", "foo", "bin/only"],
       b"bin/only/bin.dat: " + OFF11, 0)
golden("a walked binary file: the first read brings 3 bytes (BOM peek), so a line ending there "
       "is searched", S + ["ar", "bin/peek"],
       b"bin/peek/p.dat:ar\nbin/peek/p.dat: WARNING: stopped searching binary file after match "
       b"(found \"\\0\" byte around offset 5)\n", 0)
golden("--files-without-match drops a walked binary file, yet it makes the search succeed",
       S + ["--files-without-match", "zzz", "bin/only"], b"", 0)
golden("-c: named binary files among a directory are read, not mapped: NUL ends a line",
       S + ["-c", "foo", "bin/conv/c.dat", "bin/peek"], b"bin/conv/c.dat:3\n", 0)
golden("-c: a named binary file alone is mapped: NUL ends no line", ["-c", "foo", "bin/conv/c.dat"],
       b"2\n", 0)
golden("-a searches binary files as text", ["-a", "foo", "bin/only/bin.dat"], BINARY, 0)
golden("--binary after -a wins (rg 14 has one binary mode; the last flag sets it)",
       S + ["-a", "--binary", "foo", "bin/only"],
       b"bin/only/bin.dat: binary file matches (found \"\\0\" byte around offset 11)\n", 0)
golden("-a after --binary wins", S + ["--binary", "-a", "-c", "foo", "bin/only"],
       b"bin/only/bin.dat:3\n", 0)
golden("-uuu acts where it stands: a later -a wins", S + ["-uuu", "-a", "-c", "foo", "bin/only"],
       b"bin/only/bin.dat:3\n", 0)
golden("-u more than three times is a usage error", ["-uuuu", "foo"], b"", 2,
       [("line", "ctxsearch: error parsing flag -u: flag can only be repeated up to 3 times")])
golden("-S: class set operations are not literals (no literal: case-sensitive, as rg 14)",
       ["-S", "-c", "[\\p{Greek}--\\p{Lowercase}]", "u/greek.txt"], b"1\n", 0)
golden("-a -c on a walked binary file", S + ["-a", "-c", "foo", "bin/only"],
       b"bin/only/bin.dat:3\n", 0)
golden("a named file's NUL past 64 KiB in no reported line goes unnoticed (rg looks in each line "
       "it reports)", ["-n", "foo", "latequiet/q.dat"], b"1:foo first\n20003:foo after\n", 0)

@case
def stats_bytes_searched_where_the_search_stopped():
    """--stats' `bytes searched` is where ripgrep's searcher stood when -m stopped it: a walked
    file goes through the roll buffer, which had consumed nothing of its first round (0; the binary
    file there quits before its first round); a file named alone is memory-mapped and counts up
    to the end of the matching line (8 of d/a.txt)."""
    for args, want in ((["bin/mixed"], b"\n0 bytes searched\n"), (["d/a.txt"], b"\n8 bytes searched\n")):
        rc, out, _ = tree().run(["--color", "never", "--stats", "-m1", "foo"] + args)
        check(rc == 0 and want in out, "%r: rc=%d, stdout %r lacks %r" % (args, rc, out, want))


@case
def stats_bytes_searched_on_decoded_stdin():
    """--stats on a stdin stream that is decoded (a UTF-16 BOM, -E) counts the UTF-8 searched, as
    ripgrep's searcher sees it (12 bytes for 26 of UTF-16LE with its BOM); -m counts where the
    search stopped, as for files (0: ripgrep's roll buffer had consumed nothing of its round)."""
    u16 = "ab x\ncd\nx y\n".encode("utf-16le")
    for args, data, want in (([], b"\xff\xfe" + u16, 12), (["-E", "utf-16le"], u16, 12),
                             (["-m1"], b"\xff\xfe" + u16, 0), (["-m1"], b"ab x\ncd\nx y\n", 0)):
        rc, out, _ = tree().run(["--color", "never", "--stats", "x"] + args, stdin=data)
        line = b"\n%d bytes searched\n" % want
        check(rc == 0 and line in out, "%r: rc=%d, stdout %r lacks %r" % (args, rc, out, line))


@case
def stats_bytes_searched_under_passthru_on_a_named_binary_file():
    """--passthru makes ripgrep step line by line: on a memory-mapped binary file its printer
    stops after the first line it is handed (binary data was seen up front), and the bytes
    searched end there or at the NUL, whichever is first (rg 14.1.1's values)."""
    for args, want in ((["zz", "bin/conv/c.dat"], 5), (["-v", "foo", "bin/only/bin.dat"], 6)):
        rc, out, _ = tree().run(["--color", "never", "--stats", "--passthru"] + args)
        line = b"\n%d bytes searched\n" % want
        check(line in out, "%r: rc=%d, stdout %r lacks %r" % (args, rc, out, line))


@case
def stats_bytes_searched_behind_a_bom_follows_the_decoders_reads():
    """Behind a BOM ripgrep's reads differ: a UTF-8 BOM is peeked and dropped, so the first read
    is a whole one (not 3 bytes) and -m or --stop-on-nonmatch stopping in it leaves 0 searched;
    a UTF-16 file comes through its decoder 8 KiB of UTF-16 per read (one round each here).
    Expected values are rg 14.1.1's."""
    text = "".join("a%d\n" % i for i in range(4000))
    t = Tree({"u8/a.txt": b"\xef\xbb\xbfa\na\na\nb\n",
              "u16/w.txt": b"\xff\xfe" + text.encode("utf-16-le")})
    try:
        for args, want in ((["-m2", "a", "u8"], 0), (["--stop-on-nonmatch", "a", "u8"], 0),
                           (["-m1", "a", "u16"], 0), (["-m2000", "a", "u16"], 8190),
                           (["-m3000", "-A2", "a", "u16"], 16380)):
            rc, out, _ = t.run(["--color", "never", "--stats"] + args)
            line = b"\n%d bytes searched\n" % want
            check(rc == 0 and line in out, "%r: rc=%d, stdout %r lacks %r" % (args, rc, out, line))
    finally:
        t.close()


# \p{..} as ripgrep 14 reads it: Unicode 15 tables, folded under -i before \P negates (outputs
# from rg 14.1.1).
PROPS_ALL = b"1:a\n2:A\n3:k\n4:\xe2\x84\xaa\n5:\xce\xb1\n6:\xce\x91\n"
golden("-i \\p{Lu} matches lowercase letters too (Rust folds the class)",
       ["-n", "-i", "\\p{Lu}", "u/props.txt"], PROPS_ALL + b"8:\xe1\x8f\xb8\n", 0)
golden("-i \\P{Lu} is the complement of the folded class", ["-n", "-i", "\\P{Lu}", "u/props.txt"],
       b"7:1\n", 0)
golden("-i [^\\p{Lu}\\d] matches no letter and no digit",
       ["-n", "-i", "[^\\p{Lu}\\d]", "u/props.txt"], b"", 1)
golden("(?i) folds \\p{Ll}", ["-n", "(?i)\\p{Ll}", "u/props.txt"], PROPS_ALL + b"8:\xe1\x8f\xb8\n", 0)
golden("\\p{scx=Greek}: Script_Extensions", ["-n", "\\p{scx=Greek}", "u/props.txt"],
       b"5:\xce\xb1\n6:\xce\x91\n", 0)
golden("\\p{Age=1.1}: characters assigned by Unicode 1.1",
       ["-n", "\\p{Age=1.1}", "u/props.txt"], PROPS_ALL + b"7:1\n", 0)
golden("\\p{wb=ALetter}: a Word_Break value", ["-n", "\\p{wb=ALetter}", "u/props.txt"],
       PROPS_ALL + b"8:\xe1\x8f\xb8\n", 0)
golden("\\p{Age=NA} is an error naming the escape's offset", ["x\\p{Age=NA}", "u/props.txt"], b"", 2,
       [("line", "ctxsearch: regex parse error in 'x\\p{Age=NA}' at offset 1: "
                 "Unicode property value not found")])

golden("-P -S: an uppercase character right after a backslash does not count (\\S)",
       ["-P", "-S", "\\Sfoo", "pcase/case.txt"], b".FOO\nxfoo\n\\foo\n", 0)
golden("-P -S: other uppercase characters count, inside \\p{...} too (as rg 14)",
       ["-P", "-S", "\\p{Han}|\\Sfoo", "pcase/case.txt"], b"xfoo\n\\foo\n", 0)
golden("-S: Rust's inline flags (?U) and (?R) are no uppercase literals",
       ["-S", "-c", "(?U)foo|(?R)fo+", "pcase/case.txt"], b"3\n", 0)
golden("-P -S: an uppercase non-ASCII letter counts (Unicode's Uppercase: circled A)",
       ["-P", "-S", "\u24b6|\\Sfoo", "pcase/case.txt"], b"xfoo\n\\foo\n", 0)
golden("-P -S -F: every character counts", ["-P", "-S", "-F", "\\Foo", "pcase/case.txt"], b"", 1)


golden("-U -m with -A: later blocks print as matches while the after-context lasts",
       ["-U", "-A5", "-m2", "-n", "fo+\\n?", "mlm/b.txt"],
       b"1:foo\n2-bar\n3:foo\n4-x\n5:foo\n6:foo\n7-y\n8-z\n9:foo\n9-foo\n", 0)
golden("-U -m with -A: the line that ends the after-context prints twice (rg 14's quirk)",
       ["-U", "-A3", "-m2", "-n", "fo+\\n?", "mlm/b.txt"],
       b"1:foo\n2-bar\n3:foo\n4-x\n5:foo\n6:foo\n7-y\n7-y\n", 0)
golden("-U --passthru -m: the last block reaching the limit prints its first line again (rg 14)",
       ["-U", "--passthru", "-m4", "-n", "fo+\\n?", "mlm/b.txt"],
       b"1:foo\n2-bar\n3:foo\n4-x\n5:foo\n6:foo\n7-y\n8-z\n9:foo\n9-foo\n", 0)
golden("-U: a \\p{..} class holding the line feed (Assigned) lets a match span lines (rg 14)",
       ["-U", "-c", "\\p{Assigned}", "mlm/gap.txt"], b"5\n", 0)
# The empty match past the last line feed prints no line: no break before it unless its
# before-context prints (rg 14).
FILES["mlm/eof.txt"] = b"\ny\nw\nz\n"
golden("-U: the empty match at the end prints no break of its own", ["-U", "-n", "-A1", "^$",
       "mlm/eof.txt"], b"1:\n2-y\n", 0)
golden("-U: a break before that match's before-context", ["-U", "-n", "-B1", "^$", "mlm/eof.txt"],
       b"1:\n--\n4-z\n", 0)
golden("-U: one without it (Greek) does not", ["-U", "-c", "\\p{Greek}|a", "mlm/gap.txt"],
       b"1\n", 0)
golden("-U --passthru -m: a later block stops the search instead",
       ["-U", "--passthru", "-m3", "-n", "fo+\\n?", "mlm/b.txt"],
       b"1:foo\n2-bar\n3:foo\n4-x\n5:foo\n6:foo\n", 0)
golden("-P -w: marks and connector punctuation are word characters (rg 14's PCRE2 10.43)",
       ["-P", "-w", "-n", "a|c|d", "pw/w.txt"], "2:\u0301c d\n".encode(), 0)


# ----------------------------------------------------------------------------------------------
# --color always and --colors (expected outputs are rg 14's, byte for byte)
# ----------------------------------------------------------------------------------------------

def esc(*codes):
    return b"".join(b"\x1b[%sm" % c for c in codes)


R = esc(b"0")
golden("--color always: ripgrep's default colors", ["--color", "always", "-H", "-n", "foo",
                                                    "d/a.txt"],
       R + esc(b"35") + b"d/a.txt" + R + b":" + R + esc(b"32") + b"1" + R + b":" + R
       + esc(b"1", b"31") + b"foo" + R + b" one\n" + R + esc(b"35") + b"d/a.txt" + R + b":" + R
       + esc(b"32") + b"3" + R + b":" + R + esc(b"1", b"31") + b"foo" + R + b" two\n", 0)
golden("--colors: fg/bg by name, number, hex, RGB; styles bold, underline, intense; the column "
       "spec also colors byte offsets",
       ["--color", "always", "--colors", "match:fg:100", "--colors", "match:bg:1,2,0x3",
        "--colors", "match:style:intense", "--colors", "path:fg:red", "--colors", "path:bg:green",
        "--colors", "path:style:intense", "--colors", "path:style:underline", "--colors",
        "line:fg:+5", "--colors", "column:bg:white", "-H", "-n", "--column", "-b", "-m1", "foo",
        "d/a.txt"],
       R + esc(b"4", b"38;5;9", b"48;5;10") + b"d/a.txt" + R + b":" + R + esc(b"38;5;5") + b"1"
       + R + b":" + R + esc(b"47") + b"1" + R + b":" + R + esc(b"47") + b"0" + R + b":" + R
       + esc(b"1", b"38;5;100", b"48;2;1;2;3") + b"foo" + R + b" one\n", 0)
golden("--colors NAME:none clears a spec; an empty match spec prints matches plain",
       ["--color", "always", "--colors", "match:none", "--colors", "LINE:NONE", "--colors",
        "line:style:nobold", "-n", "-m1", "foo", "d/a.txt"],
       R + b"1" + R + b":foo one\n", 0)
golden("--colors with only intense left on the match spec still colors it (an empty escape)",
       ["--color", "always", "--colors", "match:none", "--colors", "match:style:intense", "-m1",
        "foo", "d/a.txt"], R + b"foo" + R + b" one\n", 0)
golden("--colors path applies to --files", ["--color", "always", "--colors", "path:fg:0x10",
                                            "--files", "d/sub"],
       R + esc(b"38;5;16") + b"d/sub/c.txt" + R + b"\n", 0)
golden("--colors path applies to -c",
       ["--color", "always", "--colors", "path:fg:cyan", "-H", "-c", "foo", "d/a.txt"],
       R + esc(b"36") + b"d/a.txt" + R + b":2\n", 0)
golden("--colors path colors the binary message's path",
       ["--color", "always", "--colors", "path:fg:cyan", "foo", "bin/only/bin.dat", "d/a.txt"],
       R + esc(b"36") + b"bin/only/bin.dat" + R + b": " + OFF11 + R + esc(b"36") + b"d/a.txt" + R
       + b":" + R + esc(b"1", b"31") + b"foo" + R + b" one\n" + R + esc(b"36") + b"d/a.txt" + R
       + b":" + R + esc(b"1", b"31") + b"foo" + R + b" two\n", 0)
golden("--colors is checked even without color", ["--colors", "match:fg:bogus", "foo", "d"], b"", 2,
       err=[("line", "ctxsearch: error parsing flag --colors: unrecognized color name 'bogus'. "
                     "Choose from: black, blue, green, red, cyan, magenta, yellow, white")])
for spec, message in (
        ("match:fg:256", "unrecognized ansi256 color number, should be '[0-255]' (or a hex "
                         "number), but is '256'"),
        ("line:fg:1,2", "unrecognized RGB color triple, should be '[0-255],[0-255],[0-255]' (or "
                        "a hex triple), but is '1,2'"),
        ("match:xx:red", "unrecognized spec type 'xx'. Choose from: fg, bg, style, none."),
        ("foo:fg:red", "unrecognized output type 'foo'. Choose from: path, line, column, match."),
        ("match:style:blink", "unrecognized style attribute 'blink'. Choose from: nobold, bold, "
                              "nointense, intense, nounderline, underline."),
        ("match:fg", "invalid color spec format: 'match:fg'. Valid format is "
                     "'(path|line|column|match):(fg|bg|style):(value)'.")):
    golden("--colors rejects %r as ripgrep does" % spec, ["--colors", spec, "foo", "d"], b"", 2,
           err=[("line", "ctxsearch: error parsing flag --colors: " + message)])
golden("--heading: no blank line before a binary message alone (ripgrep writes no heading "
       "there), one before the next heading",
       ["--heading", "-j1", "foo", "d/a.txt", "bin/only/bin.dat", "d/crlf.txt"],
       b"d/a.txt\nfoo one\nfoo two\nbin/only/bin.dat: " + OFF11 + b"\nd/crlf.txt\nfoo\r\n", 0)


@case
def heading_with_threads_separates_every_file():
    """--heading with several threads: ripgrep's buffer writer puts a blank line before every
    file's output, a binary message alone included (files in either order)."""
    rc, out, _ = tree().run(["--color", "never", "--heading", "-j2", "foo", "d/a.txt",
                             "bin/only/bin.dat"])
    a, b = b"d/a.txt\nfoo one\nfoo two\n", b"bin/only/bin.dat: " + OFF11
    check(rc == 0 and out in (a + b"\n" + b, b + b"\n" + a), "rc=%d stdout=%r" % (rc, out))


# ----------------------------------------------------------------------------------------------
# -U/--multiline, --max-columns, --trim, --stats (expected outputs are rg 14's; rg 13 agrees on
# all of these except the error's "rg: " prefix)
# ----------------------------------------------------------------------------------------------

ML = {"m/a.txt": b"foo\nbar baz\nfoo bar\nqux\nfoo\n  indented foo\nbarx\n"}
NL_ERROR = [("line", 'ctxsearch: the literal "\\n" is not allowed in a regex')]


def golden_ml(name, args, out, rc, err=None, stdin=None):
    golden(name, args, out, rc, err, stdin=stdin)


FILES.update(ML)
golden_ml("a \\n in a pattern without -U is an error naming the fix", ["foo\\nbar", "m/a.txt"],
          b"", 2, NL_ERROR)
golden_ml("\\x0A is a literal line feed too", ["o\\x0Ab", "m/a.txt"], b"", 2, NL_ERROR)
golden_ml("\\u000A, \\u{a} and \\U0000000A are literal line feeds too",
          ["-e", "o\\u000Ab", "m/a.txt"], b"", 2, NL_ERROR)
golden_ml("\\u{a} in a class alone is a literal line feed", ["[\\u{a}]", "m/a.txt"], b"", 2,
          NL_ERROR)
golden_ml("\\U0000000A is a literal line feed", ["o\\U0000000Ab", "m/a.txt"], b"", 2, NL_ERROR)
golden("--crlf: \\u000D is a literal \\r", ["--crlf", "a\\u000Db", "cr/a.txt"], b"", 2,
       [("line", "ctxsearch: the literal \"\\r\" is not allowed in a regex")])
golden_ml("-P allows \\n without -U (no line holds one)", ["-P", "foo\\nbar", "m/a.txt"], b"", 1)
# -P without -U: each line is PCRE2's whole subject, its terminator cut (rg's line-by-line search),
# so lookaround, \A \z \Z \G, verbs and (?-m) see no neighbouring line.
FILES["pl/la.txt"] = b"foo\nbar\n"
for pattern, out in (("foo(?!\\s)", b"1:foo\n"), ("(?<!\\s)bar", b"2:bar\n"),
                     ("\\Abar", b"2:bar\n"), ("foo\\z", b"1:foo\n"), ("foo\\Z", b"1:foo\n"),
                     ("\\Gbar", b"2:bar\n"), ("(?-m)^bar", b"2:bar\n"), ("(?^)^bar", b"2:bar\n"),
                     ("o\\s(*COMMIT)x|o", b"1:foo\n"), ("(*pla:o$)o", b"1:foo\n"),
                     ("o(?=\\n)", b"")):
    golden("-P %s sees one line alone" % pattern, ["-P", "-n", pattern, "pl/la.txt"], out,
           0 if out else 1)
golden_ml("-U prints every line of a match", ["-U", "foo\\nbar", "m/a.txt"],
          b"foo\nbar baz\n  indented foo\nbarx\n", 0)
golden_ml("-U -n numbers each line of a match", ["-U", "-n", "o\\nb", "m/a.txt"],
          b"1:foo\n2:bar baz\n6:  indented foo\n7:barx\n", 0)
golden_ml("-U -o prints each line's part of a match", ["-U", "-o", "-n", "foo\\nbar", "m/a.txt"],
          b"1:foo\n2:bar\n6:foo\n7:bar\n", 0)
golden_ml("-U -c counts matches, not lines", ["-U", "-c", "o\\n", "m/a.txt"], b"3\n", 0)
golden_ml("-U --count-matches", ["-U", "--count-matches", "o\\nb", "m/a.txt"], b"2\n", 0)
golden_ml("-U --vimgrep prints one line per match, its first",
          ["-U", "--vimgrep", "o\\nb", "m/a.txt"], b"m/a.txt:1:3:foo\nm/a.txt:6:14:  indented foo\n",
          0)
golden_ml("-U --column gives the first match's column on every line of a block",
          ["-U", "--column", "foo\\nbar", "m/a.txt"], b"1:1:foo\n2:1:bar baz\n6:12:  indented foo\n7:12:barx\n", 0)
golden_ml("-U -b gives each line's offset", ["-U", "-b", "foo\\nbar", "m/a.txt"],
          b"0:foo\n4:bar baz\n28:  indented foo\n43:barx\n", 0)
golden_ml("-U -v prints the lines outside the matches", ["-U", "-v", "o\\nb", "m/a.txt"],
          b"foo bar\nqux\nfoo\n", 0)
golden_ml("-U -c -v counts no match in multiline mode (as rg)", ["-U", "-c", "-v", "o\\nb", "m/a.txt"],
          b"", 1)
golden_ml("matches on adjacent lines are one block", ["-U", "-n", "-A1", "x\\n|qux\\n", "m/a.txt"],
          b"4:qux\n5-foo\n--\n7:barx\n", 0)
golden_ml("-U -m 1 stops after one block", ["-U", "-n", "-m", "1", "o\\n", "m/a.txt"],
          b"1:foo\n", 0)
golden_ml("without --multiline-dotall '.' stops at a line end", ["-U", "-c", "foo.bar", "m/a.txt"],
          b"1\n", 0)
golden_ml("--multiline-dotall lets '.' cross lines", ["-U", "--multiline-dotall", "-n",
                                                       "qux.foo", "m/a.txt"],
          b"4:qux\n5:foo\n", 0)
golden_ml("-U with an anchor is multiline mode (-o of ^ prints nothing, as rg)",
          ["-U", "-o", "^", "m/a.txt"], b"", 0)
golden_ml("-U -r replaces across lines", ["-U", "-r", "<$0>", "o\\nb", "m/a.txt"],
          b"fo<o\nb>ar baz\n  indented fo<o\nb>arx\n", 0)
golden_ml("-r: a group the pattern lacks expands to nothing", ["-r", "<$1|${2}>", "ba(r|z)",
                                                                "m/a.txt"],
          b"<r|> <z|>\nfoo <r|>\n<r|>x\n", 0)
# grep-matcher's interpolate: `${` must close right after a non-empty run of [0-9A-Za-z_], or
# the '$' is literal (ctxsearch used to expand `${}` and `${a b}` to nothing).
golden("-r: `${}` and `${a b}` are literal", ["-r", "[${}|${na me}|${1}]", "(f)oo", "d/a.txt"],
       b"[${}|${na me}|f] one\n[${}|${na me}|f] two\n", 0)
golden("-r: `${1x` (unclosed) and `$` at the end are literal", ["-r", "${1x$", "foo", "d/a.txt"],
       b"${1x$ one\n${1x$ two\n", 0)
golden_ml("-M measures the replaced text without its line terminator",
          ["-M", "5", "-r", "[$0]", "qux", "m/a.txt"], b"[qux]\n", 0)
# Piped stdin is searched in pieces as it arrives: a -c/--count-matches -m limit reached in one
# piece held for the next ones (ctxsearch counted the next piece's lines too: 3).
golden("-c -m on piped stdin holds across its pieces", ["-c", "-m", "2", "main"], b"2\n", 0,
       stdin=b"main\nmain\n" + b"x\n" * 40000 + b"main\n")
golden("-U --count-matches -m counts the matches of each block (as rg 14's summary printer)",
       ["-U", "--count-matches", "-m", "2", "bar$"], b"2\n", 0, stdin=b"bar\nbar\n\nbar\n")
golden("-U: ^$ matches after the final line feed (an empty block: its before-context prints)",
       ["-U", "-B1", "^$"], b"barx\n", 1, stdin=b"foo\nbarx\n")
golden("-q overrides --files-without-match: exit 0 only when something matched",
       ["-q", "--files-without-match", "zzz"], b"", 1, stdin=b"foo\n")
golden_ml("-U -q -v: the lines of an inverted multiline search hold no match (as rg 14)",
          ["-U", "-q", "-v", "o\\nb", "m/a.txt"], b"", 1)

golden_ml("-M omits longer lines (the terminator counts)", ["-M", "10", "-n", "o", "m/a.txt"],
          b"1:foo\n3:foo bar\n5:foo\n6:[Omitted long matching line]\n", 0)
golden_ml("-M --max-columns-preview prints the start", ["-M", "8", "--max-columns-preview", "-n",
                                                         "bar", "m/a.txt"],
          b"2:bar baz\n3:foo bar\n7:barx\n", 0)
golden_ml("--max-columns-preview counts the matches left out",
          ["-M", "5", "--max-columns-preview", "--column", "o", "m/a.txt"],
          b"1:2:foo\n3:2:foo b [... 0 more matches]\n5:2:foo\n"
          b"6:13:  ind [... 2 more matches]\n", 0)
golden_ml("-U -r -M measures a replaced line with its terminator",
          ["-U", "-r", "$$", "-M8", "bar\\n?"], b"[Omitted long line with 1 matches]\n", 0,
          stdin=b"abc bar  x\nq\n")
golden_ml("-U -r -M: a line terminator the match took is not measured",
          ["-U", "-r", "$$", "-M5", "bar\\n?"], b"abc $\n", 0, stdin=b"abc bar\nq\n")
golden_ml("-M 0 means no limit", ["-M", "0", "-c", "o", "m/a.txt"], b"4\n", 0)
golden_ml("-M on context lines", ["-M", "5", "-B1", "qux", "m/a.txt"],
          b"[Omitted long context line]\nqux\n", 0)
golden_ml("--trim drops leading whitespace", ["--trim", "-n", "indented", "m/a.txt"],
          b"6:indented foo\n", 0)
golden_ml("--trim with -o trims each match", ["--trim", "-o", "\\s+ind", "m/a.txt"], b"ind\n", 0)

STATS_RE = (rb"(?m)^\d+\.\d{6} seconds( spent searching)?$", rb"T seconds\1")


def golden_stats(name, args, out, rc):
    """--stats: timings masked (the only numbers that are durations)."""

    def fn():
        import re
        rc_got, out_got, err_got = tree().run(["--color", "never"] + args)
        masked = re.sub(STATS_RE[0], STATS_RE[1], out_got)
        check(masked == out and rc_got == rc and not err_got.strip(),
              "`%s %s`:\n    expected rc=%d %r\n    got      rc=%d %r stderr=%r"
              % (PROG, " ".join(args), rc, out, rc_got, masked, err_got))

    fn.__name__ = name
    CASES.append(fn)


golden_stats("--stats prints rg's totals after the results", S + ["--stats", "foo", "d/sub", "d/b.txt"],
             b"d/sub/c.txt:x foo\n\n1 matches\n1 matched lines\n1 files contained matches\n"
             b"2 files searched\n18 bytes printed\n19 bytes searched\nT seconds spent searching\n"
             b"T seconds\n", 0)
golden_stats("--stats with -c prints no byte count", S + ["--stats", "-c", "o", "d/a.txt"],
             b"2\n\n6 matches\n2 matched lines\n1 files contained matches\n1 files searched\n"
             b"0 bytes printed\n20 bytes searched\nT seconds spent searching\nT seconds\n", 0)
golden_stats("--stats without a match", S + ["--stats", "zzz", "d/a.txt"],
             b"\n0 matches\n0 matched lines\n0 files contained matches\n1 files searched\n"
             b"0 bytes printed\n20 bytes searched\nT seconds spent searching\nT seconds\n", 1)
golden_stats("-q --stats still searches everything and prints the totals",
             S + ["-q", "--stats", "o", "d/a.txt"],
             b"\n6 matches\n2 matched lines\n1 files contained matches\n1 files searched\n"
             b"0 bytes printed\n20 bytes searched\nT seconds spent searching\nT seconds\n", 0)


# ----------------------------------------------------------------------------------------------
# rg 14 flags: --passthru, separators, --include-zero, --no-messages, -p, --sort-files,
# buffering, --path-separator, --stop-on-nonmatch, --engine, size limits, --debug
# ----------------------------------------------------------------------------------------------

# mlm/b.txt: 1 foo, 2 bar, 3 foo, 4 x, 5 foo, 6 foo, 7 y, 8 z, 9 foo
golden("--passthru prints the lines that do not match as context lines", ["--passthru", "-n",
       "foo", "d/a.txt"], b"1:foo one\n2-bar\n3:foo two\n", 0)
golden("--passthrough is --passthru", ["--passthrough", "bar", "d/a.txt"],
       b"foo one\nbar\nfoo two\n", 0)
golden("--passthru with -m stops printing at the last counted match", ["--passthru", "-m", "2",
       "foo", "mlm/b.txt"], b"foo\nbar\nfoo\n", 0)
golden("--passthru -v prints the matching lines as context", ["--passthru", "-v", "-n", "foo",
       "d/a.txt"], b"1-foo one\n2:bar\n3-foo two\n", 0)
golden("--passthru -o prints the other lines whole", ["--passthru", "-o", "fo+", "d/a.txt"],
       b"foo\nbar\nfoo\n", 0)
golden("--passthru prints a file without a match but exits 1 and writes no separators",
       ["--passthru", "--no-heading", "-H", "zzz", "d/a.txt", "d/b.txt"],
       b"d/a.txt-foo one\nd/a.txt-bar\nd/a.txt-foo two\nd/b.txt-nothing here\n", 1)
golden("--passthru -c counts matches only", ["--passthru", "-c", "foo", "mlm/b.txt"], b"5\n", 0)
golden("-A after --passthru replaces it", ["--passthru", "-A0", "-n", "x", "mlm/b.txt"],
       b"4:x\n", 0)
golden("--passthru after -C replaces it", ["-C1", "--passthru", "-n", "x", "mlm/b.txt"],
       b"1-foo\n2-bar\n3-foo\n4:x\n5-foo\n6-foo\n7-y\n8-z\n9-foo\n", 0)
golden("-A and -B win over -C whatever their order", ["-A0", "-C2", "-n", "x", "mlm/b.txt"],
       b"2-bar\n3-foo\n4:x\n", 0)

golden("--context-separator replaces -- and decodes escapes",
       ["-n", "-A1", "--context-separator", "@\\x40\\t", "-e", "bar", "-e", "z", "mlm/b.txt"],
       b"2:bar\n3-foo\n@@\t\n8:z\n9-foo\n", 0)
golden("--no-context-separator prints nothing between groups",
       ["-n", "-A1", "--no-context-separator", "-e", "bar", "-e", "z", "mlm/b.txt"],
       b"2:bar\n3-foo\n8:z\n9-foo\n", 0)
golden("--context-separator '' prints an empty line between groups",
       ["-A1", "--context-separator=", "-e", "bar", "-e", "z", "mlm/b.txt"],
       b"bar\nfoo\n\nz\nfoo\n", 0)
golden("--context-separator also separates files without headings",
       ["-A1", "--context-separator", "XX", "--no-heading", "foo", "d/a.txt", "d/sub/c.txt"],
       b"d/a.txt:foo one\nd/a.txt-bar\nd/a.txt:foo two\nXX\nd/sub/c.txt:x foo\n", 0)
golden("--no-context-separator leaves files unseparated without headings",
       ["-A1", "--no-context-separator", "--no-heading", "foo", "d/a.txt", "d/sub/c.txt"],
       b"d/a.txt:foo one\nd/a.txt-bar\nd/a.txt:foo two\nd/sub/c.txt:x foo\n", 0)
golden("--context-separator keeps the blank line between files under --heading",
       ["-A1", "--context-separator", "XX", "--heading", "foo", "d/a.txt", "d/sub/c.txt"],
       b"d/a.txt\nfoo one\nbar\nfoo two\n\nd/sub/c.txt\nx foo\n", 0)
golden("--field-match-separator and --field-context-separator separate the prefix fields",
       ["-n", "-b", "-A1", "-H", "--field-match-separator", "::",
        "--field-context-separator", "\\x2d>", "bar", "d/a.txt"],
       b"d/a.txt::2::8::bar\nd/a.txt->3->12->foo two\n", 0)
golden("--vimgrep -N drops the line number (an explicit flag wins, as rg)",
       ["--vimgrep", "-N", "o", "d/sub/c.txt"], b"d/sub/c.txt:4:x foo\nd/sub/c.txt:5:x foo\n", 0)
golden("-N before --vimgrep too", ["-N", "--vimgrep", "two", "d/a.txt"], b"d/a.txt:5:foo two\n", 0)
golden("--vimgrep --no-column drops the column", ["--vimgrep", "--no-column", "two", "d/a.txt"],
       b"d/a.txt:3:foo two\n", 0)


@case
def json_line_number_is_null_under_no_line_number():
    """As rg: --json -N gives every match and context message "line_number":null."""
    rc, out, err = tree().run(["--json", "-N", "-A1", "one", "d/a.txt"])
    msgs = [l for l in out.split(b"\n") if b'"type":"match"' in l or b'"type":"context"' in l]
    check(rc == 0 and len(msgs) == 2 and all(b'"line_number":null,' in m for m in msgs),
          "rc %d out %r err %r" % (rc, out, err))
    rc, out, err = tree().run(["--json", "one", "d/a.txt"])
    check(b'"line_number":1,' in out, "without -N: %r" % out)


golden("--field-match-separator applies to --vimgrep", ["--vimgrep", "--field-match-separator",
       "\\t", "two", "d/a.txt"], b"d/a.txt\t3\t5\tfoo two\n", 0)
golden("--field-match-separator leaves -c's separator alone", ["-c", "--field-match-separator",
       "::", "foo", "d/a.txt", "d/sub/c.txt"], b"d/a.txt:2\nd/sub/c.txt:1\n", 0)
golden("--field-match-separator keeps a backslash that starts no escape",
       ["-n", "--field-match-separator", "\\q", "two", "d/a.txt"], b"3\\qfoo two\n", 0)

golden("--include-zero prints -c counts of files without a match", S + ["-c", "--include-zero",
       "foo", "d"], b"d/a.txt:2\nd/b.txt:0\nd/call.c:1\nd/crlf.txt:1\nd/sub/c.txt:1\n", 0)
golden("--include-zero with --count-matches", S + ["--count-matches", "--include-zero", "one",
       "d/a.txt", "d/b.txt"], b"d/a.txt:1\nd/b.txt:0\n", 0)
golden("--include-zero alone with no match exits 1 but prints the zero", ["-c",
       "--include-zero", "zzz", "d/a.txt"], b"0\n", 1)
golden("--no-include-zero undoes --include-zero", S + ["-c", "--include-zero",
       "--no-include-zero", "one", "d/a.txt", "d/b.txt"], b"d/a.txt:1\n", 0)

golden("--no-messages hides a missing path's error but still exits 2",
       ["--no-messages", "one", "d/a.txt", "missing"], b"d/a.txt:foo one\n", 2)
golden("--messages undoes --no-messages", ["--no-messages", "--messages", "one", "d/a.txt",
       "missing"], b"d/a.txt:foo one\n", 2, err=[("prefix", "ctxsearch: missing:")])
golden("an unreadable --ignore-file is a warning (exit 0), as rg 14", ["--ignore-file",
       "missing.ignore", "one", "d/a.txt"], b"foo one\n", 0,
       err=[("prefix", "ctxsearch: missing.ignore:")])
golden("--no-ignore-messages hides --ignore-file errors", ["--no-ignore-messages",
       "--ignore-file", "missing.ignore", "one", "d/a.txt"], b"foo one\n", 0)
golden("--no-messages also hides --ignore-file errors", ["--no-messages",
       "--ignore-file", "missing.ignore", "one", "d/a.txt"], b"foo one\n", 0)

golden("-p is --color always --heading --line-number", S + ["-p", "foo", "d/a.txt",
                                                                "d/sub/c.txt"],
       R + esc(b"35") + b"d/a.txt" + R + b"\n" + R + esc(b"32") + b"1" + R + b":" + R
       + esc(b"1", b"31") + b"foo" + R + b" one\n" + R + esc(b"32") + b"3" + R + b":" + R
       + esc(b"1", b"31") + b"foo" + R + b" two\n\n" + R + esc(b"35") + b"d/sub/c.txt" + R
       + b"\n" + R + esc(b"32") + b"1" + R + b":x " + R + esc(b"1", b"31") + b"foo" + R + b"\n",
       0)
golden("--sort-files sorts by path", ["--sort-files", "-l", "foo", "d"],
       b"d/a.txt\nd/call.c\nd/crlf.txt\nd/sub/c.txt\n", 0)
def has_birth_time(path):
    """Whether the file system of `path` keeps birth times (GNU stat's %W is 0 when it does not)."""
    try:
        out = subprocess.run(["stat", "-L", "-c", "%W", path], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=30).stdout.strip()
    except OSError:
        return None
    return None if not out.isdigit() else out != b"0"


@case
def sort_created_puts_files_without_birth_time_last():
    """--sort created: a file whose file system keeps no birth time (proc) has no creation time
    (Rust's created() fails without STATX_BTIME): rg 14 sorts it after the others, before them
    under --sortr (hiargs.rs, HiArgs::sort)."""
    proc = "/proc/sys/kernel/ostype"
    t = tree()
    if has_birth_time(proc) is not False or has_birth_time(t.p("d/b.txt")) is not True:
        raise Skip("needs a proc without birth times and a tree with them")
    for flag, want in (("--sort", b"d/b.txt\n" + proc.encode() + b"\n"),
                       ("--sortr", proc.encode() + b"\nd/b.txt\n")):
        for args in (["--files", flag, "created", proc, "d/b.txt"],
                     ["--files", flag, "created", "d/b.txt", proc]):
            rc, out, err = t.run(args)
            if IS_RG and rc == 2 and "isn't supported" in err:
                raise Skip("this rg has no creation times (a musl build): " + err.strip())
            check(rc == 0 and out == want, "%s: expected %r, got %r (rc %d, %r)"
                  % (" ".join(args), want, out, rc, err))


golden("--line-buffered prints the same lines", S + ["--line-buffered", "foo", "d"],
       b"d/a.txt:foo one\nd/a.txt:foo two\nd/call.c:call foo(x);\nd/crlf.txt:foo\r\n"
       b"d/sub/c.txt:x foo\n", 0)
golden("--block-buffered prints the same lines", ["--block-buffered", "-n", "foo", "d/a.txt"],
       b"1:foo one\n3:foo two\n", 0)

golden("--path-separator replaces / in printed paths", S + ["--path-separator", "\\\\", "foo",
       "d/sub", "d/a.txt"], b"d\\sub\\c.txt:x foo\nd\\a.txt:foo one\nd\\a.txt:foo two\n", 0)
golden("--path-separator applies to -l and --files", S + ["--path-separator", "+", "--files",
       "d/sub"], b"d+sub+c.txt\n", 0)
golden("--path-separator '' is the default", S + ["--path-separator", "", "-l", "x foo", "d"],
       b"d/sub/c.txt\n", 0)
golden("--path-separator must be one byte", ["--path-separator", "ab", "foo", "d"], b"", 2,
       err=[("prefix", "ctxsearch: invalid value 'ab' for --path-separator")])

golden("--stop-on-nonmatch stops at the first line that does not match after a match",
       ["--stop-on-nonmatch", "-n", "foo", "mlm/b.txt"], b"1:foo\n", 0)
golden("--stop-on-nonmatch prints that line as after-context",
       ["--stop-on-nonmatch", "-n", "-A2", "bar|x", "mlm/b.txt"], b"2:bar\n3-foo\n", 0)
golden("--stop-on-nonmatch counts only the first run", S + ["--stop-on-nonmatch", "-c", "foo",
       "d/a.txt", "mlm/b.txt"], b"d/a.txt:1\nmlm/b.txt:1\n", 0)
golden("--stop-on-nonmatch -v: ripgrep steps over the matching line that ends the first run",
       ["--stop-on-nonmatch", "-v", "-n", "foo", "mlm/b.txt"], b"2:bar\n4:x\n", 0)
golden("--stop-on-nonmatch -v -P stops at that line",
       ["--stop-on-nonmatch", "-v", "-P", "-n", "foo", "mlm/b.txt"], b"2:bar\n", 0)
golden("-U after --stop-on-nonmatch turns it off", ["--stop-on-nonmatch", "-U", "-c", "foo",
       "mlm/b.txt"], b"5\n", 0)
golden("--stop-on-nonmatch after -U turns multiline off", ["-U", "--stop-on-nonmatch",
       "foo\\n", "mlm/b.txt"], b"", 2, err="any")

golden("--engine auto uses PCRE2 for look-around", ["--engine", "auto", "foo(?= two)",
       "d/a.txt"], b"foo two\n", 0)
golden("--auto-hybrid-regex is --engine auto", ["--auto-hybrid-regex", "(o)\\1", "d/a.txt"],
       b"foo one\nfoo two\n", 0)
golden("--engine pcre2 is -P", ["--engine", "pcre2", "-o", "(?<=foo )t\\w+", "d/a.txt"],
       b"two\n", 0)
golden("--engine auto still reports a pattern neither engine takes", ["--engine", "auto", "(",
       "d/a.txt"], b"", 2, err="any")
golden("--engine rejects an unknown engine", ["--engine", "fast", "foo", "d/a.txt"], b"", 2,
       err=[("prefix", "ctxsearch: invalid value 'fast' for --engine")])
golden("--regex-size-limit and --dfa-size-limit take rg's sizes", ["--regex-size-limit", "10M",
       "--dfa-size-limit", "1G", "two", "d/a.txt"], b"foo two\n", 0)
golden("--regex-size-limit rejects a lowercase suffix as rg", ["--regex-size-limit", "10m",
       "two", "d/a.txt"], b"", 2, err=[("prefix", "ctxsearch: invalid value '10m'")])
golden("--dfa-size-limit rejects a bare suffix", ["--dfa-size-limit", "K", "two", "d/a.txt"],
       b"", 2, err="any")
# rg's regex size limit: regex-automata's NFA of x{n} takes 32 bytes a copy, 200 more in all
SIZE_ERROR = [("line", "ctxsearch: compiled regex exceeds size limit of 10000")]
golden("--regex-size-limit: x{306} fits in 10000 bytes", ["--regex-size-limit", "10000", "-c",
       "x{306}"], b"", 1, stdin=b"x\n")
golden("--regex-size-limit: x{307} exceeds it, as rg", ["--regex-size-limit", "10000", "-c",
       "x{307}"], b"", 2, SIZE_ERROR, stdin=b"x\n")
golden("--regex-size-limit: a Unicode class costs its UTF-8 automaton (\\d{22} exceeds 100000)",
       ["--regex-size-limit", "100000", "-c", "\\d{22}"], b"", 2,
       [("line", "ctxsearch: compiled regex exceeds size limit of 100000")], stdin=b"x\n")
golden("--regex-size-limit: \\d{21} fits in 100000", ["--regex-size-limit", "100000", "-c",
       "\\d{21}"], b"", 1, stdin=b"x\n")
golden("--regex-size-limit: -P has none", ["-P", "--regex-size-limit", "10000", "-c", "x{307}"],
       b"", 1, stdin=b"x\n")
golden("--debug writes to stderr only", ["--debug", "two", "d/a.txt"], b"foo two\n", 0,
       err="any")
golden("--trace writes to stderr only", ["--trace", "-c", "two", "d/a.txt"], b"1\n", 0,
       err="any")


@case
def pcre2_version_names_the_version_and_the_jit():
    import re
    rc, out, err = tree().run(["--pcre2-version"])
    check(rc == 0 and re.fullmatch(rb"PCRE2 \d+\.\d+ is available \(JIT is (un)?available\)\n",
                                   out) is not None,
          "--pcre2-version: rc=%d out=%r err=%r" % (rc, out, err))


@case
def path_separator_leaves_json_paths_alone():
    rc, out, err = tree().run(["--path-separator", "+", "--json", "x foo", "d/sub"])
    check(rc == 0 and b'{"type":"begin","data":{"path":{"text":"d/sub/c.txt"}}}\n' in out
          and b"d+sub" not in out, "--path-separator --json: rc=%d out=%r" % (rc, out[:300]))


@case
def line_buffered_stdin_lines_arrive_before_the_input_ends():
    # A pipe that stays open: each matching line must be printed as soon as it is read.
    p = subprocess.Popen([CTX, "--line-buffered", "foo"], cwd=tree().root, env=tree().env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        p.stdin.write(b"foo 1\nbar\n")
        p.stdin.flush()
        got = []
        timer = threading.Timer(20, p.kill)
        timer.start()
        got.append(p.stdout.readline())
        timer.cancel()
        check(got == [b"foo 1\n"], "first line before the input ended: %r" % got)
    finally:
        p.stdin.close()
        p.wait(timeout=TIMEOUT)


@case
def block_buffered_output_still_arrives_while_the_input_stays_open():
    # stdout is a pipe, so output is block buffered; a match must still be written within the
    # flush delay (0.1 s), not held until 64 KiB gather or the input ends.
    if IS_RG:
        raise Skip("ctxsearch's own: rg holds stdin's output while its buffer has room")
    for flags in ([], ["--block-buffered"]):
        p = subprocess.Popen([CTX] + flags + ["foo"], cwd=tree().root, env=tree().env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            p.stdin.write(b"foo 1\nbar\n")
            p.stdin.flush()
            timer = threading.Timer(20, p.kill)
            timer.start()
            got = p.stdout.readline()
            timer.cancel()
            check(got == b"foo 1\n", "%s: first line before the input ended: %r" % (flags, got))
        finally:
            p.stdin.close()
            p.wait(timeout=TIMEOUT)


@case
def block_buffered_output_is_written_before_a_later_files_error():
    # `2>&1` sees the files in order: a's match, b's error, c's match (stdout is block buffered,
    # so what it holds is written before an error goes to stderr).
    if IS_RG:
        raise Skip("ctxsearch's own: single-threaded rg prints the error before a's buffered line")
    t = Tree({"a": b"foo a\n", "b": b"foo b\n", "c": b"foo c\n",
              "pre.sh": b'#!/bin/sh\ncase "$1" in *b) echo bad >&2; exit 3;; esac\ncat "$1"\n'})
    try:
        os.chmod(t.p("pre.sh"), 0o755)
        for order in (["--sort", "path"], ["--sort", "path", "-j1"]):
            p = subprocess.run([CTX, "--no-heading", "--pre", t.p("pre.sh"), "-g", "!pre.sh"] +
                               order + ["foo"], cwd=t.root, env=t.env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=TIMEOUT)
            lines = [l for l in p.stdout.split(b"\n") if l.startswith((b"a:", b"c:", PROG.encode() + b": b:"))]
            want = [b"a:foo a", PROG.encode() + b": b:", b"c:foo c"]
            check(p.returncode == 2 and len(lines) == 3 and
                  all(l.startswith(w) for l, w in zip(lines, want)),
                  "%s: rc=%d out=%r" % (order, p.returncode, p.stdout))
    finally:
        t.close()


# ----------------------------------------------------------------------------------------------
# -z/--search-zip and --pre/--pre-glob: programs whose output is searched
# ----------------------------------------------------------------------------------------------

def zip_tree():
    import bz2
    import gzip
    import lzma
    return Tree({
        "z/a.gz": gzip.compress(b"foo gz\nbar\n", mtime=0),
        "z/b.bz2": bz2.compress(b"foo bz\n"),
        "z/c.xz": lzma.compress(b"foo xz\n"),
        "z/d.lzma": lzma.compress(b"foo lzma\n", format=lzma.FORMAT_ALONE),
        "z/bad.gz": b"not gzip foo\n",
        "z/p.txt": b"plain foo\n",
        "up.sh": b"#!/bin/sh\necho \"pre: $1\"\ntr a-z A-Z\n",
    })


def need_programs(*names):
    missing = [n for n in names if shutil.which(n) is None]
    if missing:
        raise Skip("not on PATH: " + ", ".join(missing))


def run_in(t, args, stdin=None):
    rc, out, err = t.run(["--color", "never"] + args, stdin=stdin)
    return rc, out, err.replace(PROG + ":", "ctxsearch:")


@case
def search_zip_searches_compressed_files_through_their_decompressors():
    need_programs("gzip", "bzip2", "xz")
    t = zip_tree()
    try:
        rc, out, err = run_in(t, ["-z", "--sort", "path", "-n", "foo", "z"])
        check(out == b"z/a.gz:1:foo gz\nz/b.bz2:1:foo bz\n"
              b"z/c.xz:1:foo xz\nz/d.lzma:1:foo lzma\nz/p.txt:1:plain foo\n" and rc == 2,
              "-z: rc=%d out=%r err=%r" % (rc, out, err))
        # bad.gz is not gzip data: gzip's complaint between lines of dashes, as rg shows it
        # (its output, nothing, is what was searched).
        check(("ctxsearch: z/bad.gz: \n" + "-" * 79 + "\ngzip: z/bad.gz: not in gzip format\n"
               + "-" * 79) in err or IS_RG, "-z error: %r" % err)
        rc, out, err = run_in(t, ["--sort", "path", "-c", "foo", "z"])
        check(out == b"z/bad.gz:1\nz/p.txt:1\n" and rc == 0,
              "without -z compressed files are binary: rc=%d out=%r" % (rc, out))
        rc, out, err = run_in(t, ["-z", "--no-search-zip", "--sort", "path", "-c", "foo", "z"])
        check(out == b"z/bad.gz:1\nz/p.txt:1\n", "--no-search-zip: %r" % out)
        rc, out, err = run_in(t, ["-z", "foo"], stdin=gzip_bytes())
        check(rc == 1 and out == b"", "-z leaves stdin alone: rc=%d out=%r" % (rc, out))
    finally:
        t.close()


def gzip_bytes():
    import gzip
    return gzip.compress(b"foo\n", mtime=0)


@case
def pre_searches_a_preprocessors_output():
    t = zip_tree()
    try:
        os.chmod(t.p("up.sh"), 0o755)
        # (Text files only: where rg notices binary data in a pipe depends on how the writes
        # arrive; ctxsearch reads the output whole first.)
        rc, out, err = run_in(t, ["--pre", "./up.sh", "--sort", "path", "-n", "pre|FOO",
                                  "z/bad.gz", "z/p.txt"])
        check(rc == 0 and out == b"z/bad.gz:1:pre: z/bad.gz\nz/bad.gz:2:NOT GZIP FOO\n"
              b"z/p.txt:1:pre: z/p.txt\nz/p.txt:2:PLAIN FOO\n",
              "--pre: rc=%d out=%r err=%r" % (rc, out, err))
        rc, out, err = run_in(t, ["--pre", "./up.sh", "--pre-glob", "*.txt", "--sort", "path",
                                  "-c", "PLAIN|foo", "z"])
        check(rc == 0 and out == b"z/bad.gz:1\nz/p.txt:1\n",
              "--pre-glob: rc=%d out=%r err=%r" % (rc, out, err))
        rc, out, err = run_in(t, ["--pre", "./up.sh", "--pre-glob", "!*.txt", "-c", "plain",
                                  "z/p.txt"])
        check(rc == 0 and out == b"1\n", "--pre-glob !: rc=%d out=%r err=%r" % (rc, out, err))
        rc, out, err = run_in(t, ["--pre", "./up.sh", "--no-pre", "-c", "plain", "z/p.txt"])
        check(rc == 0 and out == b"1\n", "--no-pre: rc=%d out=%r" % (rc, out))
        rc, out, err = run_in(t, ["--pre", "./up.sh", "PLAIN"], stdin=b"plain\n")
        check(rc == 1 and out == b"", "--pre leaves stdin alone: rc=%d out=%r" % (rc, out))
        rc, out, err = run_in(t, ["--pre", "./no-such-program", "foo", "z/p.txt"])
        check(rc == 2 and out == b"" and (IS_RG or "ctxsearch: z/p.txt: preprocessor command "
                                          "could not start: '\"./no-such-program\" \"z/p.txt\"':"
                                          in err), "--pre missing: rc=%d err=%r" % (rc, err))
        rc, out, err = run_in(t, ["--pre", "false", "foo", "z/p.txt"])
        check(rc == 2 and out == b"" and (IS_RG or err == "ctxsearch: z/p.txt: preprocessor "
                                          "command failed: '\"false\" \"z/p.txt\"': "
                                          "<stderr is empty>\n"),
              "--pre failing: rc=%d err=%r" % (rc, err))
    finally:
        t.close()


@case
def walk_errors_come_in_the_order_of_a_one_thread_walk():
    # rg walks sorted searches on one thread: roots in the order given (--sortr path too: it
    # collects in that order, then sorts), and -q stops at the first match, so nothing after it
    # is reported (ctxsearch reported missing roots first, and the ordered search let the walk's
    # errors past the match through).
    t = Tree({"a/x.txt": b"foo\n", "b/y.txt": b"foo\n"})
    try:
        os.symlink("..", t.p("b/loop"))
        loop = "ctxsearch: File system loop found: b/loop/b/loop points to an ancestor b/loop\n"
        nope = ("ctxsearch: %s: IO error for operation on %s: No such file or directory "
                "(os error 2)\n")
        rc, out, err = run_in(t, ["-L", "--sortr", "path", "-c", "foo", "nope", "b", "nope2"])
        check(rc == 2 and (IS_RG or err == nope % ("nope", "nope") + loop +
                           nope % ("nope2", "nope2")),
              "--sortr path: rc=%d err=%r" % (rc, err))
        rc, out, err = run_in(t, ["-q", "-L", "--sort", "path", "foo", "a", "b"])
        check(rc == 0 and out == b"" and err == "", "-q --sort path: rc=%d err=%r" % (rc, err))
    finally:
        t.close()


@case
def a_failing_pre_program_is_reported_where_ripgrep_reads_its_end():
    # rg's CommandReader: the read of the end of the output fails (rg's search of the file fails:
    # its lines stay printed, its -c count, --json end message, --stats share and match do not);
    # a search that stopped before that end (-l, -q, -m) closes the program instead, whose failure
    # is then shown without the command (only when it wrote on stderr).
    t = Tree({"a.txt": b"foo one\nbar\nfoo two\n",
              "out-fail.sh": b'#!/bin/sh\ncat "$1"; echo bad >&2; exit 1\n',
              "quiet-fail.sh": b'#!/bin/sh\ncat "$1"; exit 1\n',
              "no-exec.sh": b"#!/bin/sh\ncat\n"})
    try:
        for f in ("out-fail.sh", "quiet-fail.sh"):
            os.chmod(t.p(f), 0o755)
        dashes = "-" * 79
        failed = ("ctxsearch: a.txt: preprocessor command failed: '\"./out-fail.sh\" "
                  "\"a.txt\"': \n%s\nbad\n%s\n" % (dashes, dashes))
        closed = "ctxsearch: a.txt: \n%s\nbad\n%s\n" % (dashes, dashes)
        cases = [
            (["foo"], 2, b"foo one\nfoo two\n", failed),
            (["-c", "foo"], 2, b"", failed),
            (["-q", "foo"], 2, b"", closed),
            (["-l", "foo"], 2, b"a.txt\n", closed),
            (["-m1", "foo"], 2, b"foo one\n", closed),
            (["--stats", "-c", "foo"], 2, None, failed),
        ]
        for args, want_rc, want_out, want_err in cases:
            rc, out, err = run_in(t, ["--pre", "./out-fail.sh"] + args + ["a.txt"])
            if want_out is None:  # --stats: the file counts for nothing
                ok = b"\n0 matches\n0 matched lines\n0 files contained matches\n0 files searched\n" \
                     b"0 bytes printed\n0 bytes searched\n" in out
            else:
                ok = out == want_out
            check(rc == want_rc and ok and (IS_RG or err == want_err),
                  "--pre failing after output %r: rc=%d out=%r err=%r" % (args, rc, out, err))
        # A failure without stderr is no error where the program is closed.
        rc, out, err = run_in(t, ["--pre", "./quiet-fail.sh", "-q", "foo", "a.txt"])
        check(rc == 0 and err == "", "--pre failing quietly, -q: rc=%d err=%r" % (rc, err))
        rc, out, err = run_in(t, ["--pre", "./quiet-fail.sh", "-c", "foo", "a.txt"])
        check(rc == 2 and out == b"" and (IS_RG or err.endswith("<stderr is empty>\n")),
              "--pre failing quietly, -c: rc=%d out=%r err=%r" % (rc, out, err))
        # A program that cannot be executed could not start (not: failed).
        rc, out, err = run_in(t, ["--pre", "./no-exec.sh", "foo", "a.txt"])
        check(rc == 2 and out == b"" and (IS_RG or err == "ctxsearch: a.txt: preprocessor command "
                                          "could not start: '\"./no-exec.sh\" \"a.txt\"': "
                                          "Permission denied (os error 13)\n"),
              "--pre not executable: rc=%d err=%r" % (rc, err))
    finally:
        t.close()


@case
def pre_and_search_zip_override_each_other():
    need_programs("gzip")
    t = zip_tree()
    try:
        os.chmod(t.p("up.sh"), 0o755)
        rc, out, err = run_in(t, ["--pre", "./up.sh", "-z", "-c", "foo", "z/a.gz"])
        check(rc == 0 and out == b"1\n", "-z after --pre: rc=%d out=%r err=%r" % (rc, out, err))
        rc, out, err = run_in(t, ["-z", "--pre", "./up.sh", "-c", "pre", "z/a.gz"])
        check(rc == 0 and out == b"1\n", "--pre after -z: rc=%d out=%r err=%r" % (rc, out, err))
    finally:
        t.close()


# ----------------------------------------------------------------------------------------------
# --generate: completions and the man page from the flag table
# ----------------------------------------------------------------------------------------------

def flag_table():
    """(long, short) of every flag, read from --help (generated from the same table)."""
    import re
    rc, out, _ = tree().run(["--help"])
    check(rc == 0, "--help exit %d" % rc)
    flags = []
    for line in out.decode().splitlines():
        m = re.match(r"^\s+(?:-(.), )?--([a-z0-9-]+)", line)
        if m:
            flags.append((m.group(2), m.group(1)))
    check(len(flags) > 50, "--help lists only %d flags" % len(flags))
    return flags


def generated(kind):
    rc, out, err = tree().run(["--generate", kind])
    check(rc == 0 and out and not err.strip(), "--generate %s: rc %d stderr %r" % (kind, rc, err))
    return out.decode()


@case
def generate_bash_lists_every_flag_and_parses():
    if IS_RG:
        raise Skip("ctxsearch's own flags")
    import re
    text = generated("complete-bash")
    words = set(re.split(r'[\s"|()]+', text))
    for long, short in flag_table():
        check("--" + long in words, "bash completion lacks --%s" % long)
        if short:
            check("-" + short in words, "bash completion lacks -%s" % short)
    with tempfile.NamedTemporaryFile("w", suffix=".bash") as f:
        f.write(text)
        f.flush()
        p = subprocess.run(["bash", "-n", f.name], stderr=subprocess.PIPE)
        check(p.returncode == 0, "bash -n: %r" % p.stderr)
        # Complete `--multi` in a real bash: the function must offer --multiline.
        script = ("source %s; COMP_WORDS=(ctxsearch --multi); COMP_CWORD=1; _ctxsearch; "
                  "printf '%%s\\n' \"${COMPREPLY[@]}\"" % f.name)
        p = subprocess.run(["bash", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        got = p.stdout.decode().split()
        check(sorted(got) == ["--multiline", "--multiline-dotall"], "completing --multi: %r %r"
              % (got, p.stderr))


@case
def generate_zsh_lists_every_flag():
    if IS_RG:
        raise Skip("ctxsearch's own flags")
    text = generated("complete-zsh")
    check(text.startswith("#compdef ctxsearch\n"), "no #compdef line")
    for long, short in flag_table():
        check("--%s" % long in text, "zsh completion lacks --%s" % long)
        if short:
            check("-%s" % short in text, "zsh completion lacks -%s" % short)
    if shutil.which("zsh"):
        with tempfile.NamedTemporaryFile("w", suffix=".zsh") as f:
            f.write(text)
            f.flush()
            p = subprocess.run(["zsh", "-n", f.name], stderr=subprocess.PIPE)
            check(p.returncode == 0, "zsh -n: %r" % p.stderr)
    else:
        print("    (zsh not installed: syntax not checked)")


@case
def generate_fish_lists_every_flag():
    if IS_RG:
        raise Skip("ctxsearch's own flags")
    text = generated("complete-fish")
    lines = text.splitlines()
    for long, short in flag_table():
        want = [l for l in lines if (" -l %s " % long) in l + " "]
        check(len(want) == 1, "fish: %d lines for --%s" % (len(want), long))
        if short:
            check(" -s %s " % short in want[0], "fish: -%s missing for --%s" % (short, long))
    check(all(l.startswith("complete -c ctxsearch ") for l in lines if l and l[0] != "#"),
          "fish: a line that is not a complete command")
    if shutil.which("fish"):
        with tempfile.NamedTemporaryFile("w", suffix=".fish") as f:
            f.write(text)
            f.flush()
            p = subprocess.run(["fish", "--no-execute", f.name], stderr=subprocess.PIPE)
            check(p.returncode == 0, "fish --no-execute: %r" % p.stderr)
    else:
        print("    (fish not installed: syntax not checked)")


@case
def generate_man_renders_with_every_flag():
    if IS_RG:
        raise Skip("ctxsearch's own flags")
    text = generated("man")
    check(text.startswith(".TH CTXSEARCH 1"), "no .TH header")
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS"):
        check(".SH %s\n" % section in text, "man page lacks section %s" % section)
    rendered = None
    if shutil.which("groff"):
        p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z"], input=text.encode(),
                           stderr=subprocess.PIPE)
        check(not p.stderr.strip(), "groff warnings: %r" % p.stderr[:400])
        p = subprocess.run(["groff", "-man", "-Tascii", "-P", "-cbou"], input=text.encode(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        rendered = p.stdout.decode(errors="replace")
    plain = rendered if rendered else text.replace("\\-", "-").replace("\\e", "\\")
    import re
    plain = re.sub(r"-\n\s*", "-", plain)  # words hyphenated across lines
    for long, short in flag_table():
        check("--" + long in plain, "man page lacks --%s" % long)
        if short:
            check("-" + short in plain, "man page lacks -%s" % short)


@case
def generate_rejects_an_unknown_kind():
    rc, out, err = tree().run(["--generate", "complete-tcsh"])
    check(rc == 2 and not out and err.strip(), "rc %d out %r err %r" % (rc, out, err))


# ----------------------------------------------------------------------------------------------
# output into a closed pipe
# ----------------------------------------------------------------------------------------------

BIG_LINES = 5_000_000


@case
def millions_of_matches_into_head_stops_early():
    """`ctxsearch foo big | head -1` and `cat big | ctxsearch foo | head -1`: one line, no hang,
    no message, exit 0/1/141. The file form must also stop soon after EPIPE: well under the time
    of the full search into /dev/null (best of three tries, as the machine may be busy)."""
    t = Tree({})
    try:
        with open(t.p("big.txt"), "wb") as f:
            f.write(b"foo matching line\n" * BIG_LINES)
        start = time.time()
        with open(os.devnull, "wb") as null:
            p = subprocess.run([CTX, "foo", "big.txt"], cwd=t.root, env=t.env, stdout=null,
                               stderr=subprocess.PIPE, timeout=TIMEOUT * 3)
        full = time.time() - start
        check(p.returncode == 0, "full run: rc %d stderr %r" % (p.returncode, p.stderr[:300]))
        line = b"foo matching line\n"
        begin = b'{"type":"begin","data":{"path":{"text":"big.txt"}}}\n'
        for what, cmd, want in (
                ("file", "%s foo big.txt | head -1", line),
                ("stdin", "cat big.txt | %s foo | head -1", line),
                # --json and context lines (--passthru) stop at EPIPE too, sorted or not
                ("file --json", "%s --json foo big.txt | head -1", begin),
                ("file --sort path --json", "%s --sort path --json foo big.txt | head -1", begin),
                ("file --passthru", "%s --passthru zzz big.txt | head -1", line),
                ("file --sort path", "%s --sort path foo big.txt | head -1", line)):
            best = None
            for _ in range(3):
                took = head_one(t, what, cmd, want)
                best = took if best is None else min(best, took)
                if what == "stdin" or took <= max(0.5, full * 0.5):
                    break
            print("    %s | head -1: %.2fs (full search into /dev/null: %.2fs)"
                  % (what, best, full))
            if what != "stdin":
                check(best <= max(0.5, full * 0.5), "`%s` took %.2fs, the full search %.2fs"
                      % (cmd % PROG, best, full))
    finally:
        t.close()


def head_one(t, what, cmd, want):
    """Runs `cmd` (a pipeline into head -1) and checks its output is `want`; returns the seconds
    taken."""
    start = time.time()
    try:
        q = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd % shell_quote(CTX)
                            + "; echo \" ${PIPESTATUS[*]}\" >&2"],
                           cwd=t.root, env=t.env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=TIMEOUT * 3)
    except subprocess.TimeoutExpired:
        raise AssertionError("%s: `%s` hung" % (what, cmd % PROG))
    took = time.time() - start
    check(q.stdout == want, "%s: stdout %r" % (what, q.stdout[:200]))
    err = q.stderr.decode(errors="replace")
    status = err.strip().splitlines()[-1].split() if err.strip() else []
    ctx_status = status[-2] if len(status) >= 2 else "?"
    # ctxsearch ends quietly on EPIPE: exit 0, 1 (what rg 14 does) or a SIGPIPE death (141)
    check(ctx_status in ("0", "1", "141"), "%s: ctxsearch exit status %s (%r)"
          % (what, ctx_status, err))
    noise = [l for l in err.splitlines()[:-1] if l.strip()]
    check(not noise, "%s: unexpected stderr %r" % (what, noise))
    return took


STREAM_BYTES = 64 << 20


def stream_to_a_reader_that_leaves(args, chunk, head=b"", want=b"foo matching line\n"):
    """Writes `head` then `chunk` repeatedly (up to STREAM_BYTES) to `ctxsearch ARGS` on stdin,
    reads its first output line and closes the pipe; returns the bytes written by then."""
    p = subprocess.Popen([CTX] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=tree().env, cwd=tree().root)
    written = [0]

    def writer():
        try:
            p.stdin.write(head)
            while written[0] < STREAM_BYTES:
                p.stdin.write(chunk)
                written[0] += len(chunk)
            p.stdin.close()
        except (BrokenPipeError, ValueError, OSError):
            pass

    th = threading.Thread(target=writer, daemon=True)
    th.start()
    try:
        first = p.stdout.readline()
        p.stdout.close()  # head -1 exits
        try:
            rc = p.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise AssertionError("`%s %s` did not end after its reader closed"
                                 % (PROG, " ".join(args)))
    finally:
        th.join(timeout=TIMEOUT)
        err = p.stderr.read().decode(errors="replace")
        p.stderr.close()
    check(first == want, "first line %r" % first)
    check(rc in (0, 1, -13), "exit status %d, stderr %r" % (rc, err))
    check(not err.strip(), "unexpected stderr %r" % err)
    print("    ctxsearch %s consumed %.1f MiB of the %d MiB stream"
          % (" ".join(args), written[0] / 2**20, STREAM_BYTES >> 20))
    check(written[0] <= STREAM_BYTES // 4, "ctxsearch read %.1f MiB of stdin before its first "
          "output line reached the reader (rg: a few hundred KiB)" % (written[0] / 2**20))


@case
def stdin_is_searched_as_it_arrives():
    """A 64 MiB stdin stream of matching lines whose reader closes after the first output line
    (`yes foo | ctxsearch foo | head -1`): ripgrep reads a few hundred KiB, fills its output
    buffer, hits EPIPE and exits; a searcher that reads all of stdin first takes the whole
    stream (and never ends on an endless one). The bytes ctxsearch consumed are counted."""
    stream_to_a_reader_that_leaves(["foo"], b"foo matching line\n" * 4096)


@case
def stdin_in_another_encoding_is_decoded_as_it_arrives():
    """The same with UTF-16 text on stdin, named by -E or by a BOM: it is decoded and searched
    as it arrives (ripgrep's decoder reads 8 KiB at a time), not read whole first."""
    chunk = ("foo matching line\n" * 4096).encode("utf-16le")
    stream_to_a_reader_that_leaves(["-E", "utf-16le", "foo"], chunk)
    stream_to_a_reader_that_leaves(["-n", "foo"], chunk, head=b"\xff\xfe",
                                   want=b"1:foo matching line\n")
    big = ("foo matching line\n" * 4096).encode("utf-16be")
    stream_to_a_reader_that_leaves(["-E", "utf-16be", "-b", "foo"], big,
                                   want=b"0:foo matching line\n")

@case
def stdin_with_context_lines_is_searched_as_it_arrives():
    """Context lines (-A, -B, -C, --passthru) do not make ctxsearch read stdin whole: the lines
    kept for -B and the after-context still due carry from piece to piece (as ripgrep's roll
    buffer keeps them), so `tail -f log | ctxsearch --line-buffered -C1 error` prints each group
    as it comes, and a reader that leaves ends the search."""
    stream_to_a_reader_that_leaves(["-A1", "foo"], b"foo matching line\n" * 4096)
    stream_to_a_reader_that_leaves(["-n", "-C2", "foo"], b"foo matching line\n" * 4096,
                                   want=b"1:foo matching line\n")
    stream_to_a_reader_that_leaves(["--passthru", "-B3", "foo"], b"foo matching line\n" * 4096)
    p = subprocess.Popen([CTX, "--line-buffered", "-n", "-C1", "error"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=tree().env,
                         cwd=tree().root)
    try:
        got = []
        for chunk, want in ((b"before\nan error\nafter\n", [b"1-before\n", b"2:an error\n"]),
                            (b"x\ny\nz\nerror 2\n", [b"3-after\n", b"--\n", b"6-z\n",
                                                        b"7:error 2\n"])):
            p.stdin.write(chunk)
            p.stdin.flush()
            for line in want:
                got.append(p.stdout.readline())  # blocks until printed: stdin is still open
            check(got[-len(want):] == want, "lines %r, expected %r" % (got[-len(want):], want))
        p.stdin.close()
        check(p.stdout.read() == b"", "more output at the end")
        check(p.wait(timeout=TIMEOUT) == 0, "exit status %s" % p.returncode)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        p.stdout.close()
        p.stderr.close()


# More than one read of a stdin stream (a pipe hands out 64 KiB at a time).
golden("stdin stream: -B and -A lines carry across reads",
       ["-n", "-B1", "-A1", "foo"], b"40000-a\n40001:foo\n40002-b\n", 0,
       stdin=b"a\n" * 40000 + b"foo\n" + b"b\n" * 40000)
golden("stdin stream: -m with -A prints the after-context from the next read (a matching line "
       "there as a match, as ripgrep)",
       ["-n", "-m1", "-A2", "foo"], b"40000:foo\n40001:foo\n40002-b\n", 0,
       stdin=b"a\n" * 39999 + b"foo\nfoo\nb\n" + b"foo\n" * 40000)
golden("stdin stream: -c -m 2 stops counting at 2 (a later read counted on)",
       ["-c", "-m", "2", "foo"], b"2\n", 0, stdin=b"foo\n" * 50000)

# ----------------------------------------------------------------------------------------------
# rg 14 flags: --crlf, --hyperlink-format / --hostname-bin, negations (expected: rg 14.1.1's)
# ----------------------------------------------------------------------------------------------

golden("--crlf: $ matches before CRLF and before a lone CR, printed lines end in CRLF",
       ["--crlf", "-n", "foo$", "cr/a.txt"], b"1:foo\r\n3:foo\rbaz\r\n5:last foo\r\n", 0)
golden("without --crlf $ does not match before a CR", ["-n", "foo$", "cr/a.txt"],
       b"5:last foo\n", 0)
golden("--no-crlf undoes --crlf", ["--crlf", "--no-crlf", "-n", "foo$", "cr/a.txt"],
       b"5:last foo\n", 0)
golden("--crlf: ^ matches after a lone CR", ["--crlf", "-o", "^baz", "cr/a.txt"], b"baz\r\n", 0)
golden("--crlf: ^$ matches a blank CRLF line, -c ends in CRLF", ["--crlf", "-c", "^$", "cr/a.txt"],
       b"1\r\n", 0)
golden("--crlf: a negated class never matches the CR", ["--crlf", "-o", "[^,]+", "cr/b.csv"],
       b"a\r\nb\r\n", 0)
golden("--crlf: . never matches the CR", ["--crlf", "-o", ".+", "cr/b.csv"], b"a,b\r\n", 0)
golden("--crlf: \\s never matches the CR", ["--crlf", "-o", "\\s$", "cr/a.txt"], b"", 1)
golden("--crlf: headings and context lines", ["--crlf", "-H", "-A1", "--heading", "bar",
                                              "cr/a.txt"],
       b"cr/a.txt\r\nbar x\r\nfoo\rbaz\r\n", 0)
golden("--crlf: -r -o replacements end in CRLF", ["--crlf", "-r", "X", "-o", "foo", "cr/a.txt"],
       b"X\r\nX\r\nX\r\n", 0)
golden("--crlf: a literal \\r is an error without -U", ["--crlf", "a\\rb", "cr/a.txt"], b"", 2,
       [("line", "ctxsearch: the literal \"\\r\" is not allowed in a regex")])
golden("--crlf: the patterns are one alternation, `-e a -e \\r` a class: no literal \\r error",
       ["--crlf", "-c", "-e", "a", "-e", "\\r"], b"1\r\n", 0, stdin=b"a\r\n")
golden("--crlf -P: no literal \\r error (PCRE2's patterns are not checked), as rg",
       ["--crlf", "-P", "-c", "a\\r"], b"", 1, stdin=b"a\r\n")
golden("--crlf: \\r{0} is empty: no literal \\r error", ["--crlf", "-c", "\\r{0}a"], b"1\r\n", 0,
       stdin=b"a\r\n")
golden("--crlf: the literal \\r error comes before the \\n one, as rg", ["--crlf", "a\\n\\r"], b"", 2,
       [("line", "ctxsearch: the literal \"\\r\" is not allowed in a regex")], stdin=b"a\r\n")
golden("--crlf -U: a match spans CRLF", ["--crlf", "-U", "-c", "foo\\r\\nbar", "cr/a.txt"],
       b"1\r\n", 0)
golden("--crlf -U: ^ never matches between a CR and its LF", ["--crlf", "-U", "-c", "^", "cr/a.txt"],
       b"6\r\n", 0)
golden("--crlf -U: $ never matches between a CR and its LF", ["--crlf", "-U", "-c", "$", "cr/a.txt"],
       b"5\r\n", 0)
golden("--crlf -U: a CR before a CRLF is not at a line end", ["--crlf", "-U", "-c", "\\r$",
                                                               "cr/a.txt"], b"", 1)
golden("--crlf -U -o: a whole CRLF line between anchors", ["--crlf", "-U", "-o", "-n", "^bar.*$",
                                                            "cr/a.txt"], b"2:bar x\r\n", 0)
golden("-w in byte mode backtracks into a shorter match whose boundaries hold",
       ["-w", "-o", "(?-u)[^a-z]+", "bytes/w.txt"], b",\n\xbf\n", 0)
golden("(?-m): $ is a line's end line by line", ["-n", "(?-m)o$", "anchors/m.txt"],
       b"3:foo two\n", 0)
golden("-U (?-m): $ is the buffer's end, past its last line feed",
       ["-U", "-c", "(?-m)o$", "anchors/m.txt"], b"", 1)
golden("-U (?-m): ^ is the buffer's start", ["-U", "-n", "(?-m)^foo", "anchors/m.txt"],
       b"1:foo one\n", 0)
golden("-U (?-m:..) only inside its group", ["-U", "-n", "(?-m:^bar)|two$", "anchors/m.txt"],
       b"3:foo two\n", 0)
golden("--crlf -x: a whole line between a CR and the CRLF", ["--crlf", "-x", "-c", "baz",
                                                              "cr/a.txt"], b"1\r\n", 0)
# rg's fast line search runs a regex that can match empty over its buffer: between a CRLF's CR and
# LF the half word boundaries (and \B) hold, so every CRLF line matches, with no match in it for
# the printer (which searches the line without its CRLF: -o prints it whole, --column omits it).
golden("--crlf -w: an empty match between a CR and its LF makes the line match",
       ["--crlf", "-n", "-w", "(foo)*", "cr/a.txt"],
       b"1:foo\r\n2:bar x\r\n3:foo\rbaz\r\n4:\r\n5:last foo\r\n", 0)
golden("--crlf -w -o: a line matched between its CR and LF alone prints whole",
       ["--crlf", "-o", "-w", "(foo)*", "cr/a.txt"], b"foo\r\nbar x\r\nfoo\r\n\r\nfoo\r\n", 0)
golden("--crlf -m -A: an after-context line matched between its CR and LF is a match",
       ["--crlf", "-n", "-m1", "-A1", "-w", "(foo)*", "cr/a.txt"], b"1:foo\r\n2:bar x\r\n", 0)
golden("--crlf --passthru searches each line alone: no match between a CR and its LF",
       ["--crlf", "--passthru", "-n", "-w", "(foo)*", "cr/a.txt"],
       b"1:foo\r\n2-bar x\r\n3:foo\rbaz\r\n4:\r\n5:last foo\r\n", 0)
golden("--crlf \\A: a haystack anchor makes rg search each line alone",
       ["--crlf", "-n", "-w", "\\A|(foo)*", "cr/a.txt"],
       b"1:foo\r\n3:foo\rbaz\r\n4:\r\n5:last foo\r\n", 0)
golden("--crlf -l ends paths in CRLF", ["--crlf", "-l", "foo", "cr"], b"cr/a.txt\r\n", 0)
golden("--crlf with colors: CRLF after the colored line",
       ["--crlf", "--color", "always", "foo", "cr/a.txt"],
       b"\x1b[0m\x1b[1m\x1b[31mfoo\x1b[0m\r\n\x1b[0m\x1b[1m\x1b[31mfoo\x1b[0m\rbaz\r\n"
       b"last \x1b[0m\x1b[1m\x1b[31mfoo\x1b[0m\r\n", 0)
# --null-data (expected: rg 14.1.1's, checked by eye)
golden("--null-data: lines end at NUL, numbered by NULs, printed with a NUL",
       ["--null-data", "-n", "foo", "nd/n1.dat"], b"1:foo\x003:foo bar\x005:last foo\x00", 0)
golden("--null-data: a line feed is inside a line", ["--null-data", "qux", "nd/n1.dat"],
       b"bar baz\nqux\x00", 0)
golden("--null-data: -c and -l end in NUL", ["--null-data", "-c", "foo", "nd/n1.dat"], b"3\x00", 0)
golden("--null-data -l", ["--null-data", "--sort", "path", "-l", "foo", "nd"],
       b"nd/n1.dat\x00nd/sep.dat\x00", 0)
golden("--null-data: context lines and the context separator end in NUL",
       ["--null-data", "-A1", "foo", "nd/sep.dat"], b"foo\x00a\x00--\x00foo\x00", 0)
golden("--null-data: an empty context line", ["--null-data", "-C1", "-n", "last", "nd/n1.dat"],
       b"4-\x005:last foo\x00", 0)
golden("--null-data: . does not match a line feed", ["--null-data", "-o", "bar.*", "nd/n1.dat"],
       b"bar baz\x00bar\x00", 0)
golden("--null-data: ^ matches the line, but rg's printer finds no match after a NUL (-o prints "
       "the line)", ["--null-data", "-o", "^b", "nd/n1.dat"], b"bar baz\nqux\x00", 0)
golden("--null-data: -x", ["--null-data", "-c", "-x", "qux", "nd/n1.dat"], b"1\x00", 0)
golden("--null-data: -b -o offsets", ["--null-data", "-b", "-o", "foo", "nd/n1.dat"],
       b"0:foo\x0016:foo\x0030:foo\x00", 0)
golden("--null-data: --vimgrep", ["--null-data", "--vimgrep", "bar", "nd/n1.dat"],
       b"nd/n1.dat:2:1:bar baz\nqux\x00nd/n1.dat:3:5:foo bar\x00", 0)
golden("--null-data: -r -o", ["--null-data", "-r", "X", "-o", "o+", "nd/n1.dat"],
       b"X\x00X\x00X\x00", 0)
@case
def null_data_json_lines_keep_their_nul():
    rc, out, err = tree().run(["--null-data", "--json", "qux", "nd/n1.dat"])
    want = (b'{"type":"match","data":{"path":{"text":"nd/n1.dat"},"lines":{"text":"bar baz\\nqux'
            b'\\u0000"},"line_number":2,"absolute_offset":4,"submatches":[{"match":{"text":"qux"},'
            b'"start":8,"end":11}]}}\n')
    check(rc == 0 and want in out and b'"matched_lines":1,"matches":1' in out,
          "--null-data --json: rc=%d out=%r err=%r" % (rc, out[:600], err))


# rg 14 bans a NUL from its default engine's patterns while binary detection is on (no line holds
# a NUL then: a search without the ban finds nothing)
NL_ERROR_ANY = [("line", 'ctxsearch: the literal "\\n" is not allowed in a regex')]
NUL_BAN = [("line", 'ctxsearch: pattern contains "\\0" but it is impossible to match'),
           ("line", "Consider enabling text mode with the --text flag (or -a for short). "
                    "Otherwise,"),
           ("line", "binary detection is enabled and matching a NUL byte is impossible.")]
golden("a pattern that must match a NUL is an error while binary detection is on",
       ["-c", "a\\x00"], b"", 2, NUL_BAN, stdin=b"a\x00b\n")
golden("the NUL ban: one branch, optional, in a class alone, \\u0000, with --binary or -uuu",
       ["--binary", "-c", "-e", "q", "-e", "z|[\\u0000]?"], b"", 2, NUL_BAN, stdin=b"a\x00b\n")
golden("the NUL ban comes before the literal \\n error", ["-c", "a\\x00\\n"], b"", 2, NUL_BAN,
       stdin=b"a\n")
golden("an alternation of single characters is a class: no NUL ban", ["-c", "a|\\x00"], b"1\n", 0,
       stdin=b"a\x00b\n")
golden("-e patterns are one alternation: no NUL ban, no literal \\n error",
       ["-c", "-e", "b", "-e", "\\x00", "-e", "\\n"], b"1\n", 0, stdin=b"b\n")
golden("(?x): spaces are no pieces, `a | \\n` is a class: no literal \\n error",
       ["-c", "(?x) a | \\n"], b"1\n", 0, stdin=b"a\n")
golden("(?x) with a counted \\w runs on the UTF-8 path (byte mode: too large)",
       ["-o", "(?x)(?:\\w+ \\s+){1,5} # words\n"], "héllo wörld \n".encode(), 0,
       stdin="héllo wörld x\n".encode())
golden("-i literals Hyperscan cannot fold (Cyrillic, k and s) beside plain ones: exact, each line once",
       ["-i", "-n", "-e", "значение", "-e", "mask", "-e", "plain"],
       "1:ЗНАЧЕНИЕ\n3:MA\u017f\u212a\n4:x PLAIN mask\n".encode(), 0,
       stdin="ЗНАЧЕНИЕ\nзначени\nMA\u017f\u212a\nx PLAIN mask\n".encode())
golden("-P \\R and \\X take a line's CR alone, as rg -P searches each line without its LF",
       ["-P", "-n", "-w", "-e", "\\R", "-e", "q\\X$"], b"1:a*\r\n2:b \r\n3:c|\r\n5:q\r\n", 0,
       stdin=b"a*\r\nb \r\nc|\r\nd\r\nq\r\n")
# Patterns that match in every line are decided without a search (PatternSet::every_line).
EVERY = b"one\n\n  three\r\nfour"
golden("-c '' counts lines, the last one without a line feed too", ["-c", ""], b"4\n", 0, stdin=EVERY)
golden("-c '^' and -c '$' count lines", ["-c", "-e", "^", "-e", "$"], b"4\n", 0, stdin=EVERY)
golden("-F -c '^' counts lines holding a caret", ["-F", "-c", "^"], b"1\n", 0, stdin=b"a^b\nc\n")
golden("-c '^$' counts empty lines only", ["-c", "^$"], b"1\n", 0, stdin=EVERY)
golden("-c 'x*' matches in every line", ["-c", "x*"], b"4\n", 0, stdin=EVERY)
golden("-v '' reports no line", ["-v", ""], b"", 1, stdin=EVERY)
golden("-n '' prints every line", ["-n", ""], b"1:one\n2:\n3:  three\r\n4:four\n", 0, stdin=EVERY)
golden("-c '' on an empty input: no line", ["-c", ""], b"", 1, stdin=b"")
golden("-c '' stops at a NUL in a file found by the walk", ["-c", "", "--sort", "path", "ev"], b"ev/text.txt:2\n", 0)
golden("14 copies of \\p{L} fit PCRE2: the class is shared (was 'too large'; rg 14 takes 300)",
       ["-o", "\\p{L}" * 14 + "|" + "\\p{Greek}" * 30], b"abcdefghijklmn\n", 0,
       stdin=b"1 abcdefghijklmnop\n")
golden("(?x) spaces inside \\x{..} and \\p {..}, as regex-syntax skips them",
       ["-c", "(?x)\\x{ 4 1 }|\\p {Gr eek}|\\u 0 0 4 2"], b"3\n", 0, stdin="A\nα\nB\nc\n".encode())
golden("(?i) makes a letter a class: the literal \\n error", ["(?i)a|\\n"], b"", 2, NL_ERROR_ANY,
       stdin=b"a\n")
golden("-S decides the case first: `A` stays a literal, `-e A -e \\n` a class",
       ["-S", "-c", "-e", "A", "-e", "\\n"], b"1\n", 0, stdin=b"A\n")
golden("-S with a lowercase letter folds it: the literal \\n error", ["-S", "-e", "a", "-e", "\\n"],
       b"", 2, NL_ERROR_ANY, stdin=b"a\n")
golden("\\n{1} is \\n: `\\n{1}|a` is a class", ["-c", "\\n{1}|a"], b"1\n", 0, stdin=b"a\n")
golden("\\n{0} is empty: no literal \\n error", ["-c", "a\\n{0}"], b"1\n", 0, stdin=b"a\n")
golden("\\x00{0} is empty: no NUL ban", ["-c", "a\\x00{0}"], b"1\n", 0, stdin=b"a\n")
golden("-a lifts the NUL ban", ["-a", "-c", "a\\x00"], b"1\n", 0, stdin=b"a\x00b\n")
golden("a class with a NUL among others is no NUL ban", ["-c", "[\\x00-\\x01]"], b"", 1,
       stdin=b"a\x00b\n")
golden("-P has no NUL ban", ["-P", "-c", "a\\x00"], b"", 1, stdin=b"a\x00b\n")
golden("--engine auto takes PCRE2 where the NUL ban refuses a pattern",
       ["--engine", "auto", "-c", "a\\x00"], b"", 1, stdin=b"a\x00b\n")
golden("a -f pattern holding a NUL byte is a plain literal: no NUL ban", ["-c", "-f", "nul.pat", "x.dat"],
       b"1\n", 0, stdin=None, cwd="fpat")
golden("-i reads that pattern as a regex: the NUL ban", ["-i", "-c", "-f", "nul.pat", "x.dat"],
       b"", 2, NUL_BAN, cwd="fpat")
golden("-F -i too", ["-F", "-i", "-c", "-f", "nul.pat", "x.dat"], b"", 2, NUL_BAN, cwd="fpat")
golden("a -f file with a meta character makes every pattern a regex: the NUL ban",
       ["-c", "-f", "nul.pat", "-f", "meta.pat", "x.dat"], b"", 2, NUL_BAN, cwd="fpat")
FILES.update({"fpat/nul.pat": b"a\x00b\n", "fpat/meta.pat": b"c.\n", "fpat/x.dat": b"a\x00b\n"})

# -f reads any file to its end (pipes, FIFOs, /dev/null) and `-` is stdin, as rg
golden("-f - reads the patterns from stdin", ["-f", "-", "d/a.txt"], b"bar\n", 0, stdin=b"bar\n")
golden("-f - with no path searches the cwd, not the consumed stdin",
       S + ["-f", "-"], b"a.txt:bar\ncrlf.txt:bar\r\n", 0, stdin=b"bar\n", cwd="d")
golden("-f /dev/null: no pattern, no match", ["-f", "/dev/null", "d/a.txt"], b"", 1)
# No pattern: nothing is searched (rg's matches_possible), whatever would print unmatched lines
# or files; a missing path is not even looked at.
for flags in (["-v"], ["--files-without-match"], ["--passthru"], ["-c", "--stats"]):
    golden("-f /dev/null with %s searches nothing" % " ".join(flags),
           flags + ["-f", "/dev/null", "d/a.txt", "no-such-path"], b"", 1)
# -e and -f patterns form one alternation in the order given, each pattern once (rg dedups them:
# a repeated named group is no error).
golden("-f before -e: the file's pattern is first in the alternation (-o: leftmost-first)",
       ["-o", "-f", "fpat/ab.pat", "-e", "a", "fpat/ab.txt"], b"ab\n", 0)
golden("-e before -f: -e's pattern first", ["-o", "-e", "a", "-f", "fpat/ab.pat", "fpat/ab.txt"],
       b"a\n", 0)
golden("a pattern given twice (a named group) is one pattern",
       ["-c", "-e", "(?P<n>a)", "-e", "(?P<n>a)", "fpat/ab.txt"], b"1\n", 0)
golden("the same pattern from -e and -f is one pattern",
       ["-c", "-e", "(?P<n>ab)", "-f", "fpat/named.pat", "fpat/ab.txt"], b"1\n", 0)
FILES.update({"fpat/ab.pat": b"ab\n", "fpat/ab.txt": b"xaby\n", "fpat/named.pat": b"(?P<n>ab)\n"})
golden("-F with a line feed in a pattern is rg's error, not a literal that never matches",
       ["-F", "-e", "a\nb", "d/a.txt"], b"", 2, NL_ERROR_ANY)
golden("-F with a line feed and --null-data is a literal", ["--null-data", "-c", "-F", "-e", "x\nq",
       "nd/n1.dat"], b"", 1)
golden("numeric flag values take one leading '+', as Rust parses them",
       ["-A", "+1", "-m", "+1", "foo", "d/a.txt"], b"foo one\nbar\n", 0)
golden("two leading '+' are an error", ["-A", "++1", "foo", "d/a.txt"], b"", 2, "any")
golden("-f - twice is an error", ["-f", "-", "-f", "-", "d/a.txt"], b"", 2,
       [("line", "ctxsearch: error reading -f/--file from stdin: stdin has already been consumed")],
       stdin=b"bar\n")
golden("-f - and the path - is an error", ["-f", "-", "d/a.txt", "-"], b"", 2,
       [("line", "ctxsearch: error: attempted to read patterns from stdin while also searching "
                 "stdin")], stdin=b"bar\n")
golden("-f of a directory names the read error as rg (no space)", ["-f", "d", "d/a.txt"], b"", 2,
       [("line", "ctxsearch: d:Is a directory (os error 21)")])
golden("-f lines end at \\n, which takes a \\r before it: an unterminated last line keeps its \\r (rg, "
       "bstr's for_byte_line)", ["-c", "-f", "-", "d/a.txt"], b"2\n", 0, stdin=b"foo\r\nbar\r")
golden("-f: a last line ending in \\r\\n loses both", ["-c", "-f", "-", "d/a.txt"], b"3\n", 0,
       stdin=b"foo\r\nbar\r\n")

# patterns and flag values that are not UTF-8: rg's errors
golden("a pattern that is not UTF-8 is rg's error", ["a\udcffb", "d/a.txt"], b"", 2,
       [("line", "ctxsearch: pattern given is not valid UTF-8")])
golden("an -e value that is not UTF-8 names the flag as given", ["-e\udcff", "d/a.txt"], b"", 2,
       [("line", "ctxsearch: error parsing flag -e: value is not valid UTF-8")])
golden("a -g value that is not UTF-8", ["--glob=\udcff", "foo", "d/a.txt"], b"", 2,
       [("line", "ctxsearch: error parsing flag --glob: value is not valid UTF-8")])
golden("a separator that is not UTF-8 is rg's separator error",
       ["--context-separator", "\udcff", "foo", "d/a.txt"], b"", 2,
       [("line", "ctxsearch: error parsing flag --context-separator: separator must be valid "
                 "UTF-8 (use escape sequences to provide a separator that is not valid UTF-8)")])
golden("a -f line that is not UTF-8 names the file, the line and the offset, escaped as rg",
       ["-f", "-", "d/a.txt"], b"", 2,
       [("line", "ctxsearch: <stdin>:2: found invalid UTF-8 in pattern at byte offset 3: "
                 "a\\0\\x20\\xFF~\\t\u00e9 (disable Unicode mode and use hex escape sequences to "
                 "match arbitrary bytes in a pattern, e.g., '(?-u)\\xFF')")],
       stdin=b"ok\na\x00 \xff~\t\xc3\xa9\n")


@case
def pattern_file_from_a_fifo():
    """`-f <(cmd)` and a named FIFO: the patterns are read as the writer sends them."""
    t = tree()
    fifo = os.path.join(t.tmp, "pats.fifo")
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: open(fifo, "wb").write(b"two\n"))
    writer.start()
    try:
        rc, out, err = t.run(["-f", fifo, "d/a.txt"])
    finally:
        writer.join(timeout=30)
        os.unlink(fifo)
    check(rc == 0 and out == b"foo two\n", "-f FIFO: rc=%d out=%r err=%r" % (rc, out, err))

golden("--null-data: a literal NUL is an error without -U", ["--null-data", "a\\x00b", "nd"],
       b"", 2, [("line", "ctxsearch: the literal \"\\0\" is not allowed in a regex")])
golden("--null-data -U: a match spans a NUL", ["--null-data", "-U", "-n", "o\\x00b", "nd/n1.dat"],
       b"1:foo\x002:bar baz\nqux\x00", 0)
golden("--null-data -U: a pattern that cannot match a NUL runs over rg's buffer: ^ matches where "
       "the search stands, not after a NUL", ["--null-data", "-U", "-c", "^f", "nd/sep.dat"], b"",
       1)
golden("--null-data -U: a walked file's buffer rounds start where ^ then matches",
       ["--null-data", "--sort", "path", "-U", "-c", "^f", "nd"],
       b"nd/n1.dat:1\x00nd/sep.dat:1\x00", 0)
golden("--null-data implies --text (a NUL is no binary data)",
       ["--null-data", "--sort", "path", "-c", "foo", "bin/mixed"],
       b"bin/mixed/bin.dat:2\x00bin/mixed/t.txt:1\x00",
       0)
golden("--null-data: UTF-16 is still transcoded", ["--null-data", "hi", "nd/u16.txt"],
       b"hi\n\x00", 0)
golden("--null-data --trim trims a leading line feed too", ["--null-data", "--trim", "x",
                                                           "nd/trim.dat"], b"x\x00", 0)
golden("--null-data from stdin", ["--null-data", "-n", "b"], b"2:b\x00", 0, stdin=b"a\x00b\x00")
# --null-data without -U, haystack anchors ((?-m)^ $, \A \z): rg's regex runs over its buffer
# (from where its search stands) unless grep-regex extracts inner literals to confirm lines alone.
golden("--null-data (?-m)$: only at the buffer's end (rg's regex runs over its buffer)",
       ["--null-data", "-n", "(?-m)foo$", "nd/n1.dat"], b"5:last foo\x00", 0)
golden("--null-data (?-m)$ -v: every record but the last", ["--null-data", "-n", "-v", "(?-m)foo$",
                                                          "nd/n1.dat"],
       b"1:foo\x002:bar baz\nqux\x003:foo bar\x004:\x00", 0)
golden("--null-data (?-m)$: a file ending in NUL has no match", ["--null-data", "-c", "(?-m)foo$",
                                                                "nd/sep.dat"], b"", 1)
golden("--null-data (?-m)^$: an empty pattern spoils inner literals: over the buffer",
       ["--null-data", "-n", "(?-m)^$|bar", "nd/n1.dat"], b"2:bar baz\nqux\x003:foo bar\x00", 0)
golden("--null-data (?-m)^foo: inner literals, each record alone",
       ["--null-data", "-n", "(?-m)^foo", "nd/n1.dat"], b"1:foo\x003:foo bar\x00", 0)
golden("--null-data (?-m)^$ --stop-on-nonmatch: each record alone after the first match",
       ["--null-data", "-n", "--stop-on-nonmatch", "(?-m)^$|foo"], b"1:foo\x002:\x00", 0,
       stdin=b"foo\x00\x00x\x00")
golden("--null-data (?-m)$ --passthru: each record alone",
       ["--null-data", "-n", "--passthru", "(?-m)foo$", "nd/n1.dat"],
       b"1:foo\x002-bar baz\nqux\x003-foo bar\x004-\x005:last foo\x00", 0)
golden("--crlf after --null-data wins", ["--null-data", "--crlf", "-c", "foo", "nd/n1.dat"],
       b"2\r\n", 0)
golden("--no-crlf leaves --null-data", ["--null-data", "--no-crlf", "-c", "foo", "nd/n1.dat"],
       b"3\x00", 0)
golden("--no-invert-match undoes -v", ["-v", "--no-invert-match", "-n", "foo", "cr/a.txt"],
       b"1:foo\r\n3:foo\rbaz\r\n5:last foo\n", 0)
golden("--no-byte-offset undoes -b", ["-b", "--no-byte-offset", "-n", "bar", "cr/a.txt"],
       b"2:bar x\r\n", 0)
golden("--ignore-file applies", S + ["--ignore-file", "ig/skip.ignore", "foo", "d"],
       b"d/call.c:call foo(x);\nd/crlf.txt:foo\r\nd/sub/c.txt:x foo\n", 0)
golden("--no-ignore-files drops --ignore-file",
       S + ["--ignore-file", "ig/skip.ignore", "--no-ignore-files", "-c", "foo", "d"],
       b"d/a.txt:2\nd/call.c:1\nd/crlf.txt:1\nd/sub/c.txt:1\n", 0)
golden("--ignore-files undoes --no-ignore-files",
       S + ["--ignore-file", "ig/skip.ignore", "--no-ignore-files", "--ignore-files", "-c", "foo",
            "d"], b"d/call.c:1\nd/crlf.txt:1\nd/sub/c.txt:1\n", 0)

# --hyperlink-format: rg 14's outputs with {R} for the tree root's absolute (percent-encoded) path,
# the host from --hostname-bin (a script printing "  build.host  ") and WSL_DISTRO_NAME=Deb.
HYPERLINK_CASES = [
    (["--hyperlink-format", "default", "-n", "foo", "hl"],
     b'\x1b]8;;file://build.host{R}/hl/a%20b.txt\x1b\\\x1b[0m\x1b[35mhl/a b.txt\x1b[0m:\x1b[0m'
     b'\x1b[32m1\x1b[0m\x1b]8;;\x1b\\:x \x1b[0m\x1b[1m\x1b[31mfoo\x1b[0m\n\x1b]8;;file://'
     b'build.host{R}/hl/c.txt\x1b\\\x1b[0m\x1b[35mhl/c.txt\x1b[0m:\x1b[0m\x1b[32m1\x1b[0m'
     b'\x1b]8;;\x1b\\:\x1b[0m\x1b[1m\x1b[31mfoo\x1b[0m\n'),
    (["--hyperlink-format", "vscode", "-A1", "foo", "hl"],
     b'\x1b]8;;vscode://file{R}/hl/a%20b.txt:1:3\x1b\\\x1b[0m\x1b[35mhl/a b.txt\x1b[0m\x1b]8;;'
     b'\x1b\\:x \x1b[0m\x1b[1m\x1b[31mfoo\x1b[0m\n\x1b]8;;vscode://file{R}/hl/a%20b.txt:1:1'
     b'\x1b\\\x1b[0m\x1b[35mhl/a b.txt\x1b[0m\x1b]8;;\x1b\\-bar\n--\n\x1b]8;;vscode://file{R}'
     b'/hl/c.txt:1:1\x1b\\\x1b[0m\x1b[35mhl/c.txt\x1b[0m\x1b]8;;\x1b\\:\x1b[0m\x1b[1m\x1b[31mfoo'
     b'\x1b[0m\n'),
    (["--hyperlink-format", "kitty", "--heading", "-n", "foo", "hl"],
     b'\x1b]8;;file://build.host{R}/hl/a%20b.txt#1\x1b\\\x1b[0m\x1b[35mhl/a b.txt\x1b[0m\x1b]8;;'
     b'\x1b\\\n\x1b]8;;file://build.host{R}/hl/a%20b.txt#1\x1b\\\x1b[0m\x1b[32m1\x1b[0m\x1b]8;;'
     b'\x1b\\:x \x1b[0m\x1b[1m\x1b[31mfoo\x1b[0m\n\n\x1b]8;;file://build.host{R}/hl/c.txt#1\x1b\\'
     b'\x1b[0m\x1b[35mhl/c.txt\x1b[0m\x1b]8;;\x1b\\\n\x1b]8;;file://build.host{R}/hl/c.txt#1'
     b'\x1b\\\x1b[0m\x1b[32m1\x1b[0m\x1b]8;;\x1b\\:\x1b[0m\x1b[1m\x1b[31mfoo\x1b[0m\n'),
    (["--hyperlink-format", "file", "--heading", "foo", "hl"],
     b'\x1b]8;;file://build.host{R}/hl/a%20b.txt\x1b\\\x1b[0m\x1b[35mhl/a b.txt\x1b[0m\x1b]8;;'
     b'\x1b\\\nx \x1b[0m\x1b[1m\x1b[31mfoo\x1b[0m\n\n\x1b]8;;file://build.host{R}/hl/c.txt\x1b\\'
     b'\x1b[0m\x1b[35mhl/c.txt\x1b[0m\x1b]8;;\x1b\\\n\x1b[0m\x1b[1m\x1b[31mfoo\x1b[0m\n'),
    (["--hyperlink-format", "grep+", "-c", "foo", "hl"],
     b'\x1b]8;;grep+://{R}/hl/a%20b.txt:1\x1b\\\x1b[0m\x1b[35mhl/a b.txt\x1b[0m\x1b]8;;\x1b\\:1\n'
     b'\x1b]8;;grep+://{R}/hl/c.txt:1\x1b\\\x1b[0m\x1b[35mhl/c.txt\x1b[0m\x1b]8;;\x1b\\:1\n'),
    (["--hyperlink-format", "macvim", "-l", "foo", "hl"],
     b'\x1b]8;;mvim://open?url=file://{R}/hl/a%20b.txt&line=1&column=1\x1b\\\x1b[0m\x1b[35mhl/a b'
     b'.txt\x1b[0m\x1b]8;;\x1b\\\n\x1b]8;;mvim://open?url=file://{R}/hl/c.txt&line=1&column=1'
     b'\x1b\\\x1b[0m\x1b[35mhl/c.txt\x1b[0m\x1b]8;;\x1b\\\n'),
    (["--hyperlink-format", "textmate", "--vimgrep", "foo", "hl/c.txt", "hl/a b.txt"],
     b'\x1b]8;;txmt://open?url=file://{R}/hl/c.txt&line=1&column=1\x1b\\\x1b[0m\x1b[35mhl/c.txt'
     b'\x1b[0m:\x1b[0m\x1b[32m1\x1b[0m:\x1b[0m1\x1b[0m\x1b]8;;\x1b\\:\x1b[0m\x1b[1m\x1b[31mfoo'
     b'\x1b[0m\n\x1b]8;;txmt://open?url=file://{R}/hl/a%20b.txt&line=1&column=3\x1b\\\x1b[0m'
     b'\x1b[35mhl/a b.txt\x1b[0m:\x1b[0m\x1b[32m1\x1b[0m:\x1b[0m3\x1b[0m\x1b]8;;\x1b\\:x \x1b[0m'
     b'\x1b[1m\x1b[31mfoo\x1b[0m\n'),
    (["--hyperlink-format", "vscode-insiders", "-o", "-b", "foo", "hl/c.txt"],
     b'\x1b[0m0\x1b[0m:\x1b[0m\x1b[1m\x1b[31mfoo\x1b[0m\n'),
    (["--hyperlink-format", "vscodium", "--files", "hl"],
     b'\x1b]8;;vscodium://file{R}/hl/a%20b.txt:1:1\x1b\\\x1b[0m\x1b[35mhl/a b.txt\x1b[0m\x1b]8;;'
     b'\x1b\\\n\x1b]8;;vscodium://file{R}/hl/c.txt:1:1\x1b\\\x1b[0m\x1b[35mhl/c.txt\x1b[0m\x1b]8;;'
     b'\x1b\\\n'),
    (["--hyperlink-format", "x://{host}/{wslprefix}{path}#{line}:{column}", "-H", "foo",
      "hl/c.txt"],
     b'\x1b]8;;x://build.host/wsl$/Deb{R}/hl/c.txt#1:1\x1b\\\x1b[0m\x1b[35mhl/c.txt\x1b[0m\x1b]8;;'
     b'\x1b\\:\x1b[0m\x1b[1m\x1b[31mfoo\x1b[0m\n'),
    (["--hyperlink-format", "none", "-H", "foo", "hl/c.txt"],
     b'\x1b[0m\x1b[35mhl/c.txt\x1b[0m:\x1b[0m\x1b[1m\x1b[31mfoo\x1b[0m\n'),
]


def uri_path(path):
    """rg's percent-encoding of a {path}."""
    keep = set(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz/:-._~")
    return b"".join(bytes([c]) if c in keep or c >= 128 else b"%%%02X" % c
                    for c in os.fsencode(path))


@case
def hyperlink_formats_print_rg14s_osc8_links_with_colors_on():
    t = tree()
    script = os.path.join(t.home, "hostname.sh")
    with open(script, "w") as f:
        f.write('#!/bin/sh\necho "  build.host  "\n')
    os.chmod(script, 0o755)
    root = uri_path(os.path.realpath(t.root))
    env = dict(t.env, WSL_DISTRO_NAME="Deb")
    for args, want in HYPERLINK_CASES:
        argv = [CTX, "--sort", "path", "--color", "always", "--hostname-bin", script] + args
        p = subprocess.run(argv, cwd=t.root, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
        want = want.replace(b"{R}", root)
        check(p.stdout == want and p.returncode == 0,
              "%s: expected %r, got rc=%d %r %r" % (args, want, p.returncode, p.stdout,
                                                    p.stderr[:300]))
        # Without colors (a pipe, --color never) there is no link at all.
        p = subprocess.run(argv[:3] + ["never"] + argv[5:], cwd=t.root, env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=TIMEOUT)
        check(b"\x1b" not in p.stdout, "%s --color never: %r" % (args, p.stdout))


golden("--hostname-bin that fails falls back to the system's name: no error",
       ["--hostname-bin", "/nonexistent/bin", "-c", "foo", "hl/c.txt"], b"1\n", 0)
for fmt_, why in [
        ("foo", "at least a {path} variable is required in a hyperlink format, or otherwise use "
                "a valid alias: default, file, grep+, kitty, macvim, none, textmate, vscode, "
                "vscode-insiders, vscodium"),
        ("x://{path", "unclosed variable: found '{' without a corresponding '}' following it"),
        ("x://{bad}", "invalid hyperlink format variable: 'bad', choose from: path, line, column, "
                      "host, wslprefix"),
        ("x://{line}", "the {path} variable is required in a hyperlink format"),
        ("{path}", "the hyperlink format must start with a valid URL scheme, i.e., "
                   "[0-9A-Za-z+-.]+:"),
        ("x}{path}", "unopened variable: found '}' without a corresponding '{' preceding it"),
        ("x://{path}:{column}", "the hyperlink format contains a {column} variable, but no "
                                "{line} variable is present"),
        ("x://{}{path}", "invalid hyperlink format variable: '', choose from: path, line, "
                         "column, host, wslprefix")]:
    golden("--hyperlink-format %r is rejected as rg 14 words it" % fmt_,
           ["--hyperlink-format", fmt_, "foo", "hl"], b"", 2,
           [("line", "ctxsearch: error parsing flag --hyperlink-format: invalid hyperlink "
                     "format: " + why)])
golden("--hyperlink-format accepts an empty format, {{ and }} escapes and a digit-led scheme",
       ["--hyperlink-format", "", "--hyperlink-format", "1x://{{{path}}}", "--color", "always",
        "-c", "foo", "hl/c.txt"], b"1\n", 0)


# -E/--encoding (outputs from rg 14.1.1): files in legacy encodings decoded to UTF-8 before the
# search; a BOM still decides; -E none searches the raw bytes; unknown labels are rg's error.
FILES.update({
    "enc/latin1.txt": b"caf\xe9 na\xefve\n\x80uro 5\n",
    "enc/sjis.txt": b"\x93\xfa\x96{\x8c\xea\x83e\x83L\x83X\x83g\n\xb6\xc0\xb6\xc5\nbad \x82\n",
    "enc/u16le.txt": "hello w\u00f6rld\n".encode("utf-16-le"),
    "enc/u16bom.txt": b"\xff\xfe" + "bom w\u00f6rld\n".encode("utf-16-le"),
    "enc/u8bom.txt": b"\xef\xbb\xbfbom line\n",
    "enc/gbk.txt": b"\xd6\xd0\xce\xc4 text\n",
})
golden("-E latin1 decodes windows-1252 before the search", ["-E", "latin1", "é", "enc/latin1.txt"],
       "café naïve\n".encode(), 0)
golden("--encoding windows-1252 maps 0x80 to the euro sign",
       ["--encoding", "windows-1252", "-n", "€", "enc/latin1.txt"], "2:€uro 5\n".encode(), 0)
golden("-E shift_jis decodes kanji and katakana", ["-E", "shift_jis", "テキスト", "enc/sjis.txt"],
       "日本語テキスト\n".encode(), 0)
golden("-E labels are case-insensitive (half-width katakana in Shift_JIS)",
       ["-E", "Shift_JIS", "-c", "ｶ", "enc/sjis.txt"], b"1\n", 0)
golden("-E shift_jis: a malformed sequence becomes U+FFFD",
       ["-E", "shift_jis", "-n", "\\x{FFFD}", "enc/sjis.txt"], b"3:bad \xef\xbf\xbd\n", 0)
golden("-E utf-16le decodes UTF-16 without a BOM", ["-E", "utf-16le", "wörld", "enc/u16le.txt"],
       "hello wörld\n".encode(), 0)
golden("-E latin1 on a file with a UTF-16 BOM: the BOM wins",
       ["-E", "latin1", "wörld", "enc/u16bom.txt"], "bom wörld\n".encode(), 0)
golden("-E gbk decodes GBK", ["-E", "gbk", "中文", "enc/gbk.txt"], "中文 text\n".encode(), 0)
golden("-E none searches a UTF-8 BOM as bytes", ["-E", "none", "-c", "^bom", "enc/u8bom.txt"],
       b"", 1)
golden("-E auto (the default) drops a UTF-8 BOM", ["-E", "auto", "-c", "^bom", "enc/u8bom.txt"],
       b"1\n", 0)
golden("--no-encoding undoes -E", ["-E", "latin1", "--no-encoding", "é", "enc/latin1.txt"], b"", 1)
golden("-E decodes walked files; undecoded NUL bytes make a file binary",
       ["--sort", "path", "-E", "latin1", "-c", ".", "enc"],
       b"enc/gbk.txt:1\nenc/latin1.txt:2\nenc/sjis.txt:3\nenc/u16bom.txt:1\nenc/u8bom.txt:1\n", 0)
golden("-E with an unknown label is rg's error", ["-E", "bogus", "x", "enc"], b"", 2,
       [("line", "ctxsearch: error parsing flag -E: grep config error: unknown encoding: bogus")])
golden("--encoding with a replacement-encoding label is rg's error",
       ["--encoding=replacement", "x", "enc"], b"", 2,
       [("line", "ctxsearch: error parsing flag --encoding: grep config error: unknown "
                 "encoding: replacement")])
golden("-E latin1 decodes stdin", ["-E", "latin1", "é"], "café\n".encode(), 0,
       stdin=b"caf\xe9\n")



def main():
    if shutil.which(CTX) is None and not os.path.exists(CTX):
        print("CTXSEARCH binary %r not found" % CTX)
        print("0 passed, 1 failed")
        return 1
    print("binary: %s (%s)" % (CTX, CTX_VERSION))
    passed = failed = skipped = xfailed = 0
    try:
        for fn in CASES:
            start = time.time()
            name = fn.__name__.replace("_", " ")
            try:
                fn()
            except Skip as e:
                skipped += 1
                print("SKIP %s: %s" % (name, e))
            except OpenBug as e:
                if STRICT:
                    failed += 1
                    print("FAIL (open bug, CTX_STRICT) %s: %s" % (name, e))
                else:
                    xfailed += 1
                    print("XFAIL %s: %s" % (name, e))
            except AssertionError as e:
                failed += 1
                print("FAIL %s: %s" % (name, e))
            except Exception as e:  # noqa: BLE001 - report and go on
                failed += 1
                print("FAIL %s: %s: %s" % (name, type(e).__name__, e))
            else:
                passed += 1
                bug = getattr(fn, "open_bug", None)
                if bug and not IS_RG:
                    print("XPASS %s (%.2fs): open bug %r seems fixed; remove it from OPEN_BUGS"
                          % (name, time.time() - start, bug))
                else:
                    print("PASS %s (%.2fs)" % (name, time.time() - start))
    finally:
        if TREE is not None:
            TREE.close()
    for name, desc in OPEN_BUGS.items():
        print("OPEN_BUGS %s: %s" % (name, desc))
    print("%d xfail (open bugs), %d skipped" % (xfailed, skipped))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
