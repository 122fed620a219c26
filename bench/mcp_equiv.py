#!/usr/bin/env python3
"""Byte-for-byte comparison of two ctxsearch builds' MCP responses (a check, not a benchmark).

Sends the same JSON-RPC requests, one at a time, to `OLD mcp --root R` and `NEW mcp --root R`
and compares every response line byte for byte; a result with a `next_cursor` is followed once
more on both. R is first a generated tree of awkward files (NUL bytes, invalid UTF-8, CRLF, a BOM,
UTF-16, long and chunk-spanning lines, tabs and control bytes, empty files, a FIFO, symlinks,
.env, .gitignore rules with negation, odd names, a directory of 300 files, a git repository),
then each CORPUS given: random files and directories of it (seeded), read whole, by default, by
offset/limit and by small budgets; listed by default, whole, at depth 2 and with ignored entries;
file_info; find_files and search_files; errors (missing paths, paths outside the root, unknown
arguments, an unknown tool).

usage: mcp_equiv.py OLD NEW [CORPUS ...] [-s SEED] [-n FILES] [-d DIRS]
Exit status 0 when every response matched; the first mismatches are printed.
"""

import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_lean import Server  # noqa: E402


def raw(server, method, params):
    """Sends one request; returns its response line as bytes."""
    rid = server.next_id
    server.next_id += 1
    msg = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
    server._write((json.dumps(msg, separators=(",", ":")) + "\n").encode())
    keys = (f'"id":{rid},'.encode(), f'"id":{rid}}}'.encode(), b'"id":null')
    while True:
        line = server._read_line()
        if any(k in line for k in keys):
            return line


def make_odd_tree(root, rng):
    """Writes the awkward files under root (an empty directory)."""
    def put(rel, data):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)

    subprocess.run(["git", "init", "-q", root], check=True)
    words = [b"alpha", b"beta", b"\xc3\xa9t\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"x" * 40,
             b"\t", b"\"q\"", b"back\\slash", b"\x01\x1f", b"\x7f", b"<>&", b"\xff", b"\xc3"]
    lines = [b" ".join(rng.choice(words) for _ in range(rng.randint(0, 12))) for _ in range(6000)]
    put("big.c", b"\n".join(b"int f%d(void) { return %d; } // %s" % (i, i, lines[i % 6000])
                            for i in range(40000)) + b"\n")
    put("bom.txt", b"\xef\xbb\xbfwith bom\nline2\n")
    put("crlf.txt", b"first\r\nsecond\r\n\r\nthird\r\nno end\r")
    put("utf16.txt", "\ufeffutf16 text\nline\n".encode("utf-16-le"))
    put("no_newline.txt", b"just one line without newline")
    put("only_newlines.txt", b"\n\n\n\n")
    put("empty.txt", b"")
    put("tabs.txt", b"\tindented\n\t\tmore\t\ttabs\n\"quotes\" and \\backslash\\ and \x01\x1f ctrl\n" * 20)
    put("nul_late.txt", b"line one\n" * 2000 + b"\x00late nul\n")
    put("nul_early.bin", b"\x00\x01\x02 binary\n" * 10)
    put("invalid_utf8.txt", b"".join(rng.choice(words) + b"\n" for _ in range(300)))
    put("long_line.txt", b"y" * 180000 + b"\nshort\n")
    put("span.txt", b"".join(b"z" * rng.choice([1, 100, 4095, 4096, 65535, 65536, 70000]) + b"\n"
                             for _ in range(6)))
    put("mixed.txt", b"\n".join(lines[:3000]) + b"\n")
    put("unicode.txt", ("ünïcödé ✓ 漢字 😀\n" * 300).encode())
    put("digits.txt", b"".join(b"%d\n" % i for i in range(8000)))
    put("dir/.env", b"SECRET=1\n")
    put("dir/.gitignore", b"*.log\nbuild/\n!keep.log\n")
    put("dir/keep.log", b"keep\n")
    put("dir/x.log", b"log\n")
    put("dir/build/out.o", b"o\n")
    put("dir/sub/a.txt", b"a\n")
    put("dir/sub/b.bin", bytes(range(256)) + b"\x00" * 44)
    put("dir/sp ace.txt", b"space\n")
    put("dir/quote\"s.txt", b"q\n")
    put("dir/été.txt", b"accent\n")
    put(os.fsdecode(b"dir/bad\xffname.txt"), b"bad name\n")
    put(".ignore", b"ignored_by_dot_ignore.txt\n")
    put("ignored_by_dot_ignore.txt", b"hidden by .ignore\n")
    for i in range(300):
        put(f"many/f{i:04d}.txt", b"file %d\n" % i)
    os.symlink("crlf.txt", os.path.join(root, "link_to_crlf"))
    os.symlink("/etc/passwd", os.path.join(root, "link_outside"))
    os.symlink("dir/sub", os.path.join(root, "link_dir"))
    os.mkfifo(os.path.join(root, "fifo"))


def tree_entries(root, rng, nfiles, ndirs):
    """Sorted random samples of root's files and directories (relative, .git skipped)."""
    files, dirs = [], []
    for d, ds, fs in os.walk(root):
        ds[:] = sorted(x for x in ds if x != ".git")
        rel = os.path.relpath(d, root)
        rel = "" if rel == "." else rel
        dirs.append(rel)
        for f in sorted(fs):
            path = os.path.join(rel, f)
            try:
                path.encode("utf-8")
            except UnicodeEncodeError:
                continue  # not expressible as a JSON string argument
            files.append(path)
    rng.shuffle(files)
    rng.shuffle(dirs)
    return sorted(files[:nfiles]), sorted(dirs[:ndirs])


def calls_for(root, rng, nfiles, ndirs):
    files, dirs = tree_entries(root, rng, nfiles, ndirs)
    out = []
    for f in files:
        out += [("read_file", {"path": f}),
                ("read_file", {"path": f, "max_tokens": 1000000}),
                ("read_file", {"path": f, "offset": rng.randint(1, 40), "limit": rng.randint(1, 30)}),
                ("read_file", {"path": f, "max_tokens": rng.choice([16, 40, 100, 300, 2000, 5000])}),
                ("read_file", {"path": f, "offset": rng.randint(1, 3000)}),
                ("file_info", {"path": f})]
    for d in dirs:
        d = d or "."
        out += [("list_directory", {"path": d}),
                ("list_directory", {"path": d, "depth": 1, "max_results": 1000000,
                                    "max_tokens": 1000000}),
                ("list_directory", {"path": d, "depth": 2, "max_tokens": rng.choice([100, 500, 3000])}),
                ("list_directory", {"path": d, "include_ignored": True, "max_results": 7}),
                ("file_info", {"path": d})]
    for d in dirs[:max(1, ndirs // 10)]:
        d = d or "."
        out += [("find_files", {"pattern": "*.c", "path": d, "max_results": 50}),
                ("search_files", {"pattern": "int [a-z]+", "path": d, "max_results": 20}),
                ("read_file", {"path": d})]
    return out


FIXED = [
    ("read_file", {"path": "nope.txt"}), ("read_file", {"path": "../etc/passwd"}),
    ("read_file", {"path": "/etc/passwd"}), ("read_file", {"path": "."}),
    ("read_file", {"path": "fifo"}), ("file_info", {"path": "fifo"}),
    ("read_file", {"path": "link_to_crlf"}), ("read_file", {"path": "link_outside"}),
    ("list_directory", {"path": "link_dir"}), ("read_file", {"path": "dir/.env"}),
    ("read_file", {"path": "crlf.txt", "offset": 0}), ("read_file", {"path": "crlf.txt", "limit": 0}),
    ("read_file", {"path": "crlf.txt", "max_tokens": 3}), ("read_file", {"path": "crlf.txt", "bogus": 1}),
    ("read_file", {"path": "utf16.txt"}), ("read_file", {"path": "nul_early.bin"}),
    ("list_directory", {"path": "nope"}), ("list_directory", {"path": "/etc"}),
    ("list_directory", {"path": ".", "depth": 9}), ("list_directory", {"path": "many"}),
    ("list_directory", {"path": "many", "max_results": 10}), ("list_directory", {"path": "dir", "include_ignored": True}),
    ("find_files", {"pattern": "**/*.txt"}), ("find_files", {"pattern": "**/*.c", "max_results": 5}),
    ("find_files", {"pattern": "[", "max_results": 5}),
    ("search_files", {"pattern": "line", "max_results": 20}), ("search_files", {"pattern": "(", "max_results": 5}),
    ("search_files", {"pattern": "curl_easy_init", "max_results": 5}),
    ("list_directory", {"path": "git"}),
    ("list_directory", {"path": "git", "depth": 1, "max_results": 1000000, "max_tokens": 1000000}),
    ("read_file", {"path": "curl/lib/file.c"}), ("read_file", {"path": "curl/lib/file.c", "max_tokens": 1000000}),
    ("no_such_tool", {}),
]


def compare(old, new, root, calls):
    """Returns (calls compared, mismatches)."""
    servers = [Server(n, [b, "mcp", "--root", root]) for n, b in (("old", old), ("new", new))]
    for s in servers:
        s.handshake()
    total = bad = errors = 0
    try:
        for name, args in calls:
            params = {"name": name, "arguments": args}
            for _ in range(2):  # the call, then its cursor's page if it has one
                a, b = (raw(s, "tools/call", params) for s in servers)
                total += 1
                errors += b'"isError":true' in a or b'"error":{' in a
                if a != b:
                    bad += 1
                    if bad <= 5:
                        at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                        print(f"MISMATCH {root} {name} {json.dumps(args)} at byte {at}\n"
                              f"  old: {a[max(0, at - 80):at + 80]!r}\n  new: {b[max(0, at - 80):at + 80]!r}")
                try:
                    sc = json.loads(a).get("result", {}).get("structuredContent") or {}
                except ValueError:
                    sc = {}
                cursor = sc.get("next_cursor") if isinstance(sc, dict) else None
                if not isinstance(cursor, str):
                    break
                params = {"name": name, "arguments": dict(args, cursor=cursor)}
    finally:
        for s in servers:
            s.close()
    print(f"mcp_equiv: {root}: {errors} of {total} responses are errors", file=sys.stderr)
    return total, bad


def main():
    args, corpora, seed, nfiles, ndirs = sys.argv[1:], [], 1, 250, 120
    pos = []
    i = 0
    while i < len(args):
        if args[i] in ("-s", "-n", "-d"):
            value = int(args[i + 1])
            seed, nfiles, ndirs = (value if args[i] == "-s" else seed, value if args[i] == "-n" else nfiles,
                                   value if args[i] == "-d" else ndirs)
            i += 2
        elif args[i] in ("-h", "--help"):
            print(__doc__)
            return 2
        else:
            pos.append(args[i])
            i += 1
    if len(pos) < 2:
        print(__doc__)
        return 2
    old, new, corpora = pos[0], pos[1], pos[2:]
    rng = random.Random(seed)
    total = bad = 0
    with tempfile.TemporaryDirectory(prefix="mcp-equiv-") as odd:
        make_odd_tree(odd, rng)
        for root, nf, nd in [(odd, 1000, 1000)] + [(os.path.realpath(c), nfiles, ndirs) for c in corpora]:
            t, b = compare(old, new, root, calls_for(root, rng, nf, nd) + FIXED)
            print(f"mcp_equiv: {root}: {t} calls, {b} differ", file=sys.stderr)
            total, bad = total + t, bad + b
    print(f"mcp_equiv: {total} calls compared, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
