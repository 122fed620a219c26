"""Random file trees and random ignore files for the differential tests.

Everything is derived from an integer seed through ``random.Random(seed)``, so a failing seed
reproduces exactly. Names come from a small alphabet so that patterns and paths collide often.

Two flavours:

* ``flavor="git"`` only produces constructs on which git and ripgrep agree by design. It is
  used by test_git_ignore.py, where git is the oracle. Every construct it deliberately avoids
  is listed in ``EXCLUSIONS`` with the reason.
* ``flavor="rg"`` additionally produces ``.ignore`` / ``.rgignore`` files and the constructs
  that only ripgrep gives a meaning to (POSIX classes are literal there, ``foo\\/``, unclosed
  ``[``, ``{a,b}`` alternations, negated classes anywhere). It is used by test_rg_files.py,
  where upstream ripgrep is the oracle.

The module is plain Python 3 (stdlib only) and imported by the tests by path.
"""

from __future__ import annotations

import copy
import os
import random
from dataclasses import dataclass, field

# Constructs that the git flavour never generates, with the reason. Each of these is a place
# where git and ripgrep (and therefore ctxsearch, which follows ripgrep) disagree by design or
# through a documented quirk of one of them; the rg flavour covers most of them against rg.
EXCLUSIONS = [
    ("symlinks", "ripgrep does not follow them by default, git records the link itself"),
    ("nested repositories", "git stops at a nested .git (it lists `sub/`), ripgrep descends"),
    ("CRLF line endings", "git keeps the CR as part of the pattern unless core.autocrlf; rg "
     "trims all trailing whitespace including CR"),
    ("trailing tabs / non-space trailing whitespace",
     "git only strips trailing spaces; rg's trim_end() strips every whitespace character"),
    ("escaped space followed by unescaped trailing spaces (`a\\  `)",
     "git keeps `a ` ; rg only skips trimming when the line ends exactly in `\\ `, so it "
     "trims to `a\\` (dangling escape, line dropped)"),
    ("unclosed `[`", "git's wildmatch never matches; ripgrep 14 treats `[` literally "
     "(ripgrep 13 drops the line)"),
    ("pattern ending in a backslash", "git never matches it; ripgrep reports a dangling escape "
     "and drops the line; `foo\\/` is the documented special case: rg 14 reads it as dir-only "
     "`foo`, git as `foo\\` which matches nothing"),
    ("`{a,b}` braces", "ripgrep's globset expands alternations, git matches `{` literally"),
    ("POSIX classes `[[:alpha:]]`", "git's wildmatch supports them; ripgrep's globset does not "
     "(it reads a class of `[:alph` followed by a literal `]`)"),
    ("backslash inside a bracket expression", "git treats it as an escape, globset as a "
     "literal backslash"),
    ("negated class between two non-separator pattern parts (`a[!x]b`, `*[!x]`)",
     "globset's `[!x]` / `[^x]` can match `/` (it compiles to `[^x]`), git's wildmatch "
     "never lets a bracket expression match `/`; e.g. `a[!x]b` ignores `a/b` in rg only. "
     "The git flavour only puts negated classes at the start or end of a path component"),
    ("ranges spanning `/` (e.g. `[+-0]`)", "same reason: globset classes can match `/`"),
    ("three or more consecutive `*`", "git collapses any run of stars, globset parses `**` "
     "then `*`"),
    ("bare `!` or `/` lines", "meaningless in git; in rg `!` becomes the glob `**/`"),
    ("`.git`, `.ignore`, `.rgignore`, `.ctxignore` as generated names",
     "they are control files with meanings outside gitignore"),
    ("backslashes, newlines and non-UTF-8 bytes in file names",
     "they cannot be written literally in an ignore pattern portably (non-UTF-8 names are "
     "covered by tests/cli)"),
    ("global excludes containing `/` when run from a subdirectory",
     "git anchors core.excludesFile patterns at the repository root, ripgrep anchors them at "
     "the current directory (Gitignore::global() uses current_dir())"),
    ("running from a subdirectory that git considers ignored",
     "git lists nothing inside an ignored directory; ripgrep never matches its search root "
     "against ignore rules, so it lists the contents"),
    ("a pattern that only matches in the index (tracked but ignored files)",
     "ripgrep ignores the index; the --cached mode only ever adds with `git add -A`, which "
     "never stages ignored files"),
]

# Names are drawn from this pool for files and directories alike, so that a pattern written for
# a file also hits a directory of the same name somewhere else.
NAMES = [
    "a", "b", "ab", "ba", "abc", "a.c", "b.c", "a.h", "b.txt", "a.txt", "B.TXT", "A",
    ".h", ".a", ".hidden", "x.o", "y.o", "foo", "foo.bar", "bar", "foo.c", "a.py", "b.pyi",
    "x.foo", "a b", "a ", "#a", "!b", "[a]", "a]", "c[d", "a!b", "x#y", "target", "build",
    "c", "d1", "e.rs",
]
# Names ending in `.` (ripgrep before 15 never matches them with basename globs, #2990); only some
# of the trees use them so that the other trees stay comparable with old ripgreps.
DOT_NAMES = ["asdf.", "b."]

EXTS = ["c", "h", "txt", "o", "bar", "py", "TXT", "foo", "rs"]

# File sizes chosen around the 1K boundary used by --max-filesize.
SIZES = [0, 0, 3, 40, 1023, 1024, 1025, 2000]


@dataclass
class Tree:
    """A file tree plus ignore configuration; all paths are relative POSIX paths."""

    files: dict = field(default_factory=dict)  # path -> bytes
    dirs: set = field(default_factory=set)  # every directory (not the root)
    ignores: dict = field(default_factory=dict)  # ignore file path -> list of lines
    exclude: list | None = None  # .git/info/exclude lines
    global_lines: list | None = None  # global excludes file lines
    global_how: str = "none"  # none | xdg | config | config-tilde

    def clone(self) -> "Tree":
        return copy.deepcopy(self)

    # -- writing -----------------------------------------------------------------------------
    def write(self, root: str) -> None:
        """Writes directories, files and per-directory ignore files below ``root``."""
        for d in sorted(self.dirs):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        for p, data in self.files.items():
            full = os.path.join(root, p)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(data)
        for p, lines in self.ignores.items():
            full = os.path.join(root, p)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(render_lines(lines))

    def write_git_extras(self, root: str) -> None:
        """Writes .git/info/exclude (call after `git init`)."""
        if self.exclude is None:
            return
        info = os.path.join(root, ".git", "info")
        os.makedirs(info, exist_ok=True)
        with open(os.path.join(info, "exclude"), "wb") as f:
            f.write(render_lines(self.exclude))

    def write_global(self, home: str) -> None:
        """Writes the global excludes file and, if asked, a ~/.gitconfig pointing at it."""
        if self.global_lines is None or self.global_how == "none":
            return
        if self.global_how == "xdg":
            path = os.path.join(home, ".config", "git", "ignore")
        else:
            path = os.path.join(home, "global-excludes")
            where = "~/global-excludes" if self.global_how == "config-tilde" else path
            with open(os.path.join(home, ".gitconfig"), "w") as f:
                f.write("[core]\n\texcludesFile = %s\n" % where)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(render_lines(self.global_lines))

    # -- description -------------------------------------------------------------------------
    def describe(self) -> str:
        out = []
        out.append("files: %r" % sorted(self.files))
        empty = sorted(d for d in self.dirs
                       if not any(p.startswith(d + "/") for p in list(self.files) + list(self.ignores)))
        if empty:
            out.append("empty dirs: %r" % empty)
        for p in sorted(self.ignores):
            out.append("%s: %r" % (p, self.ignores[p]))
        if self.exclude is not None:
            out.append(".git/info/exclude: %r" % self.exclude)
        if self.global_lines is not None and self.global_how != "none":
            out.append("global excludes (%s): %r" % (self.global_how, self.global_lines))
        return "\n".join(out)

    def as_literal(self) -> dict:
        """A dict literal suitable for a REGRESSIONS entry (see from_literal)."""
        d = {"files": sorted(self.files), "ignores": {k: list(v) for k, v in sorted(self.ignores.items())}}
        empty = sorted(d_ for d_ in self.dirs
                       if not any(p.startswith(d_ + "/") for p in list(self.files) + list(self.ignores)))
        if empty:
            d["dirs"] = empty
        if self.exclude is not None:
            d["exclude"] = list(self.exclude)
        if self.global_lines is not None and self.global_how != "none":
            d["global"] = [self.global_how, list(self.global_lines)]
        return d


def from_literal(d: dict) -> Tree:
    """Builds a Tree from the dict form used in REGRESSIONS lists."""
    t = Tree()
    for p in d.get("files", []):
        t.files[p] = d.get("sizes", {}).get(p, 1) * b"x"
    for p in d.get("dirs", []):
        t.dirs.add(p)
    t.ignores = {k: list(v) for k, v in d.get("ignores", {}).items()}
    if "exclude" in d:
        t.exclude = list(d["exclude"])
    if "global" in d:
        t.global_how, t.global_lines = d["global"][0], list(d["global"][1])
    _add_parent_dirs(t)
    return t


def _add_parent_dirs(t: Tree) -> None:
    for p in list(t.files) + list(t.ignores) + list(t.dirs):
        parts = p.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            t.dirs.add("/".join(parts[:i]))


def render_lines(lines) -> bytes:
    return "".join(line + "\n" for line in lines).encode("utf-8")


def parent_dirs(path: str):
    """'a/b/c' -> ['a', 'a/b']"""
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


# ----------------------------------------------------------------------------------------------
# Tree generation
# ----------------------------------------------------------------------------------------------

IGNORE_NAMES_GIT = [".gitignore"]
IGNORE_NAMES_RG = [".gitignore", ".ignore", ".rgignore"]


def generate(seed: int, flavor: str = "git", max_depth: int = 5, max_files: int = 70) -> Tree:
    """Generates a random tree with random ignore files from ``seed``."""
    assert flavor in ("git", "rg")
    rng = random.Random(seed)
    t = Tree()
    names = NAMES + DOT_NAMES if rng.random() < (0.25 if flavor == "git" else 0.1) else NAMES
    # rg flavour: only some trees use the constructs that only new ripgreps get right.
    quirks = flavor == "rg" and rng.random() < 0.12
    depth_limit = rng.choice([1, 2, 3, 3, 4, 4, 5, max_depth])
    depth_limit = min(depth_limit, max_depth)
    _gen_dir(rng, t, "", 0, depth_limit, max_files, names)
    # A few files that are guaranteed to exist at the root so that most trees list something.
    if not any("/" not in p for p in t.files):
        free = [n for n in names if n not in t.dirs]
        t.files[rng.choice(free)] = b"x"

    gen = PatternGen(rng, t, flavor, quirks)
    all_dirs = [""] + sorted(t.dirs)
    ignore_names = IGNORE_NAMES_GIT if flavor == "git" else IGNORE_NAMES_RG
    for d in all_dirs:
        for name in ignore_names:
            if name == ".gitignore":
                p = 0.7 if d == "" else 0.3
            else:
                p = 0.25 if d == "" else 0.12
            if rng.random() < p:
                path = name if d == "" else d + "/" + name
                t.ignores[path] = gen.lines(d, rng.randint(1, 7))
    if rng.random() < 0.4:
        t.exclude = gen.lines("", rng.randint(1, 5))
    if rng.random() < 0.35:
        t.global_how = rng.choice(["xdg", "config", "config-tilde"])
        t.global_lines = gen.lines("", rng.randint(1, 4))
    return t


def _gen_dir(rng, t: Tree, path: str, depth: int, depth_limit: int, max_files: int, names) -> None:
    hi = max(2, 7 - depth)
    n = rng.randint(3 if depth == 0 else 1, hi)
    for name in rng.sample(names, n):
        if len(t.files) >= max_files:
            return
        p = name if path == "" else path + "/" + name
        if depth < depth_limit and rng.random() < 0.55 - 0.07 * depth:
            t.dirs.add(p)
            _gen_dir(rng, t, p, depth + 1, depth_limit, max_files, names)
        else:
            t.files[p] = b"x" * rng.choice(SIZES)


# ----------------------------------------------------------------------------------------------
# Pattern generation
# ----------------------------------------------------------------------------------------------

GLOB_SPECIAL = set("[]*?\\")

# Triage knob: CTX_GEN_DISABLE=brace,posix,dstar,... turns generator features off (component
# kinds: q class nclass range star_pre star_suf ext posix brace unclosed; pattern kinds: dstar
# (every `**` form), negation, escslash, trailing_space).
DISABLED = set(filter(None, os.environ.get("CTX_GEN_DISABLE", "").split(",")))
# CTX_GEN_GIT_EXTRAS=posix,brace re-enables these excluded constructs in the git flavour (for the
# day ctxsearch decides to follow git rather than ripgrep on them).
GIT_EXTRAS = set(filter(None, os.environ.get("CTX_GEN_GIT_EXTRAS", "").split(",")))


def escape_literal(name: str, rng=None) -> str:
    """Escapes a literal file name so that both git and globset read it literally."""
    out = []
    for c in name:
        if c in "[*?\\":
            out.append("\\" + c)
        elif c == "]" and rng is not None and rng.random() < 0.3:
            out.append("\\]")
        else:
            out.append(c)
    s = "".join(out)
    if s.endswith(" "):
        s = s[:-1] + "\\ "
    return s


class PatternGen:
    def __init__(self, rng: random.Random, tree: Tree, flavor: str, quirks: bool = True):
        self.rng = rng
        self.tree = tree
        self.flavor = flavor
        # quirks: `foo\/`, unclosed `[`, escaped space + trailing spaces (rg flavour only)
        self.quirks = quirks and flavor == "rg"
        self.entries = sorted(tree.files) + sorted(tree.dirs)

    # -- components --------------------------------------------------------------------------
    def component(self, name: str) -> str:
        """Turns one path component (a literal name) into a glob that may or may not match it."""
        rng = self.rng
        if rng.random() < 0.45 or name == "":
            return escape_literal(name, rng)
        kind = rng.choice(["q", "class", "nclass", "range", "star_pre", "star_suf", "ext", "posix",
                           "brace", "unclosed"])
        if kind in DISABLED:
            return escape_literal(name, rng)
        chars = list(name)
        i = rng.randrange(len(chars))
        lit = lambda s: escape_literal(s, rng)  # noqa: E731
        if kind == "q":
            return lit(name[:i]) + "?" + lit(name[i + 1:])
        if kind == "class":
            members = set(rng.sample("abcxyz.o", 3))
            if rng.random() < 0.6 and chars[i] not in "[]\\!^-/":
                members.add(chars[i])
            cls = "".join(sorted(members - set("]\\-/!^")))
            return lit(name[:i]) + "[" + cls + "]" + lit(name[i + 1:])
        if kind == "nclass":
            if self.flavor == "git":
                # globset's negated classes can match '/', git's cannot: keep them at the
                # start or the end of the component, with nothing before / after.
                i = rng.choice([0, len(chars) - 1])
            neg = rng.choice(["!", "^"]) if self.flavor == "rg" else "!"
            other = rng.choice(["a", "b", "x", "ab", "o."])
            if rng.random() < 0.5 and chars[i] not in "[]\\!^-/":
                other = chars[i]
            return lit(name[:i]) + "[" + neg + other + "]" + lit(name[i + 1:])
        if kind == "range":
            lo, hi = rng.choice([("a", "c"), ("x", "z"), ("a", "z"), ("A", "Z"), ("0", "9"), ("b", "f")])
            return lit(name[:i]) + "[" + lo + "-" + hi + "]" + lit(name[i + 1:])
        if kind == "star_pre":
            return "*" + lit(name[i + 1:]) if i + 1 < len(name) else "*"
        if kind == "star_suf":
            return lit(name[:i]) + "*"
        if kind == "ext":
            if "." in name[1:]:
                base = name[: name.rindex(".")]
                return rng.choice([lit(base) + ".*", "*." + lit(name[name.rindex(".") + 1:])])
            return "*." + rng.choice(EXTS)
        if self.flavor == "rg" or kind in GIT_EXTRAS:
            if kind == "posix":
                cls = rng.choice(["[[:alpha:]]", "[[:digit:]]", "[[:alnum:]]", "[![:alpha:]]"])
                return lit(name[:i]) + cls + lit(name[i + 1:])
            if kind == "brace":
                return "{" + lit(name) + "," + rng.choice(["a", "b", "x.o", "*.c"]) + "}"
            if kind == "unclosed" and self.quirks:
                return lit(name[:i]) + "[" + name[i:].replace("]", "").replace("\\", "")
        return escape_literal(name, rng)

    def path_glob(self, rel: str) -> str:
        parts = rel.split("/")
        return "/".join(self.component(p) for p in parts)

    # -- whole patterns ----------------------------------------------------------------------
    def entries_under(self, base: str):
        if base == "":
            return self.entries
        pre = base + "/"
        return [e[len(pre):] for e in self.entries if e.startswith(pre)]

    def pattern(self, base: str) -> str:
        rng = self.rng
        under = self.entries_under(base)
        anywhere = self.entries
        pick = lambda lst: rng.choice(lst) if lst else rng.choice(NAMES)  # noqa: E731
        r = rng.random()
        if r < 0.30:  # basename of something that exists
            pat = self.component(pick(anywhere).split("/")[-1])
        elif r < 0.38:
            pat = "*." + rng.choice(EXTS)
        elif r < 0.50:  # anchored
            pat = "/" + self.path_glob(pick(under))
        elif r < 0.62:  # middle slash, relative to the ignore file
            rel = pick([u for u in under if "/" in u] or under)
            pat = self.path_glob(rel)
            if "/" not in pat and rng.random() < 0.5:
                pat = pat + "/" + self.component(rng.choice(NAMES))
        elif r < 0.70:  # dir-only
            dirs = [u for u in under if (base + "/" + u if base else u) in self.tree.dirs]
            name = pick(dirs) if rng.random() < 0.8 else pick(under)
            if rng.random() < 0.5:
                name = name.split("/")[-1]
            pat = self.path_glob(name) + "/"
        elif r < 0.90 and "dstar" in DISABLED:
            pat = self.component(pick(under).split("/")[-1])
        elif r < 0.76:  # **/x
            pat = "**/" + self.path_glob(pick(under).split("/")[-1] if rng.random() < 0.7 else pick(under))
        elif r < 0.82:  # x/**
            dirs = [u for u in under if (base + "/" + u if base else u) in self.tree.dirs]
            pat = self.path_glob(pick(dirs)) + "/**"
            if rng.random() < 0.3:
                pat = "/" + pat
            if rng.random() < 0.15:
                pat += "/"
        elif r < 0.88:  # a/**/b
            deep = [u for u in under if u.count("/") >= 1]
            if deep:
                u = rng.choice(deep).split("/")
                pat = self.path_glob(u[0]) + "/**/" + self.component(u[-1])
            else:
                pat = self.component(pick(under).split("/")[0]) + "/**/" + self.component(rng.choice(NAMES))
        elif r < 0.90:
            pat = "**"
            if rng.random() < 0.6:
                pat = "**/"
        else:
            pat = self.component(rng.choice(NAMES))
        if self.quirks and rng.random() < 0.05 and "escslash" not in DISABLED:
            # escaped trailing slash: dir-only in rg 14
            d = pick([u for u in under if (base + "/" + u if base else u) in self.tree.dirs])
            pat = escape_literal(d.split("/")[-1]) + "\\/"
        if pat.startswith("#") or pat.startswith("!"):
            pat = "\\" + pat
        return pat

    def line(self, base: str) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.06:
            return "#" + rng.choice(["", " comment", "a", "!b", " *.c", "foo/"])
        if r < 0.10:
            return rng.choice(["", "", "   "])
        pat = self.pattern(base)
        if rng.random() < 0.25 and "negation" not in DISABLED:
            pat = "!" + pat
        if rng.random() < 0.1 and not pat.endswith("\\ ") and not pat.endswith("\\") \
                and "trailing_space" not in DISABLED:
            pat += " " * rng.randint(1, 2)
        if self.quirks and rng.random() < 0.03 and not pat.endswith("\\"):
            pat += "\\ " + (" " if rng.random() < 0.5 else "")
        return pat

    def lines(self, base: str, n: int):
        return [self.line(base) for _ in range(n)]


# ----------------------------------------------------------------------------------------------
# Shrinking
# ----------------------------------------------------------------------------------------------

def atoms_of(tree: Tree):
    """The removable pieces of a tree: files, ignore lines (per source) and directories."""
    atoms = [("file", p) for p in sorted(tree.files)]
    for src in sorted(tree.ignores):
        atoms += [("line", src, i) for i in range(len(tree.ignores[src]))]
    if tree.exclude is not None:
        atoms += [("line", "<exclude>", i) for i in range(len(tree.exclude))]
    if tree.global_lines is not None and tree.global_how != "none":
        atoms += [("line", "<global>", i) for i in range(len(tree.global_lines))]
    atoms += [("dir", d) for d in sorted(tree.dirs)]
    return atoms


def build_from_atoms(orig: Tree, keep, pinned_dirs=()) -> Tree:
    keep = set(keep)
    t = Tree()
    t.files = {p: d for p, d in orig.files.items() if ("file", p) in keep}
    t.dirs = {d for d in orig.dirs if ("dir", d) in keep} | set(pinned_dirs)
    for src, lines in orig.ignores.items():
        kept = [l for i, l in enumerate(lines) if ("line", src, i) in keep]
        if kept:
            t.ignores[src] = kept
    if orig.exclude is not None:
        kept = [l for i, l in enumerate(orig.exclude) if ("line", "<exclude>", i) in keep]
        if kept:
            t.exclude = kept
    if orig.global_lines is not None and orig.global_how != "none":
        kept = [l for i, l in enumerate(orig.global_lines) if ("line", "<global>", i) in keep]
        if kept:
            t.global_lines, t.global_how = kept, orig.global_how
    _add_parent_dirs(t)
    return t


def shrink_tree(tree: Tree, still_fails, deadline: float, pinned_files=(), pinned_dirs=()) -> Tree:
    """Greedy delta debugging: removes chunks of atoms (halving the chunk size) while
    ``still_fails(candidate_tree)`` holds, until ``time.time() >= deadline``. Pinned files and
    directories (path arguments, the cwd) are never removed."""
    import time

    pinned = {("file", p) for p in pinned_files}
    atoms = [a for a in atoms_of(tree) if a not in pinned]
    fixed = [a for a in atoms_of(tree) if a in pinned]
    chunk = max(1, len(atoms) // 2)
    while chunk >= 1 and time.time() < deadline:
        i = 0
        progressed = False
        while i < len(atoms) and time.time() < deadline:
            cand = atoms[:i] + atoms[i + chunk:]
            if still_fails(build_from_atoms(tree, cand + fixed, pinned_dirs)):
                atoms = cand
                progressed = True
            else:
                i += chunk
        if not progressed:
            chunk //= 2
    return build_from_atoms(tree, atoms + fixed, pinned_dirs)


def git_safe_violations(line: str):
    """Returns reasons why ``line`` uses a construct excluded from the git flavour (for checks
    of hand-written regression cases)."""
    out = []
    if "\t" in line or "\r" in line:
        out.append("tab/CR")
    body = line.rstrip(" ")
    trailing_bs = len(body) - len(body.rstrip("\\"))
    if trailing_bs % 2 == 1:
        if body == line:
            out.append("ends in backslash")
        elif line != body + " ":
            out.append("escaped space followed by trailing spaces")
    if "{" in body or "}" in body:
        out.append("braces")
    if "[:" in body:
        out.append("POSIX class")
    if "***" in body:
        out.append("***")
    if body in ("!", "/"):
        out.append("bare ! or /")
    return out


if __name__ == "__main__":  # pragma: no cover - manual inspection helper
    import sys

    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    flavor = sys.argv[2] if len(sys.argv) > 2 else "git"
    print(generate(seed, flavor).describe())
