#!/usr/bin/env python3
"""Differential test: `ctxsearch --files --hidden -g '!.git'` against git's own idea of the
untracked, non-ignored files.

For each seed a random tree (tests/diff/gen_tree.py, git flavour) is written into a fresh
repository, then:

  others   `git ls-files --others --exclude-standard` vs ctxsearch, from the root;
  subdir   (every third seed) the same from a non-ignored subdirectory, ctxsearch listing `.`
           or nothing there;
  cached   after `git add -A`, `git ls-files --cached --others --exclude-standard` vs ctxsearch.

Every seed carries .gitignore files at random levels, some a .git/info/exclude and some a global
excludes file (either $XDG_CONFIG_HOME/git/ignore or core.excludesFile in $HOME/.gitconfig,
sometimes written with `~/`). HOME and XDG_CONFIG_HOME point into a private temp dir and
GIT_CONFIG_NOSYSTEM=1 (plus GIT_CONFIG_SYSTEM=/dev/null) so that no real configuration leaks in.

On a mismatch the seed, the ignore files and the paths only in git / only in ctxsearch are
printed, and the case is shrunk (lines, files, ignore sources removed while the same path still
disagrees) to a minimal reproduction printed as a ready-to-paste REGRESSIONS entry.

Environment:
  CTXSEARCH            binary under test (default: rg from PATH)
  CTX_DIFF_SEEDS       number of seeds (default 300)
  CTX_DIFF_SEED_START  first seed (default 0)
  CTX_DIFF_SEED        run only this seed (plus the regressions)
  CTX_DIFF_JOBS        parallel workers (default 2)
  CTX_DIFF_SHRINK      max number of failures to shrink (default 3, 0 disables)
  CTX_DIFF_SHRINK_BUDGET  seconds for shrinking (default 30)
  CTX_DIFF_TIME_BUDGET seconds after which no new seed starts (default 110)
  CTX_DIFF_VERBOSE     print every comparison
"""

from __future__ import annotations

import concurrent.futures
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_tree  # noqa: E402

CTX = os.environ.get("CTXSEARCH") or shutil.which("rg") or "rg"
SEEDS = int(os.environ.get("CTX_DIFF_SEEDS", "300"))
SEED_START = int(os.environ.get("CTX_DIFF_SEED_START", "0"))
ONLY_SEED = os.environ.get("CTX_DIFF_SEED")
JOBS = int(os.environ.get("CTX_DIFF_JOBS", "2"))
SHRINK_MAX = int(os.environ.get("CTX_DIFF_SHRINK", "3"))
SHRINK_BUDGET_S = float(os.environ.get("CTX_DIFF_SHRINK_BUDGET", "30"))
# Seeds not started within this many seconds are dropped (reported, not failed), so that the test
# stays under 3 minutes on a slow (ASan, loaded) machine.
TIME_BUDGET_S = float(os.environ.get("CTX_DIFF_TIME_BUDGET", "110"))
DEADLINE = [float("inf")]
VERBOSE = bool(os.environ.get("CTX_DIFF_VERBOSE"))
DETAIL_MAX = 20  # failures printed with their whole tree; the rest get one line
TIMEOUT = 60

# Fixed minimal cases that always run (mode: "others", "cached" or {"subdir": D, "dot": bool}).
# Hand-written cases pin the subtle parts of gitignore semantics; cases found by the shrinker
# are appended here once fixed.
REGRESSIONS = [
    {"name": "re-include inside an excluded directory is impossible",
     "tree": {"files": ["d/a", "d/b", "e/a"], "ignores": {".gitignore": ["d/", "!d/a", "e/*", "!e/a"]}}},
    {"name": "dir-only pattern does not match a file of the same name",
     "tree": {"files": ["x/foo", "foo", "y/foo/a"], "ignores": {".gitignore": ["foo/"]}}},
    {"name": "anchored pattern only matches at its own level",
     "tree": {"files": ["a", "s/a", "s/t/a", "s/b"], "ignores": {".gitignore": ["/a"], "s/.gitignore": ["/a", "b"]}}},
    {"name": "middle slash anchors implicitly",
     "tree": {"files": ["a/b", "x/a/b", "s/a/b"], "ignores": {".gitignore": ["a/b"], "s/.gitignore": ["a/b"]}}},
    {"name": "a/**/b matches zero or more directories",
     "tree": {"files": ["a/b", "a/x/b", "a/x/y/b", "c/a/b", "a/bb"], "ignores": {".gitignore": ["a/**/b"]}}},
    {"name": "x/** ignores contents but not x itself, so negation works",
     "tree": {"files": ["x/a", "x/keep", "x/y/keep"], "ignores": {".gitignore": ["x/**", "!x/keep"]}}},
    {"name": "**/x and leading **",
     "tree": {"files": ["x", "a/x", "a/b/x/c", "xx"], "ignores": {".gitignore": ["**/x"]}}},
    {"name": "escapes: \\#, \\!, \\ , trailing spaces, comments",
     "tree": {"files": ["#a", "!b", "b", "a ", "a", "c d", "e"],
              "ignores": {".gitignore": ["# a comment", "\\#a", "\\!b", "a\\ ", "c\\ d", "e   ", "", "#e"]}}},
    {"name": "negation order: last match wins, deeper file wins",
     "tree": {"files": ["a.o", "s/a.o", "s/b.o", "s/t/b.o"],
              "ignores": {".gitignore": ["*.o", "!a.o", "*.o"], "s/.gitignore": ["!b.o"], "s/t/.gitignore": ["b.o"]}}},
    {"name": "character classes and ranges",
     "tree": {"files": ["a1", "b1", "c1", "d1", "[a]", "a]", "x"], "ignores": {".gitignore": ["[ab]1", "[!a]]", "[c-d]1", "\\[a]"]}}},
    {"name": "exclude vs .gitignore precedence",
     "tree": {"files": ["a", "b", "c"], "ignores": {".gitignore": ["!a"]}, "exclude": ["a", "b"]}},
    {"name": "global excludes via XDG, overridden by exclude and .gitignore",
     "tree": {"files": ["a.o", "b.o", "c.o", "d/a.o"], "ignores": {".gitignore": ["!b.o"]}, "exclude": ["!c.o"],
              "global": ["xdg", ["*.o"]]}},
    {"name": "global excludes via core.excludesFile with ~",
     "tree": {"files": ["a.o", "b", "d/b"], "ignores": {}, "global": ["config-tilde", ["*.o", "/b"]]}},
    {"name": "parent .gitignore applies from a subdirectory",
     "tree": {"files": ["s/a", "s/b", "s/t/c", "s/t/d"], "ignores": {".gitignore": ["/s/a", "s/t/c", "d"]}},
     "mode": {"subdir": "s", "dot": True}},
    {"name": "exclude applies from a subdirectory, anchored at the root",
     "tree": {"files": ["s/a", "s/s/a", "s/b"], "ignores": {}, "exclude": ["/s/a", "b"]},
     "mode": {"subdir": "s", "dot": False}},
    {"name": "cached mode",
     "tree": {"files": ["a", "b", "d/c"], "ignores": {".gitignore": ["b"]}}, "mode": "cached"},
    {"name": "hidden files and .gitignore ignoring itself",
     "tree": {"files": [".h", "d/.x", "d/y"], "ignores": {".gitignore": [".gitignore", "!d/"], "d/.gitignore": ["*", "!.x"]}}},
    {"name": "question mark never matches a slash",
     "tree": {"files": ["a/b", "axb"], "ignores": {".gitignore": ["a?b"]}}},
    {"name": "shrunk: ** followed by a literal only matches whole components",
     "tree": {"files": ["a]/.a", "a]/a", "xx", "q/xb"], "ignores": {".gitignore": ["?\\]/**/a", "**/x", "**/b"]}}},
    {"name": "shrunk: a name ending in `.` (rg < 15 never matched it, #2990)",
     "tree": {"files": ["a!b/b.", "b./a", "asdf.", "d/asdf."], "ignores": {".gitignore": ["b.  ", "/asdf.", "d/asdf."]}}},
    {"name": "shrunk: whitelisting a name ending in `.`",
     "tree": {"files": ["s/asdf.", "s/asdx"], "ignores": {"s/.gitignore": ["/asdf.", "!/a?df.", "asdx"]}}},
    {"name": "negated class at component boundaries",
     "tree": {"files": ["ab", "xb", "d/ab", "a/b"], "ignores": {".gitignore": ["[!x]b", "d/[!a]b"]}}},
]


# ----------------------------------------------------------------------------------------------
# Running one comparison
# ----------------------------------------------------------------------------------------------

def make_env(home: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GIT_") and k not in ("RIPGREP_CONFIG_PATH",)}
    env.update({
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_SYSTEM": os.devnull,
        "LC_ALL": "C",
    })
    return env


def run(cmd, cwd, env):
    return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=TIMEOUT)


def git(args, cwd, env) -> bytes:
    p = run(["git"] + args, cwd, env)
    if p.returncode != 0:
        raise RuntimeError("git %s failed: %s" % (" ".join(args), p.stderr.decode(errors="replace")))
    return p.stdout


def git_list(cwd, env, cached=False) -> set:
    args = ["ls-files", "-z", "--others", "--exclude-standard"]
    if cached:
        args.insert(2, "--cached")
    out = git(args, cwd, env)
    return {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}


class CtxError(Exception):
    pass


def ctx_list(cwd, env, dot=False):
    cmd = [CTX, "--files", "--hidden", "-g", "!.git"] + (["."] if dot else [])
    p = run(cmd, cwd, env)
    if p.returncode not in (0, 1):
        raise CtxError("%s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr.decode(errors="replace")))
    paths = set()
    for line in p.stdout.decode("utf-8", "surrogateescape").split("\n"):
        if not line:
            continue
        if dot:
            if not line.startswith("./"):
                raise CtxError("path without ./ prefix from `%s`: %r" % (" ".join(cmd), line))
            line = line[2:]
        paths.add(line)
    return paths, p.stderr.decode(errors="replace")


class Workspace:
    """A temp dir holding home/ and repo/ for one tree."""

    def __init__(self, tree: gen_tree.Tree):
        self.tmp = tempfile.mkdtemp(prefix="ctxgit-")
        self.home = os.path.join(self.tmp, "home")
        self.repo = os.path.join(self.tmp, "repo")
        os.makedirs(os.path.join(self.home, ".config"))
        os.makedirs(self.repo)
        self.env = make_env(self.home)
        git(["init", "-q", "--template="], self.repo, self.env)
        tree.write(self.repo)
        tree.write_git_extras(self.repo)
        tree.write_global(self.home)

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def mode_label(mode) -> str:
    if isinstance(mode, dict):
        return "subdir %r (%s)" % (mode["subdir"], "ctxsearch lists ." if mode["dot"] else "no path argument")
    return mode


def compare(tree: gen_tree.Tree, mode):
    """Builds a fresh workspace and runs one comparison.

    Returns (git_set, ctx_set, ctx_stderr) or None when the case is not valid for ``mode``
    (a subdirectory that git ignores)."""
    ws = Workspace(tree)
    try:
        return compare_in(ws, mode)
    finally:
        ws.close()


def compare_in(ws: Workspace, mode):
    if mode == "cached":
        git(["add", "-A"], ws.repo, ws.env)
        g = git_list(ws.repo, ws.env, cached=True)
        c, err = ctx_list(ws.repo, ws.env)
        return g, c, err
    if mode == "others":
        g = git_list(ws.repo, ws.env)
        c, err = ctx_list(ws.repo, ws.env)
        return g, c, err
    sub = mode["subdir"]
    root_listing = git_list(ws.repo, ws.env)
    if not any(p.startswith(sub + "/") for p in root_listing):
        return None  # git ignores the subdirectory (or it is empty): out of scope
    cwd = os.path.join(ws.repo, sub)
    g = git_list(cwd, ws.env)
    c, err = ctx_list(cwd, ws.env, dot=mode["dot"])
    return g, c, err


# ----------------------------------------------------------------------------------------------
# Shrinking
# ----------------------------------------------------------------------------------------------

def shrink(tree: gen_tree.Tree, mode, target: str, deadline: float):
    """Minimizes ``tree`` while ``target`` stays in the git/ctxsearch disagreement."""

    def fails(t):
        try:
            r = compare(t, mode)
        except CtxError:
            return False
        if r is None:
            return False
        g, c, _ = r
        return target in (g ^ c)

    pinned_dirs = [mode["subdir"]] if isinstance(mode, dict) else []
    return gen_tree.shrink_tree(tree, fails, deadline, pinned_dirs=pinned_dirs)


# ----------------------------------------------------------------------------------------------
# Seeds
# ----------------------------------------------------------------------------------------------

class Failure:
    def __init__(self, label, tree, mode, g, c, err, note=""):
        self.label, self.tree, self.mode = label, tree, mode
        self.g, self.c, self.err, self.note = g, c, err, note

    def report(self):
        lines = ["=" * 78, "MISMATCH %s [%s]" % (self.label, mode_label(self.mode))]
        if self.note:
            lines.append(self.note)
        lines.append(self.tree.describe())
        if self.g is not None:
            lines.append("only in git:       %r" % sorted(self.g - self.c))
            lines.append("only in ctxsearch: %r" % sorted(self.c - self.g))
        if self.err:
            lines.append("ctxsearch stderr: %s" % self.err.strip())
        return "\n".join(lines)


def tree_for_seed(seed: int):
    tree = gen_tree.generate(seed, "git")
    subdir_mode = seed % 3 == 2
    if subdir_mode and tree.global_lines is not None:
        # rg anchors global excludes at the cwd, git at the repository root (EXCLUSIONS).
        tree.global_lines = [l for l in tree.global_lines if "/" not in l]
    return tree, subdir_mode


def run_seed(seed: int):
    """Returns (results, failures): results is a list of (label, ok); None past the deadline."""
    if time.time() > DEADLINE[0]:
        return None
    tree, subdir_mode = tree_for_seed(seed)
    rng = random.Random(seed * 7919 + 1)
    results, failures = [], []
    ws = Workspace(tree)
    try:
        modes = ["others"]
        if subdir_mode:
            listing = git_list(ws.repo, ws.env)
            cands = sorted({d for p in listing for d in gen_tree.parent_dirs(p)})
            if cands:
                modes.append({"subdir": rng.choice(cands), "dot": rng.random() < 0.5})
        modes.append("cached")  # must be last: it stages files
        for mode in modes:
            label = "seed %d" % seed
            try:
                r = compare_in(ws, mode)
            except CtxError as e:
                results.append((label, False))
                failures.append(Failure(label, tree, mode, None, None, str(e)))
                continue
            if r is None:
                continue
            g, c, err = r
            ok = g == c
            if VERBOSE:
                print("%s [%s]: %s (%d paths)" % (label, mode_label(mode), "ok" if ok else "MISMATCH", len(g)))
            results.append((label, ok))
            if not ok:
                failures.append(Failure(label, tree, mode, g, c, err))
    finally:
        ws.close()
    return results, failures


def run_regression(reg):
    tree = gen_tree.from_literal(reg["tree"])
    mode = reg.get("mode", "others")
    label = "regression %r" % reg["name"]
    bad = [(l, v) for lines in list(tree.ignores.values()) + [tree.exclude or [], tree.global_lines or []]
           for l in lines for v in gen_tree.git_safe_violations(l)]
    if bad:
        return [(label, False)], [Failure(label, tree, mode, None, None, "", "uses excluded constructs: %r" % bad)]
    try:
        r = compare(tree, mode)
    except CtxError as e:
        return [(label, False)], [Failure(label, tree, mode, None, None, str(e))]
    if r is None:
        return [(label, False)], [Failure(label, tree, mode, None, None, "", "subdirectory is ignored by git")]
    g, c, err = r
    if g == c:
        return [(label, True)], []
    return [(label, False)], [Failure(label, tree, mode, g, c, err)]


def main() -> int:
    if shutil.which(CTX) is None and not os.path.exists(CTX):
        print("CTXSEARCH binary %r not found" % CTX)
        print("0 passed, 1 failed")
        return 1
    start = time.time()
    seeds = [int(ONLY_SEED)] if ONLY_SEED else list(range(SEED_START, SEED_START + SEEDS))
    results, failures = [], []
    DEADLINE[0] = start + TIME_BUDGET_S
    dropped = []
    for reg in REGRESSIONS:
        r, f = run_regression(reg)
        results += r
        failures += f
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, JOBS)) as pool:
        for seed, res in zip(seeds, pool.map(run_seed, seeds)):
            if res is None:
                dropped.append(seed)
                continue
            results += res[0]
            failures += res[1]
    elapsed = time.time() - start

    shrink_deadline = time.time() + SHRINK_BUDGET_S
    shrunk = set()
    for i, f in enumerate(failures):
        if i >= DETAIL_MAX:
            print("MISMATCH %s [%s]" % (f.label, mode_label(f.mode)))
            continue
        print(f.report())
        if len(shrunk) < SHRINK_MAX and f.label not in shrunk and f.g is not None \
                and time.time() < shrink_deadline:
            shrunk.add(f.label)
            diff = sorted(f.g ^ f.c)
            target = diff[0]
            small = shrink(f.tree, f.mode, target, shrink_deadline)
            r = compare(small, f.mode)
            if r is not None:
                g, c, err = r
                print("--- minimized (keeping %r in the disagreement):" % target)
                print(small.describe())
                print("only in git:       %r" % sorted(g - c))
                print("only in ctxsearch: %r" % sorted(c - g))
                entry = {"name": "%s minimized" % f.label, "tree": small.as_literal()}
                if f.mode != "others":
                    entry["mode"] = f.mode
                print("REGRESSIONS entry: %r" % entry)
    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed
    print("binary: %s; seeds %s; %d comparisons in %.1fs"
          % (CTX, "%d..%d" % (seeds[0], seeds[-1]) if seeds else "none", len(results), elapsed))
    if dropped:
        print("time budget (%ss, CTX_DIFF_TIME_BUDGET) reached: %d of %d seeds not run (first: %d)"
              % (TIME_BUDGET_S, len(dropped), len(seeds), dropped[0]))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
