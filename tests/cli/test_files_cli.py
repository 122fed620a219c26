#!/usr/bin/env python3
"""Golden CLI cases for `ctxsearch --files` on small trees built here.

Covers: exit codes (0 listed, 1 nothing, 2 on errors while other roots are still listed), rg 14's
`ctxsearch: nope: IO error for operation on nope: No such file or directory (os error 2)` message
of its one-thread walk and `ctxsearch: nope: No such file or directory (os error 2)` of its
parallel one, --null / -0, explicit file
arguments (always listed, even if ignored or hidden), output path prefixes (``a/b``, ``./a/b``,
``sub/b``), --max-depth 0/1, .git never listed, an unreadable directory (as an unprivileged
user: when running as root the case drops privileges with setpriv, or is skipped), files and
directories vanishing during the walk, non-UTF-8 file names, symlinks and a symlink loop with -L
(a warning on stderr, no hang; found at a link, with rg's paths), unreadable ignore files
(skipped silently), -j1's walk order (rg's), --sortr path sorting the roots too.

Run as `python3 tests/cli/test_files_cli.py` with CTXSEARCH set (default: rg from PATH, in which
case the ctxsearch-only expectations are relaxed to what ripgrep prints).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from case_runner import Skip, case, check, run_cases  # noqa: E402

CTX = os.environ.get("CTXSEARCH") or shutil.which("rg") or "rg"
PROG = os.path.basename(CTX)
TIMEOUT = 60


def version_of(binary):
    try:
        out = subprocess.run([binary, "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             timeout=30).stdout.decode(errors="replace")
    except OSError:
        return ""
    return out.splitlines()[0] if out else ""


CTX_VERSION = version_of(CTX)
IS_RG = CTX_VERSION.startswith("ripgrep")
IS_RG13 = CTX_VERSION.startswith("ripgrep 13")


# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------

class Tree:
    """A temp dir with a private HOME; `root` is where the files go (a git repo if git=True)."""

    def __init__(self, files=(), dirs=(), git=True, ignores=None):
        self.tmp = tempfile.mkdtemp(prefix="ctxcli-")
        os.chmod(self.tmp, 0o755)
        self.home = os.path.join(self.tmp, "home")
        self.root = os.path.join(self.tmp, "root")
        os.makedirs(os.path.join(self.home, ".config"))
        os.makedirs(self.root)
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith("GIT_") and k != "RIPGREP_CONFIG_PATH"}
        self.env.update({"HOME": self.home, "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
                         "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_SYSTEM": os.devnull, "LC_ALL": "C"})
        if git:
            subprocess.run(["git", "init", "-q", self.root], env=self.env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for d in dirs:
            os.makedirs(self.p(d), exist_ok=True)
        for f in files:
            self.write(f, b"x\n")
        for f, lines in (ignores or {}).items():
            self.write(f, "".join(l + "\n" for l in lines).encode())

    def p(self, rel):
        if isinstance(rel, bytes):
            return os.path.join(os.fsencode(self.root), rel)
        return os.path.join(self.root, rel)

    def write(self, rel, data):
        full = self.p(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)

    def run(self, *args, cwd="", timeout=TIMEOUT, prefix=()):
        cwd = self.p(cwd) if cwd else self.root
        p = subprocess.run(list(prefix) + [CTX] + list(args), cwd=cwd, env=self.env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")

    def close(self):
        for dirpath, dirnames, _ in os.walk(self.tmp):
            for d in dirnames:
                try:
                    os.chmod(os.path.join(dirpath, d), 0o755)
                except OSError:
                    pass
        shutil.rmtree(self.tmp, ignore_errors=True)


def lines(out: bytes):
    return [l for l in out.decode("utf-8", "surrogateescape").split("\n") if l]


def expect(tree, args, want_lines, want_rc=None, cwd="", sort=True):
    """Runs ctxsearch and checks stdout lines (exact order with --sort path) and exit code."""
    full = list(args) + (["--sort", "path"] if sort else [])
    rc, out, err = tree.run(*full, cwd=cwd)
    got = lines(out)
    if not sort:
        got, want_lines = sorted(got), sorted(want_lines)
    if want_rc is None:
        want_rc = 0 if want_lines else 1
    check(got == want_lines and rc == want_rc,
          "`%s %s` in %r: expected %r rc=%d, got %r rc=%d stderr=%r"
          % (PROG, " ".join(full), cwd or ".", want_lines, want_rc, got, rc, err))
    return err


def error_line_ok(err, msg):
    """The error line as ctxsearch prints it (`ctxsearch: MSG`); ripgrep stand-ins print `rg: MSG`
    (rg 14) or just `MSG` (rg 13)."""
    got = [l for l in err.splitlines() if l]
    want = "%s: %s" % (PROG, msg)
    if want in got:
        return True
    if IS_RG:
        # rg 13 prints no prefix.
        return any(l in (msg, "rg: " + msg) for l in got)
    return False


# ----------------------------------------------------------------------------------------------
# cases
# ----------------------------------------------------------------------------------------------

def basic_tree():
    return Tree(files=["a/b", "sub/b", "sub/c/d", "top", "ign", ".hid/h", ".hidden"],
                ignores={".gitignore": ["ign"]})


@case
def exit_code_0_when_files_listed():
    t = basic_tree()
    try:
        expect(t, ["--files"], ["a/b", "sub/b", "sub/c/d", "top"], 0)
    finally:
        t.close()


@case
def exit_code_1_when_nothing_listed():
    t = Tree(files=["a", "b/c"], ignores={".gitignore": ["*"]})
    try:
        expect(t, ["--files"], [], 1)
        os.makedirs(t.p("empty"))
        expect(t, ["--files", "empty"], [], 1)
    finally:
        t.close()


@case
def exit_code_1_in_empty_directory():
    t = Tree(git=False)
    try:
        expect(t, ["--files"], [], 1)
    finally:
        t.close()


@case
def nonexistent_path_is_an_error_but_other_roots_are_listed():
    """rg 14 words a missing root as its walk words it: one thread (sorted, -j1, a single path
    that is no directory) walks with walkdir, "P: IO error for operation on P: ERROR"; several
    threads say "P: ERROR"."""
    t = basic_tree()
    io_error = "nope: IO error for operation on nope: No such file or directory (os error 2)"
    try:
        rc, out, err = t.run("--files", "--sort", "path", "nope", "sub")
        check(lines(out) == ["sub/b", "sub/c/d"], "stdout %r" % lines(out))
        check(rc == 2, "exit code %d, want 2" % rc)
        check(error_line_ok(err, io_error), "stderr %r lacks `%s: %s`" % (err, PROG, io_error))
        rc, out, err = t.run("--files", "nope")
        check(rc == 2 and out == b"", "only a missing root: rc %d out %r" % (rc, out))
        check(error_line_ok(err, io_error), "stderr %r" % err)
        rc, out, err = t.run("--files", "-j1", "nope", "sub")
        check(rc == 2 and error_line_ok(err, io_error), "-j1: rc %d stderr %r" % (rc, err))
        rc, out, err = t.run("--files", "-j2", "nope", "sub")
        check(sorted(lines(out)) == ["sub/b", "sub/c/d"], "-j2 stdout %r" % lines(out))
        check(rc == 2 and error_line_ok(err, "nope: No such file or directory (os error 2)"),
              "-j2: rc %d stderr %r" % (rc, err))
        rc, out, err = t.run("--files", "--sort", "path", "top", "nope/x", "a")
        check(lines(out) == ["top", "a/b"], "order of roots kept: %r" % lines(out))
        check(rc == 2 and error_line_ok(err, "nope/x: IO error for operation on nope/x: No such "
                                             "file or directory (os error 2)"),
              "rc %d stderr %r" % (rc, err))
    finally:
        t.close()


@case
def null_separator():
    t = basic_tree()
    try:
        for flag in ("--null", "-0"):
            rc, out, err = t.run("--files", flag, "--sort", "path")
            check(out == b"a/b\0sub/b\0sub/c/d\0top\0", "%s: %r" % (flag, out))
            check(rc == 0, "rc %d" % rc)
        rc, out, _ = t.run("--files", "--null", "sub")
        check(sorted(out.split(b"\0")) == [b"", b"sub/b", b"sub/c/d"], "--null sub: %r" % out)
    finally:
        t.close()


@case
def explicit_files_are_listed_even_if_ignored_or_hidden():
    t = basic_tree()
    try:
        expect(t, ["--files", "ign", ".hid/h", ".hidden", "top"], ["ign", ".hid/h", ".hidden", "top"])
        expect(t, ["--files", "-g", "!ign", "-t", "c", "ign"], ["ign"])
        expect(t, ["--files", "--max-depth", "0", "ign"], ["ign"])
        expect(t, ["--files", "./ign"], ["./ign"])
        # a hidden or ignored *directory* given explicitly is searched (its own contents still
        # follow the rules)
        expect(t, ["--files", ".hid"], [".hid/h"])
    finally:
        t.close()


@case
def output_path_prefixes():
    t = basic_tree()
    try:
        expect(t, ["--files"], ["a/b", "sub/b", "sub/c/d", "top"])
        expect(t, ["--files", "."], ["./a/b", "./sub/b", "./sub/c/d", "./top"])
        expect(t, ["--files", "./"], ["./a/b", "./sub/b", "./sub/c/d", "./top"])
        expect(t, ["--files", "sub/"], ["sub/b", "sub/c/d"])
        expect(t, ["--files", "sub"], ["sub/b", "sub/c/d"])
        expect(t, ["--files", "./sub"], ["./sub/b", "./sub/c/d"])
        expect(t, ["--files", "sub/c"], ["sub/c/d"])
        expect(t, ["--files"], ["b", "c/d"], cwd="sub")
        expect(t, ["--files", "."], ["./b", "./c/d"], cwd="sub")
        expect(t, ["--files", "c"], ["c/d"], cwd="sub")
    finally:
        t.close()


@case
def max_depth():
    t = basic_tree()
    try:
        expect(t, ["--files", "--max-depth", "0"], [], 1)
        expect(t, ["--files", "--max-depth", "0", "."], [], 1)
        expect(t, ["--files", "--max-depth", "0", "top"], ["top"])
        expect(t, ["--files", "--max-depth", "1"], ["top"])
        expect(t, ["--files", "--max-depth", "2"], ["a/b", "sub/b", "top"])
        expect(t, ["--files", "--max-depth", "1", "sub"], ["sub/b"])
    finally:
        t.close()


@case
def hidden_and_dot_git():
    t = basic_tree()
    try:
        expect(t, ["--files", "--hidden", "-g", "!.git"],
               [".gitignore", ".hid/h", ".hidden", "a/b", "sub/b", "sub/c/d", "top"])
        if IS_RG:
            raise Skip("ripgrep lists .git/ with --hidden (deliberate ctxsearch difference)")
        expect(t, ["--files", "--hidden"], [".gitignore", ".hid/h", ".hidden", "a/b", "sub/b", "sub/c/d", "top"])
        expect(t, ["--files", "-uu"], [".gitignore", ".hid/h", ".hidden", "a/b", "ign", "sub/b", "sub/c/d", "top"])
    finally:
        t.close()


def nobody_prefix():
    """A command prefix that runs as an unprivileged user, or None."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if not setpriv:
        return None
    prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    try:
        p = subprocess.run(prefix + [CTX, "--version"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=30)
    except OSError:
        return None
    return prefix if p.returncode == 0 else None


@case
def unreadable_ignore_files_are_skipped_silently():
    """As rg 14: an ignore file found by the walk (a directory's, git's global excludes) that
    cannot be read is skipped without a message; the exit code stays 0."""
    prefix = nobody_prefix()
    if prefix is None:
        raise Skip("running as root and cannot drop privileges (root reads chmod 000 files)")
    t = Tree(files=["a/b", "z"], git=True, ignores={".gitignore": ["z"], "a/.ignore": ["b"]})
    try:
        for rel in ("", "a", ".git"):
            os.chmod(t.p(rel) if rel else t.root, 0o755)
        for rel in (".gitignore", "a/.ignore"):
            os.chmod(t.p(rel), 0)
        glob_ignore = os.path.join(t.home, ".config", "git", "ignore")
        os.makedirs(os.path.dirname(glob_ignore), exist_ok=True)
        with open(glob_ignore, "w") as f:
            f.write("b\n")
        os.chmod(glob_ignore, 0)
        for d in (t.tmp, t.home, os.path.join(t.home, ".config"), os.path.dirname(glob_ignore)):
            os.chmod(d, 0o755)
        rc, out, err = t.run("--files", "--sort", "path", prefix=prefix)
        check(lines(out) == ["a/b", "z"] and rc == 0 and err == "",
              "stdout %r rc %d stderr %r" % (lines(out), rc, err))
    finally:
        t.close()


@case
def unreadable_directory():
    prefix = nobody_prefix()
    if prefix is None:
        raise Skip("running as root and cannot drop privileges (root reads chmod 000 dirs)")
    t = Tree(files=["a/b", "locked/f", "z"], git=True)
    try:
        for rel in ("", "a", ".git"):
            os.chmod(t.p(rel) if rel else t.root, 0o755)
        os.chmod(t.p("locked"), 0)
        rc, out, err = t.run("--files", "--sort", "path", prefix=prefix)
        check(lines(out) == ["a/b", "z"], "stdout %r" % lines(out))
        check(rc == 2, "exit code %d, want 2 (stderr %r)" % (rc, err))
        want = "./locked: IO error for operation on ./locked: Permission denied (os error 13)"
        check(error_line_ok(err, want), "stderr %r lacks `%s: %s` (rg 14: './' under the "
              "implicit root, the one-thread walk's wording)" % (err, PROG, want))
        rc, out, err = t.run("--files", "-j2", prefix=prefix)
        check(rc == 2 and error_line_ok(err, "./locked: Permission denied (os error 13)"),
              "-j2: rc %d stderr %r" % (rc, err))
        rc, out, err = t.run("--files", "-j2", ".", prefix=prefix)
        check(rc == 2 and error_line_ok(err, "./locked: Permission denied (os error 13)"),
              "-j2 .: rc %d stderr %r" % (rc, err))
        rc, out, err = t.run("--files", "-j2", "locked", "a", prefix=prefix)
        check(rc == 2 and error_line_ok(err, "locked: Permission denied (os error 13)"),
              "-j2 locked a: rc %d stderr %r" % (rc, err))
    finally:
        t.close()


@case
def vanishing_files_and_directories():
    rng = random.Random(7)
    for attempt in range(3):
        t = Tree(git=False)
        try:
            created = set()
            dirs = []
            for i in range(30):
                d = "d%02d/e%d" % (i, i % 3)
                dirs.append("d%02d" % i)
                for j in range(20):
                    rel = "%s/f%02d" % (d, j)
                    t.write(rel, b"")
                    created.add(rel)
            order = dirs[:]
            rng.shuffle(order)
            proc = subprocess.Popen([CTX, "--files"], cwd=t.root, env=t.env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)

            def remove():
                for d in order:
                    shutil.rmtree(t.p(d), ignore_errors=True)

            th = threading.Thread(target=remove)
            th.start()
            try:
                out, err = proc.communicate(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                raise AssertionError("ctxsearch hung while files vanished")
            th.join()
            rc = proc.returncode
            check(rc in (0, 1, 2), "exit code %d (crash?) stderr %r" % (rc, err[-2000:]))
            got = lines(out)
            check(set(got) <= created, "listed paths that never existed: %r" % sorted(set(got) - created)[:5])
            check(len(got) == len(set(got)), "duplicates in output")
            for l in err.decode(errors="replace").splitlines():
                check("No such file or directory" in l or "os error 2" in l,
                      "unexpected stderr line %r" % l)
            if rc == 2:
                check(err.strip() != b"", "exit code 2 without a message")
        finally:
            t.close()


@case
def vanished_explicit_file():
    t = Tree(files=["a", "b"], git=False)
    try:
        os.unlink(t.p("b"))
        rc, out, err = t.run("--files", "a", "b")
        check(lines(out) == ["a"] and rc == 2, "rc %d out %r" % (rc, lines(out)))
        check(error_line_ok(err, "b: No such file or directory (os error 2)"), "stderr %r" % err)
    finally:
        t.close()


@case
def non_utf8_file_names():
    t = Tree(git=True)
    try:
        names = [b"caf\xe9", b"d\xff/x", b"\xff.o", b"ok", b"\xc3\xa9t\xc3\xa9"]
        for n in names:
            t.write(n, b"x")
        t.write(".gitignore", b"*.o\n")
        rc, out, err = t.run("--files", "--sort", "path")
        got = [l for l in out.split(b"\n") if l]
        want = sorted([b"caf\xe9", b"d\xff/x", b"ok", b"\xc3\xa9t\xc3\xa9"])
        check(sorted(got) == want, "raw bytes expected %r, got %r" % (want, got))
        check(rc == 0, "rc %d" % rc)
        rc, out, err = t.run("--files", "--null", os.fsdecode(b"d\xff"))
        check(out == b"d\xff/x\0", "explicit non-UTF-8 root: %r" % out)
        rc, out, err = t.run("--files", os.fsdecode(b"\xff.o"))
        check(out == b"\xff.o\n", "explicit ignored non-UTF-8 file: %r" % out)
    finally:
        t.close()


@case
def symlinks_without_and_with_follow():
    t = Tree(files=["a/b", "top"], git=False)
    try:
        os.symlink("top", t.p("link"))
        os.symlink("a", t.p("dlink"))
        expect(t, ["--files"], ["a/b", "top"])
        expect(t, ["--files", "-L"], ["a/b", "dlink/b", "link", "top"])
        # a symlink given explicitly is followed
        expect(t, ["--files", "dlink", "link"], ["dlink/b", "link"])
        # a dangling symlink is skipped silently, and is an error with -L (like rg)
        os.symlink("missing", t.p("dangling"))
        expect(t, ["--files"], ["a/b", "top"])
        rc, out, err = t.run("--files", "-L", "--sort", "path")
        check(lines(out) == ["a/b", "dlink/b", "link", "top"], "-L with a dangling link: %r" % lines(out))
        check(rc == 2 and "dangling" in err and "No such file or directory (os error 2)" in err,
              "-L with a dangling link: rc %d stderr %r" % (rc, err))
    finally:
        t.close()


@case
def symlink_loop_with_follow():
    t = Tree(files=["L/x/f", "top"], git=False)
    try:
        os.symlink("..", t.p("L/x/loop"))
        for args in (["--files", "-L", "L"], ["--files", "-L"]):
            try:
                rc, out, err = t.run(*args, "--sort", "path", timeout=20)
            except subprocess.TimeoutExpired:
                raise AssertionError("`%s` hung on a symlink loop" % " ".join(args))
            got = lines(out)
            want = ["L/x/f"] if args[-1] == "L" else ["L/x/f", "top"]
            check(got == want, "%s: expected %r, got %r" % (args, want, got))
            check("loop" in err.lower(), "%s: expected a loop warning on stderr, got %r" % (args, err))
            check(rc == 2, "%s: exit code %d, want 2 like rg" % (args, rc))
    finally:
        t.close()


@case
def symlink_loop_is_found_at_a_link_with_rgs_paths():
    """As rg 14 (walkdir and ignore's parallel walk alike), only a directory reached through a
    symlink is checked against its ancestors: with L/loop -> .. and the walk rooted at L, the real
    directory L/loop/L (L itself) is entered and the loop is found at L/loop/L/loop. Beneath the
    implicit root, paths in errors start with "./" (the root is "./")."""
    t = Tree(files=["L/x", "top"], git=False)
    try:
        os.symlink("..", t.p("L/loop"))
        os.symlink("nowhere", t.p("L/broken"))
        rc, out, err = t.run("--files", "-L", "--sort", "path", "L")
        want = ["L/loop/L/x", "L/loop/top", "L/x"]
        check(rc == 2 and lines(out) == want, "stdout %r rc %d, want %r" % (lines(out), rc, want))
        want_err = [
            "L/broken: IO error for operation on L/broken: No such file or directory (os error 2)",
            "L/loop/L/broken: IO error for operation on L/loop/L/broken: No such file or "
            "directory (os error 2)",
            "File system loop found: L/loop/L/loop points to an ancestor L/loop"]
        for msg in want_err:
            check(error_line_ok(err, msg), "stderr %r lacks %r" % (err, msg))
        rc, out, err = t.run("--files", "-L", "-j2", "L")
        check(rc == 2 and sorted(lines(out)) == want, "-j2: %r rc %d" % (lines(out), rc))
        check(error_line_ok(err, "L/broken: No such file or directory (os error 2)") and
              error_line_ok(err, want_err[2]), "-j2: stderr %r" % err)
        rc, out, err = t.run("--files", "-L", "--sort", "path", cwd="L")
        check(rc == 2 and lines(out) == ["loop/L/x", "loop/top", "x"], "in L: %r" % lines(out))
        for msg in ["./broken: IO error for operation on ./broken: No such file or directory "
                    "(os error 2)", "File system loop found: ./loop/L/loop points to an ancestor "
                    "./loop"]:
            check(error_line_ok(err, msg), "in L: stderr %r lacks %r" % (err, msg))
        t.write("S/x", b"x\n")
        os.symlink(".", t.p("S/self"))
        rc, out, err = t.run("--files", "-L", cwd="S")
        check(rc == 2 and lines(out) == ["x"] and
              error_line_ok(err, "File system loop found: ./self points to an ancestor ./"),
              "in S: %r rc %d stderr %r" % (lines(out), rc, err))
    finally:
        t.close()


def readdir_walk(root, rel=""):
    """Paths of the files under root/rel as an unsorted one-thread walk meets them: depth first,
    each directory in the order readdir lists it (os.scandir's order)."""
    out = []
    for e in os.scandir(os.path.join(root, rel) if rel else root):
        path = os.path.join(rel, e.name) if rel else e.name
        if e.is_dir(follow_symlinks=False):
            out += readdir_walk(root, path)
        elif e.is_file(follow_symlinks=False):
            out.append(path)
    return out


@case
def sortr_path_sorts_the_roots_too():
    """As rg 14: --sortr path sorts the whole list at the end by Rust's path order (component by
    component), so roots sort among themselves; --sort path keeps them in command-line order."""
    t = Tree(files=["a/x", "a/y/z", "a.c", "b/w"], git=False)
    try:
        for args, want in ((["--sortr", "path", "a", "b"], ["b/w", "a/y/z", "a/x"]),
                           (["--sortr", "path", "a", "a.c"], ["a.c", "a/y/z", "a/x"]),
                           (["--sortr", "path"], ["b/w", "a.c", "a/y/z", "a/x"]),
                           (["--sort", "path", "b", "a"], ["b/w", "a/x", "a/y/z"])):
            rc, out, err = t.run("--files", *args)
            check(rc == 0 and lines(out) == want, "%s: expected %r, got %r (rc %d, %r)"
                  % (args, want, lines(out), rc, err))
    finally:
        t.close()


@case
def one_thread_walks_in_rgs_order():
    """-j1 without --sort: as rg's one-thread walk (walkdir), each directory depth first with its
    files and subdirectories interleaved as readdir lists them, roots in command-line order; the
    same order for --files and for a search."""
    names = ["f%02d" % i for i in range(12)] + ["d%d/g%02d" % (i % 4, i) for i in range(12)] + \
        ["d1/e/h%d" % i for i in range(4)]
    t = Tree(files=names, git=False)
    try:
        walk = readdir_walk(t.root)
        files_first = [p for p in walk if "/" not in p]
        if walk[:len(files_first)] == files_first:
            raise Skip("this directory lists its files before its subdirectories: cannot tell")
        for args in (["--files", "-j1"], ["-j1", "-l", "x"]):
            rc, out, err = t.run(*args)
            check(rc == 0 and lines(out) == walk, "%s: expected %r, got %r (rc %d, %r)"
                  % (args, walk, lines(out), rc, err))
        rc, out, err = t.run("--files", "-j1", "f03", "d1", "f01")
        want = ["f03"] + [p for p in walk if p.startswith("d1/")] + ["f01"]
        check(rc == 0 and lines(out) == want, "roots in order: expected %r, got %r" %
              (want, lines(out)))
    finally:
        t.close()


@case
def sort_by_time_keeps_ties_in_readdir_order():
    """--sort/--sortr modified|accessed|created: files with the same time stay in the order an
    unsorted walk meets them (readdir order, depth first), as ripgrep's stable sort leaves them
    (a fresh checkout has hundreds of such ties); distinct times sort first."""
    names = ["f%02d" % i for i in range(24)] + ["d%d/g%02d" % (i % 3, i) for i in range(12)]
    t = Tree(files=names, git=False)
    try:
        tie, late = 1_600_000_000_000_000_000, 1_700_000_000_000_000_000
        for n in names:
            os.utime(t.p(n), ns=(tie, tie))
        os.utime(t.p("f07"), ns=(late, late))
        walk = [p for p in readdir_walk(t.root) if p != "f07"]
        if walk == sorted(walk):
            raise Skip("this file system lists directories in name order: ties cannot tell")
        for flag, kind in (("--sort", "modified"), ("--sortr", "modified"), ("--sort", "accessed")):
            want = walk + ["f07"] if flag == "--sort" else ["f07"] + walk
            rc, out, err = t.run("--files", flag, kind)
            got = lines(out)
            check(rc == 0 and got == want, "%s %s: expected %r, got %r (rc %d, %r)"
                  % (flag, kind, want, got, rc, err))
    finally:
        t.close()


@case
def ignore_file_rules_see_the_path_as_written():
    """As ripgrep (its --ignore-file rules have an empty root, ripgrep #2366): they match the walked
    path with "./" and then one "/" stripped, not a path relative to the cwd. So `a/*` applies
    under `.` and `.//`, but not under an absolute or a `../` root, where `/ROOT/b/*` does."""
    t = Tree(files=["a/x", "b/y", "c/z"], git=False)
    try:
        ig = os.path.join(t.tmp, "ig")
        with open(ig, "w") as f:
            f.write("a/*\n%s/b/*\n" % t.root)
        expect(t, ["--files", "--ignore-file", ig], ["b/y", "c/z"])
        expect(t, ["--files", "--ignore-file", ig, ".//"], [".//b/y", ".//c/z"])
        expect(t, ["--files", "--ignore-file", ig, t.root],
               [t.root + "/a/x", t.root + "/c/z"])
        expect(t, ["--files", "--ignore-file", ig, "../root"], ["../root/a/x", "../root/b/y",
                                                                "../root/c/z"])
        # A directory named as an ignore file: a warning naming its first line, as rg.
        err = expect(t, ["--files", "--ignore-file", t.tmp, "c"], ["c/z"])
        check(error_line_ok(err, "%s: line 1: Is a directory (os error 21)" % t.tmp),
              "stderr %r" % err)
    finally:
        t.close()


@case
def sorted_walk_reports_a_broken_link_at_its_turn():
    """With --sort path, a link -L cannot follow (dangling, a loop) is reported in path order
    among the walk's other messages, as rg's sorted walkdir does: `./m` after all of `a/`."""
    t = Tree(files=["a/x", "z/y"], git=False)
    try:
        os.symlink("nothere", t.p("m"))
        os.symlink("nothere2", t.p("a/n"))
        os.symlink("..", t.p("z/up"))
        err = expect(t, ["--files", "-L"], ["a/x", "z/y"], 2)
        got = [l.split(": ", 1)[1] for l in err.splitlines() if ": " in l]
        want = ["./a/n: IO error for operation on ./a/n: No such file or directory (os error 2)",
                "./m: IO error for operation on ./m: No such file or directory (os error 2)",
                "File system loop found: ./z/up points to an ancestor ./"]
        check(got == want, "stderr %r, want %r" % (err, want))
    finally:
        t.close()


@case
def no_ignore_sets_the_five_flags_where_it_stands():
    """As rg 14: --no-ignore (and -u) sets --no-ignore-{dot,vcs,exclude,global,parent} where it
    stands and --ignore clears them, so a later --ignore-vcs or --ignore-dot still acts alone."""
    t = Tree(files=["a.log", "b.tmp", "c.txt"], git=True,
             ignores={".gitignore": ["*.log"], ".ignore": ["*.tmp"]})
    try:
        expect(t, ["--files", "--no-ignore", "--ignore-vcs"], ["b.tmp", "c.txt"])
        expect(t, ["--files", "-u", "--ignore-dot"], ["a.log", "c.txt"])
        expect(t, ["--files", "--no-ignore-dot", "--ignore"], ["c.txt"])
        expect(t, ["--files", "--ignore-vcs", "--no-ignore"], ["a.log", "b.tmp", "c.txt"])
    finally:
        t.close()


@case
def sortr_reports_broken_links_in_readdir_order():
    """rg 14's --sortr path walks unsorted (one thread, depth first, readdir order) and sorts
    the files at the end: its messages come in the walk's order, as here."""
    # Several directories and top-level links: the walk's order interleaves them (a walk that
    # reported a directory's links when listing it would put all the top-level ones first).
    t = Tree(files=["a/x", "b/x", "c/x", "z/y"], git=False)
    try:
        for link in ("m", "n", "p", "q", "a/n", "b/n", "c/n", "z/w", "a/o"):
            os.symlink("nothere", t.p(link))

        def broken(rel):
            out = []
            for name in os.listdir(t.p(rel) if rel else t.root):
                sub = rel + "/" + name if rel else name
                if os.path.islink(t.p(sub)) and not os.path.exists(t.p(sub)):
                    out.append("./%s: IO error for operation on ./%s: No such file or directory "
                               "(os error 2)" % (sub, sub))
                elif os.path.isdir(t.p(sub)):
                    out += broken(sub)
            return out

        rc, out, err = t.run("--files", "-L", "--sortr", "path")
        got = [l.split(": ", 1)[1] for l in err.splitlines() if ": " in l]
        check(lines(out) == ["z/y", "c/x", "b/x", "a/x"] and rc == 2 and got == broken(""),
              "stdout %r rc %d stderr %r, want %r" % (lines(out), rc, err, broken("")))
    finally:
        t.close()


def main():
    if shutil.which(CTX) is None and not os.path.exists(CTX):
        print("CTXSEARCH binary %r not found" % CTX)
        print("0 passed, 1 failed")
        return 1
    print("binary: %s (%s)" % (CTX, CTX_VERSION))
    return run_cases()


if __name__ == "__main__":
    sys.exit(main())
