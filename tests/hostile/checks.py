"""What every output of the hostile tests must satisfy, and how `report` is run for them.

Shared by the corpus tests, the live tests and the fuzzing: the set of characters that must
never reach a terminal raw, strict JSON parsing, and running `tfdbg-tui report` as a child
process with a bounded address space and a hang guard.
"""

from __future__ import annotations

import functools
import json
import os
import re
import resource
import subprocess
import sys
import unicodedata
from dataclasses import dataclass
from typing import Any

import pytest
from support.paths import ROOT
from support.slowdown import guard

# A child still running after this many seconds is hung: the test fails (with what it was
# doing) instead of pytest-timeout killing the session. orphans_40000's report takes ~30 s
# on a quiet machine; the guard is 10x that, scaled by TFDBG_TUI_TEST_SLOWDOWN.
HANG_GUARD = guard(300.0)

# Invisible or blank characters that are not in the format/control categories.
_EXTRA_INVISIBLE = [
    0x034F,  # combining grapheme joiner
    0x115F, 0x1160, 0x3164, 0xFFA0,  # Hangul fillers
    0x17B4, 0x17B5,  # Khmer inherent vowels
    *range(0x180B, 0x1810),  # Mongolian free variation selectors and vowel separator
    0x2800,  # Braille pattern blank
    *range(0xFE00, 0xFE10),  # variation selectors
    *range(0xE0100, 0xE01F0),  # variation selectors supplement
]


@functools.cache
def forbidden() -> re.Pattern[str]:
    """Characters that must never reach a terminal raw: C0 controls but newline, DEL, C1
    controls, every format character (Cf: bidi controls, zero-width characters, U+061C, tag
    characters…), line/paragraph separators, and the blank fillers listed above."""
    codes = [c for c in range(0x110000)
             if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp") and c != 0x0A]
    codes += _EXTRA_INVISIBLE
    codes.sort()
    parts = []
    start = prev = codes[0]
    for c in [*codes[1:], -1]:
        if c == prev + 1:
            prev = c
            continue
        parts.append(re.escape(chr(start)) if start == prev
                     else f"{re.escape(chr(start))}-{re.escape(chr(prev))}")
        start = prev = c
    return re.compile("[" + "".join(parts) + "]")


@functools.cache
def _ascii_allowed() -> bytes:
    """The ASCII characters `forbidden()` lets through (printable ones and newline)."""
    return bytes(c for c in range(128) if forbidden().match(chr(c)) is None)


def assert_no_raw_controls(text: str, where: str) -> None:
    """No character of `forbidden()` in `text`. An ASCII text (report --json's, always) is
    checked by deleting its allowed bytes at C speed: the regex took 37 s over the 629 MB
    that `report --json` prints for op_name_100mb, the deletion under a second; anything
    left over (or a text that is not ASCII) goes to the regex, which says where."""
    if text.isascii() and not text.encode("ascii").translate(None, _ascii_allowed()):
        return
    m = forbidden().search(text)
    if m is not None:
        ctx = text[max(0, m.start() - 40): m.start() + 40]
        raise AssertionError(f"{where}: raw U+{ord(m.group()):04X} at {m.start()}: {ctx!r}")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def strict_json(text: str) -> Any:
    """Parse JSON that must be standard: NaN, Infinity and -Infinity are errors."""
    return json.loads(text, parse_constant=_reject_constant)


@dataclass
class Result:
    status: int
    stdout: str
    stderr: str


def _limit(mb: int) -> Any:
    def pre() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))

    return pre


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "CLICOLOR_FORCE")}
    env.update(NO_COLOR="1", COLUMNS="100000", LINES="50", TERM="dumb",
               OPENBLAS_NUM_THREADS="1", PYTHONWARNINGS="default")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    return env


def run_report(args: list[str], address_space_mb: int = 2048,
               env: dict[str, str] | None = None) -> Result:
    """`python -m tfdbg_tui report ARGS` under RLIMIT_AS; a child that hangs fails the test.
    `env`: variables set for it, beyond `child_env()`'s."""
    cmd = [sys.executable, "-m", "tfdbg_tui", "report", *args]
    try:
        proc = subprocess.run(cmd, capture_output=True, timeout=HANG_GUARD,
                              env={**child_env(), **(env or {})},
                              preexec_fn=_limit(address_space_mb), cwd=str(ROOT))
    except subprocess.TimeoutExpired:
        pytest.fail(f"report {args!r} hung (no exit within {HANG_GUARD:.0f} s)")
    return Result(proc.returncode, proc.stdout.decode("utf-8", "replace"),
                  proc.stderr.decode("utf-8", "replace"))


def assert_clean_stderr(stderr: str, where: str) -> list[str]:
    """stderr holds only our one-line messages: no traceback, no Python warning."""
    lines = stderr.splitlines()
    assert "Traceback" not in stderr, f"{where}: traceback on stderr:\n{stderr[-3000:]}"
    assert "Warning:" not in stderr, f"{where}: Python warning on stderr:\n{stderr[-3000:]}"
    for line in lines:
        assert line.startswith("tfdbg-tui"), f"{where}: stray stderr line {line[:300]!r}"
    assert_no_raw_controls(stderr, f"{where} stderr")
    return lines


def names(line: str, damaged: str | None, offset: int | None) -> bool:
    """Does one message name the damaged file (and the byte offset, when there is one)?"""
    if damaged is None or damaged not in line:
        return False
    return offset is None or re.search(rf"\b{offset}\b", line) is not None
