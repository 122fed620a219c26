"""The case runner the script tests share (tests/cli/test_*.py, tests/agent/test_*.py).

A script registers its cases with @case, fails one with check() (an AssertionError) or skips it
by raising Skip, and ends with `sys.exit(run_cases())`, which runs every case in order, prints
PASS/FAIL/SKIP per case and a closing "N passed, N failed, N skipped" line, and returns the exit
status (0 when nothing failed). Scripts import it after putting tests/ on sys.path:

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from case_runner import Skip, case, check, run_cases
"""

from __future__ import annotations

import time

CASES = []


class Skip(Exception):
    """Raised by a case that cannot run here (a missing tool, a privilege); not a failure."""


def case(fn):
    """Registers `fn` as a case; cases run in the order they are defined."""
    CASES.append(fn)
    return fn


def check(cond, message):
    if not cond:
        raise AssertionError(message)


def run_cases(cases=None):
    """Runs `cases` (default: every registered case); returns 0 when none failed, else 1."""
    passed = failed = skipped = 0
    for fn in CASES if cases is None else cases:
        start = time.time()
        try:
            fn()
        except Skip as e:
            skipped += 1
            print("SKIP %s: %s" % (fn.__name__, e))
        except AssertionError as e:
            failed += 1
            print("FAIL %s: %s" % (fn.__name__, e))
        except Exception as e:  # noqa: BLE001 - report and go on
            failed += 1
            print("FAIL %s: %s: %s" % (fn.__name__, type(e).__name__, e))
        else:
            passed += 1
            print("PASS %s (%.2fs)" % (fn.__name__, time.time() - start))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 0 if failed == 0 else 1
