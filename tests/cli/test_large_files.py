#!/usr/bin/env python3
"""Large files: memory stays bounded by the file, not by the number of matches, and large files
(memory-mapped past 4 MiB) are searched exactly as small ones.

1. Peak RSS with ~2.4 million matching lines piped out is within a small margin of the peak RSS
   for the same-sized file with one match (output streams; nothing per match is kept), and, for
   an unsanitized build, within 1.5x ripgrep's peak on the same file (plus 8 MiB for our larger
   binary and thread pool) when rg is installed; so is the peak for a large file found by the
   walk (searched a window at a time, its mapped pages dropped behind the search), under
   --no-mmap (the file read a window at a time as the search goes), and for a UTF-16 file
   (decoded as a stream of pieces).
2. Output on large files (a text file, a file with a NUL after the first 64 KiB, one with a NUL
   in the first 64 KiB, a UTF-16LE file) is byte-for-byte ripgrep's, found by the walk and named;
   so is the output of files named on the command line that are large enough (8 MiB) to be
   searched in chunks on several threads, with NUL bytes in reported lines and in others.

Run as `python3 tests/cli/test_large_files.py` with CTXSEARCH set.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

CTX = os.path.abspath(os.environ.get("CTXSEARCH", "build/release/ctxsearch"))
# The oracle: rg 14 (upstream, which ctxsearch follows) when present, else rg from PATH.
RG14 = os.environ.get("RG14") or os.path.expanduser("~/.cache/ctxsearch/rg14/rg")
RG = RG14 if os.access(RG14, os.X_OK) else shutil.which("rg")
LINES = 2_400_000
MATCH_MARGIN_KB = 16 * 1024


def sanitized(binary: str) -> bool:
    out = subprocess.run(["ldd", binary], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return b"libasan" in out.stdout or b"libtsan" in out.stdout


# Measures a command's peak RSS from a small parent (tests/tools/peak_rss.cpp): measured from
# here, every figure below this Python process's own peak would read as that peak.
PEAK_RSS = os.environ.get("CTX_PEAK_RSS") or os.path.join(os.path.dirname(CTX), "tests",
                                                           "ctx_peak_rss")


def peak_rss_kb(argv: list[str], cwd: str, stdin: str | None = None) -> tuple[int, int, int]:
    """Runs argv (stdin from the file `stdin`, if given) with stdout drained through a pipe;
    returns (exit code, peak RSS KiB, bytes out)."""
    env = dict(os.environ)
    # ASan keeps freed memory in quarantine; per-match garbage would look like growth.
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=0"
    stdin_file = open(os.path.join(cwd, stdin), "rb") if stdin else subprocess.DEVNULL
    proc = subprocess.Popen([PEAK_RSS] + argv, cwd=cwd, stdin=stdin_file, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    if stdin:
        stdin_file.close()
    out_bytes = 0
    while True:
        chunk = proc.stdout.read(1 << 20)
        if not chunk:
            break
        out_bytes += len(chunk)
    err = proc.stderr.read().decode(errors="replace").splitlines()
    proc.wait()
    if not err or not err[-1].startswith("peak_rss_kib "):
        raise SystemExit(f"{PEAK_RSS} gave no peak RSS for {argv}: {err[-3:]}")
    return proc.returncode, int(err[-1].split()[1]), out_bytes


def write_lines(path: str, prefix: str, count: int, tail: str = "") -> None:
    with open(path, "w") as f:
        block = []
        for i in range(count):
            block.append(f"{prefix} line {i:09d}\n")
            if len(block) == 100_000:
                f.write("".join(block))
                block.clear()
        f.write("".join(block))
        f.write(tail)


def check_memory(tmp: str) -> list[str]:
    failures = []
    write_lines(os.path.join(tmp, "many.txt"), "match", LINES)
    write_lines(os.path.join(tmp, "few.txt"), "other", LINES, "match once\n")
    code_many, rss_many, out_many = peak_rss_kb([CTX, "-n", "match", "many.txt"], tmp)
    code_few, rss_few, _ = peak_rss_kb([CTX, "-n", "match", "few.txt"], tmp)
    print(f"ctxsearch peak RSS: {rss_many} KiB with {LINES} matches ({out_many} bytes out), "
          f"{rss_few} KiB with 1 match")
    if code_many != 0 or code_few != 0:
        failures.append(f"exit codes {code_many}/{code_few}, expected 0/0")
    if rss_many - rss_few > MATCH_MARGIN_KB:
        failures.append(f"memory grows with matches: {rss_many} KiB vs {rss_few} KiB for one match")
    if RG and not sanitized(CTX):
        _, rg_many, rg_out = peak_rss_kb([RG, "-n", "match", "many.txt"], tmp)
        print(f"rg peak RSS: {rg_many} KiB ({rg_out} bytes out)")
        if rss_many > 1.5 * rg_many + 8 * 1024:
            failures.append(f"peak RSS {rss_many} KiB is above 1.5x rg's {rg_many} KiB + 8 MiB")
        if rg_out != out_many:
            failures.append(f"output size {out_many} differs from rg's {rg_out}")
    failures += check_walked_memory(tmp)
    for name in ("many.txt", "few.txt"):
        os.unlink(os.path.join(tmp, name))
    return failures


def check_walked_memory(tmp: str) -> list[str]:
    """A large file found by the walk (memory-mapped, searched a window at a time with its pages
    dropped behind) costs a window, not its size: within 1.5x ripgrep's peak (its roll buffer)
    plus 8 MiB, with every line reported, with none, and inverted."""
    failures = []
    if not RG or sanitized(CTX):
        return failures
    with open(os.path.join(tmp, "few.txt")) as src, open(os.path.join(tmp, "wide.txt"), "wb") as f:
        f.write(b"\xff\xfe" + src.read().encode("utf-16-le"))
    with open(os.path.join(tmp, "few.txt"), "rb") as src, open(os.path.join(tmp, "nul.bin"), "wb") as f:
        f.write(b"a\x00\n" + src.read())
    for args in (["-n", "match", "-g", "many.txt"], ["-c", "nowhere", "-g", "many.txt"],
                 ["-n", "match", "-g", "few.txt"], ["-v", "-c", "other", "-g", "few.txt"],
                 # Read without a map: the file arrives a window at a time (FileBuffer filling).
                 ["--no-mmap", "-n", "match", "-g", "few.txt"],
                 ["--no-mmap", "-c", "-B2", "match", "-g", "many.txt"],
                 # Named: ripgrep's binary conversion (NUL bytes become line ends) as it arrives.
                 ["--no-mmap", "-n", "match", "few.txt"],
                 # Named among more than 10 paths: read as rg reads it, converted as it arrives.
                 ["-c", "match"] + ["few.txt"] * 11,
                 # stdin redirected from a large file (`ctxsearch -n match < few.txt`).
                 ["-n", "match", "<", "few.txt"],
                 # UTF-16 (a BOM): decoded as a stream, as rg's decoder reads it, mapped, filled,
                 # named among 11 paths and from stdin.
                 ["-n", "match", "-g", "wide.txt"],
                 ["--no-mmap", "-c", "-C1", "match", "-g", "wide.txt"],
                 ["-c", "match"] + ["wide.txt"] * 11,
                 ["-n", "match", "<", "wide.txt"],
                 # Walked under --binary: NULs converted as the file arrives, not in a copy of it.
                 ["--binary", "-l", "match", "-g", "nul.bin"],
                 ["--binary", "-c", "nowhere", "-g", "nul.bin"]):
        stdin = args[-1] if "<" in args else None
        argv = args[:-2] if stdin else args
        code, ours, out = peak_rss_kb([CTX] + argv, tmp, stdin)
        rg_code, theirs, rg_out = peak_rss_kb([RG] + argv, tmp, stdin)
        print(f"walked or named, {' '.join(args)}: ctxsearch {ours} KiB, rg {theirs} KiB")
        if (code, out) != (rg_code, rg_out):
            failures.append(f"walked {args}: exit {code} and {out} bytes out, rg {rg_code} and "
                            f"{rg_out}")
        if ours > 1.5 * theirs + 8 * 1024:
            failures.append(f"walked {args}: peak RSS {ours} KiB is above 1.5x rg's {theirs} KiB "
                            f"+ 8 MiB")
    os.unlink(os.path.join(tmp, "wide.txt"))
    os.unlink(os.path.join(tmp, "nul.bin"))
    return failures


# Cases that differ from rg for a known, reported bug (named as in tests/cli/test_search_cli.py's
# OPEN_BUGS). They run; a failure prints XFAIL, a pass XPASS (then remove the entry).
OPEN_BUGS: dict[tuple[str, ...], str] = {}


def check_outputs(tmp: str) -> list[str]:
    if not RG:
        print("rg not installed: output comparison skipped")
        return []
    tree = os.path.join(tmp, "tree")
    os.makedirs(tree)
    big = 5 << 20
    body = b"".join(b"needle %d here\n" % i if i % 5000 == 0 else b"hay %d\n" % i
                    for i in range(big // 8))
    with open(os.path.join(tree, "text.txt"), "wb") as f:
        f.write(body)
    with open(os.path.join(tree, "late_nul.bin"), "wb") as f:
        f.write(body[: 3 << 20] + b"\0needle after nul\n" + body[: 2 << 20])
    with open(os.path.join(tree, "early_nul.bin"), "wb") as f:
        f.write(b"needle first\n\0" + body)
    # Its only match in its last window (--no-mmap once scanned that window before it arrived).
    with open(os.path.join(tree, "last.txt"), "wb") as f:
        f.write(body.replace(b"needle", b"hay") + b"needle at the end\n")
    with open(os.path.join(tree, "utf16.txt"), "wb") as f:
        f.write(b"\xff\xfe" + body[: 3 << 20].decode().encode("utf-16-le"))
    # A decoded NUL: searched whole (where rg notices it depends on its decoder's reads).
    with open(os.path.join(tree, "utf16_nul.txt"), "wb") as f:
        f.write(b"\xff\xfe" + (body[: 2 << 20] + b"nul \0 here\n" + body[: 1 << 20])
                .decode().encode("utf-16-le"))
    # Past 8 MiB, a named file is searched in chunks on several threads (cli/src/chunked.hpp).
    with open(os.path.join(tree, "huge.txt"), "wb") as f:
        f.write(body + b"needle no newline at the end" + b"\n" + body + b"last needle")
    with open(os.path.join(tree, "huge_nul.bin"), "wb") as f:
        f.write(body + b"quiet \0 nul\n" + body[: 2 << 20] + b"needle \0 nul\n" + body)
    failures = []
    cases = [
        ["-n", "needle"],
        ["-c", "needle"],
        ["-n", "needle", "text.txt"],
        ["-c", "needle", "late_nul.bin"],
        ["-c", "needle", "early_nul.bin"],
        ["-n", "needle", "utf16.txt"],
        ["-b", "-o", "needle 5000 ", "text.txt", "utf16.txt"],
        ["-l", "needle"],
        # ripgrep's roll buffer keeps context lines from round to round, which moves where the
        # read holding the NUL starts; named among a directory, binary files are read, not mapped.
        ["-n", "-C2", "needle"],
        ["-n", "-B7", "-A1", "needle", "late_nul.bin", "."],
        ["-c", "needle", "late_nul.bin", "early_nul.bin", "."],
        ["-n", "needle", "huge.txt"],
        ["-c", "needle", "huge.txt"],
        ["-n", "-b", "-o", "needle \\d+", "huge.txt"],
        ["-n", "-v", "-c", "hay", "huge.txt"],
        ["-n", "--column", "-w", "here|end", "huge.txt"],
        ["-n", "needle", "huge_nul.bin"],
        ["-c", "nul", "huge_nul.bin"],
        ["-n", "-a", "nul", "huge_nul.bin"],
        ["-n", "needle", "huge.txt", "huge_nul.bin"],
        # Files found by the walk past 2 MiB are searched in 1 MiB windows (inverted, with -m
        # and context, with before-context reaching back over a window's start).
        ["-n", "-v", "-m", "5", "-A", "3", "hay", "text.txt", "late_nul.bin"],
        ["-c", "-v", "needle", "-g", "*.txt"],
        ["-n", "-B", "40", "needle [0-9]+0000 ", "-g", "text.txt"],
        # --no-mmap: large files arrive as the search goes (binary data past 64 KiB included).
        ["--no-mmap", "-n", "-C2", "needle"],
        ["--no-mmap", "-c", "needle", "late_nul.bin", "early_nul.bin", "."],
        ["--no-mmap", "-n", "-v", "-m", "3", "-A", "2", "hay", "-g", "*.txt"],
        ["--no-mmap", "-n", "--passthru", "needle 5[0-9]*", "-g", "text.txt"],
        ["--no-mmap", "-n", "needle", "huge_nul.bin"],
        ["--no-mmap", "-c", "nul", "huge_nul.bin", "late_nul.bin"],
        ["--no-mmap", "-n", "-C1", "-b", "needle|nul", "huge_nul.bin", "early_nul.bin"],
        # UTF-16 with a decoded NUL, filled (it crashed: the decoded search converted NULs as
        # they arrived in a fill it no longer had).
        ["--no-mmap", "-n", "-C1", "needle 3[0-9]*0 |nul", "utf16_nul.txt"],
        ["--no-mmap", "-c", "needle", "-g", "utf16*"],
        ["-c", "needle"] + ["utf16_nul.txt", "utf16.txt"] * 6,
        # More than 10 paths: named files arrive as ripgrep's roll buffer reads them (mapped,
        # but NULs converted a window at a time).
        ["-n", "-C1", "needle|nul"] + ["huge_nul.bin", "late_nul.bin", "text.txt"] * 4,
    ]
    for args in cases:
        argv = ["--sort", "path", "--no-config"] + args
        want = subprocess.run([RG] + argv, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        got = subprocess.run([CTX] + argv, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        same = (got.returncode, got.stdout) == (want.returncode, want.stdout)
        bug = OPEN_BUGS.get(tuple(args))
        if bug:
            print(f"{'XPASS' if same else 'XFAIL'} {' '.join(args)}: {bug}")
            continue
        if not same:
            failures.append(f"{' '.join(args)}: exit {got.returncode} vs rg {want.returncode}; "
                            f"stdout {len(got.stdout)} bytes vs rg {len(want.stdout)} bytes; first "
                            f"diff near {next((i for i, (a, b) in enumerate(zip(got.stdout, want.stdout)) if a != b), min(len(got.stdout), len(want.stdout)))}")
    print(f"{len(cases)} large-file output cases compared with {RG}")
    return failures


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="ctx_large_") as tmp:
        failures = check_memory(tmp) + check_outputs(tmp)
    for f in failures:
        print("FAIL:", f)
    print(f"test_large_files: {'FAILED' if failures else 'passed'} ({len(failures)} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
