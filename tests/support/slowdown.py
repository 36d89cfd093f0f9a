"""How long a test waits before it calls something hung: one factor for the whole suite.

A test never waits for a time to pass; it waits for an event (a worker done, a file written,
a process exited, a notification posted). A hang guard only bounds that wait, so a bug that
means "never" fails the test with a message instead of eating CI's budget. Every guard is
generous for a quiet machine (several times what it needs on a busy one) and is multiplied by
`TFDBG_TUI_TEST_SLOWDOWN` (default 1): CI on a slow or crowded runner sets e.g.
`TFDBG_TUI_TEST_SLOWDOWN=3` and every guard, pytest-timeout's per-test limit included
(tests/conftest.py), grows with it. Nothing asserts that something was *fast*: timing bars
live in the benchmarks (`make bench`), never in the tests.
"""

from __future__ import annotations

import os


def _factor() -> float:
    raw = os.environ.get("TFDBG_TUI_TEST_SLOWDOWN", "").strip()
    if not raw:
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"TFDBG_TUI_TEST_SLOWDOWN={raw!r} is not a number") from None
    if not value >= 1.0:  # a guard only ever grows (also rejects NaN)
        raise ValueError(f"TFDBG_TUI_TEST_SLOWDOWN={raw!r} must be at least 1")
    return value


SLOWDOWN = _factor()


def guard(seconds: float) -> float:
    """A hang guard of `seconds` on a quiet machine, scaled by TFDBG_TUI_TEST_SLOWDOWN."""
    return seconds * SLOWDOWN


# The guard of a wait inside a test for something that takes well under a second on a quiet
# machine (a worker, a repaint, a follow, a file event): two minutes before "hung".
WAIT = guard(120.0)
