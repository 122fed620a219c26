#!/usr/bin/env python3
"""Differential test of -E/--encoding against ripgrep 14 ($RG14 or ~/.cache/ctxsearch/rg14/rg;
skipped when absent): the decoded text of every sequence each decoder can see.

Per encoding, one file holds each candidate sequence on a line of its own, and
`-a -N -E ENC ''` prints every line decoded (U+FFFD where it does not decode); the outputs must be
byte-identical. Candidates:
  single-byte encodings, x-user-defined: every byte 0x80-0xFF;
  double-byte encodings (gbk, gb18030, big5, euc-jp, shift_jis, euc-kr): every lead byte
    0x80-0xFF followed by every trail byte (0x0A, the line end, excluded), and each lead byte
    alone at the end of a line (a sequence cut short);
  gb18030: every four-byte sequence (lead 0x81-0xFE, 0x30-0x39, 0x81-0xFE, 0x30-0x39), and the
    same cut short or broken after two or three bytes;
  euc-jp: 0x8F with every pair of JIS X 0212 bytes;
  utf-16le, utf-16be, utf-8, iso-2022-jp, and all of the above: random byte strings biased to
    each encoding's lead and trail bytes, escape sequences and surrogates, with and without BOMs
    (which still decide, as in rg), longer than the decoder's 8 KiB reads;
  labels: every label of the Encoding Standard in odd case with surrounding whitespace, the
    replacement encoding's labels and unknown ones (the error message and exit code);
  --stats with -m 1 (the bytes searched where the search stopped: the decoder's reads).

Environment: CTXSEARCH (binary under test), RG14, CTX_ENCODING_RANDOM (random files per
encoding, default 12), CTX_ENCODING_SEED (default 0).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile

CTX = os.environ.get("CTXSEARCH")
if CTX and os.sep in CTX:
    CTX = os.path.abspath(CTX)
RG = os.environ.get("RG14") or os.path.expanduser("~/.cache/ctxsearch/rg14/rg")
RANDOM_FILES = int(os.environ.get("CTX_ENCODING_RANDOM", "12"))
SEED = int(os.environ.get("CTX_ENCODING_SEED", "0"))

SINGLE_BYTE = [
    "ibm866", "iso-8859-2", "iso-8859-3", "iso-8859-4", "iso-8859-5", "iso-8859-6", "iso-8859-7",
    "iso-8859-8", "iso-8859-8-i", "iso-8859-10", "iso-8859-13", "iso-8859-14", "iso-8859-15",
    "iso-8859-16", "koi8-r", "koi8-u", "macintosh", "windows-874", "windows-1250",
    "windows-1251", "windows-1252", "windows-1253", "windows-1254", "windows-1255",
    "windows-1256", "windows-1257", "windows-1258", "x-mac-cyrillic", "x-user-defined",
]
DOUBLE_BYTE = ["gbk", "gb18030", "big5", "euc-jp", "shift_jis", "euc-kr"]
OTHERS = ["utf-8", "utf-16le", "utf-16be", "iso-2022-jp"]

failures = 0
checks = 0


def run(binary, args, cwd):
    p = subprocess.run([binary] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


def compare(name, args, cwd, stderr_exact=False):
    global failures, checks
    checks += 1
    want = run(RG, args, cwd)
    got = run(CTX, args, cwd)
    same_err = (want[2].replace(b"rg: ", b"") == got[2].replace(b"ctxsearch: ", b"")
                if stderr_exact else bool(want[2]) == bool(got[2]))
    if want[0] == got[0] and want[1] == got[1] and same_err:
        return True
    failures += 1
    print(f"FAIL {name}: {' '.join(map(str, args))}")
    print(f"  exit: rg {want[0]} ctxsearch {got[0]}")
    if want[1] != got[1]:
        w, g = want[1].split(b"\n"), got[1].split(b"\n")
        for i, (a, b) in enumerate(zip(w, g)):
            if a != b:
                print(f"  first differing line {i + 1}: rg {a!r} ctxsearch {b!r}")
                break
        else:
            print(f"  line counts: rg {len(w)} ctxsearch {len(g)}")
    if not same_err:
        print(f"  stderr: rg {want[2]!r} ctxsearch {got[2]!r}")
    return False


def write(tmp, name, data):
    with open(os.path.join(tmp, name), "wb") as f:
        f.write(data)
    return name


def lines(seqs):
    return b"".join(s + b"\n" for s in seqs)


def single_byte_file():
    return lines(bytes([b]) for b in range(0x80, 0x100))


def double_byte_file():
    seqs = []
    for lead in range(0x80, 0x100):
        seqs.append(bytes([lead]))
        for trail in range(0x00, 0x100):
            if trail != 0x0A:
                seqs.append(bytes([lead, trail]))
    return lines(seqs)


def gb18030_four_byte_file():
    seqs = []
    for b1 in range(0x81, 0xFF):
        for b2 in range(0x30, 0x3A):
            seqs.append(bytes([b1, b2]))
            seqs.append(bytes([b1, b2, 0x41]))
            for b3 in range(0x81, 0xFF):
                seqs.append(bytes([b1, b2, b3]))
                seqs.append(bytes([b1, b2, b3, 0x41]))
                seqs.append(bytes([b1, b2, b3, 0x81]))
                for b4 in range(0x30, 0x3A):
                    seqs.append(bytes([b1, b2, b3, b4]))
    return lines(seqs)


def jis0212_file():
    return lines(bytes([0x8F, a, b]) for a in range(0xA0, 0x100) for b in range(0x9F, 0x100))


BIASED = {
    "utf-8": list(range(0x80, 0xC0)) + list(range(0xC0, 0x100)) + [0xE0, 0xED, 0xF0, 0xF4] * 8,
    "utf-16le": [0x00, 0xD8, 0xDB, 0xDC, 0xDF, 0xFE, 0xFF] * 4,
    "utf-16be": [0x00, 0xD8, 0xDB, 0xDC, 0xDF, 0xFE, 0xFF] * 4,
    "iso-2022-jp": [0x1B] * 12 + [0x24, 0x28, 0x42, 0x4A, 0x49, 0x40] * 6 + [0x0E, 0x0F, 0x5C,
                                                                            0x7E, 0x80, 0xA0],
    "gb18030": list(range(0x81, 0xFF)) + list(range(0x30, 0x3A)) * 6,
    "gbk": list(range(0x81, 0xFF)) + list(range(0x30, 0x3A)) * 6,
    "big5": list(range(0x81, 0xFF)) * 2,
    "euc-jp": [0x8E, 0x8F] * 20 + list(range(0xA1, 0xFF)) * 2,
    "shift_jis": list(range(0x81, 0xA0)) * 3 + list(range(0xE0, 0xFD)) * 3 + [0x80, 0xA0, 0xFD],
    "euc-kr": list(range(0x81, 0xFF)) * 2,
}


def random_file(rng, enc, size):
    pool = BIASED.get(enc, list(range(0x80, 0x100)))
    out = bytearray()
    if rng.random() < 0.3:
        out += rng.choice([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf\xef\xbb\xbf",
                           b"\xff\xfe\xff\xfe", b"\xef\xbb"])
    while len(out) < size:
        r = rng.random()
        if r < 0.5:
            out.append(rng.choice(pool))
        elif r < 0.8:
            out.append(rng.randrange(0x20, 0x7F))
        elif r < 0.9:
            out.append(0x0A)
        elif r < 0.93:
            out.append(0x00)
        else:
            out.append(rng.randrange(0, 0x100))
    return bytes(out)


def main():
    global checks, failures
    if not CTX:
        print("CTXSEARCH is not set: nothing to compare (skipped)")
        return 0
    if not os.path.exists(RG):
        print(f"rg 14 not found at {RG}: skipped")
        return 0
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory() as tmp:
        sb = write(tmp, "single.txt", single_byte_file())
        for enc in SINGLE_BYTE:
            compare(enc, ["-a", "-N", "-E", enc, "", sb], tmp)
        db = write(tmp, "double.txt", double_byte_file())
        for enc in DOUBLE_BYTE + OTHERS:
            compare(enc, ["-a", "-N", "-E", enc, "", db], tmp)
        gb = write(tmp, "gb4.txt", gb18030_four_byte_file())
        compare("gb18030 four-byte", ["-a", "-N", "-E", "gb18030", "", gb], tmp)
        jp = write(tmp, "jis0212.txt", jis0212_file())
        compare("euc-jp jis0212", ["-a", "-N", "-E", "euc-jp", "", jp], tmp)
        # Random files: decoding, BOMs, 8 KiB read boundaries; then -m 1 --stats (bytes
        # searched where the search stopped) and binary data found in the decoded text.
        for enc in SINGLE_BYTE[:3] + DOUBLE_BYTE + OTHERS:
            for i in range(RANDOM_FILES):
                size = rng.choice([1, 2, 3, 5, 40, 300, 9000, 20000, 70000])
                name = write(tmp, f"r-{enc}-{i}.txt", random_file(rng, enc, size))
                compare(f"{enc} random", ["-a", "-N", "-E", enc, "", name], tmp)
                compare(f"{enc} random -n", ["-n", "-E", enc, "[a-f]", name], tmp)
                stats = ["--stats", "-m", "1", "-E", enc, "[a-f]", name]
                # --stats prints a time: compare with it masked.
                want = run(RG, stats, tmp)
                got = run(CTX, stats, tmp)
                mask = lambda out: b"\n".join(l for l in out.split(b"\n") if b"seconds" not in l)
                checks += 1
                if (want[0], mask(want[1])) != (got[0], mask(got[1])):
                    print(f"FAIL {enc} --stats: {' '.join(stats)}")
                    print(f"  rg: {mask(want[1])[-300:]!r}\n  ctxsearch: {mask(got[1])[-300:]!r}")
                    failures += 1
                if enc.startswith("utf-16") or i % 4 == 0:  # auto: a BOM decides
                    compare(f"{enc} random auto", ["-a", "-N", "", name], tmp)
                    compare(f"{enc} random none", ["-a", "-N", "-E", "none", "", name], tmp)
        # Walked files (binary data quits) and -E none.
        compare("walk", ["-E", "shift_jis", "--sort", "path", "-c", "[a-f]"], tmp)
        compare("none", ["-E", "none", "--sort", "path", "-c", "[a-f]"], tmp)
        for enc in ["utf-16le", "big5", "windows-1252"]:
            args = ["--stats", "--sort", "path", "-E", enc, "-m", "2", "[a-f]"]
            want, got = run(RG, args, tmp), run(CTX, args, tmp)
            mask = lambda out: b"\n".join(l for l in out.split(b"\n") if b"seconds" not in l)
            checks += 1
            if (want[0], mask(want[1])) != (got[0], mask(got[1])):
                failures += 1
                print(f"FAIL walk --stats: {' '.join(args)}")
        # Labels.
        for label in ["LATIN1", " utf-8\t", "\nShift_JIS ", "UTF-16", "unicodeFFFE", "x-sjis",
                      "csISO2022JP", "ISO-8859-8-I", "windows-31j", "ks_c_5601-1987"]:
            compare(f"label {label!r}", ["-c", "-E", label, "x", sb], tmp)
        for label in ["replacement", "iso-2022-kr", "hz-gb-2312", "bogus", "", "utf 8", "AUTO",
                      " none", "utf-7"]:
            compare(f"label {label!r}", ["-E", label, "x", sb], tmp, stderr_exact=True)
            compare(f"label {label!r}", ["--encoding", label, "x", sb], tmp, stderr_exact=True)
        compare("label not UTF-8", ["-E", b"a\xffb", "x", sb], tmp, stderr_exact=True)
        compare("--no-encoding", ["-E", "bogus-not-checked-late", "--no-encoding", "x", sb], tmp,
                stderr_exact=True)
        compare("--no-encoding", ["-E", "latin1", "--no-encoding", "-c", ".", sb], tmp)
    print(f"{checks - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
