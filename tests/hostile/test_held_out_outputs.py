"""Held-out cases (issue 30's acceptance): every command's stdout on a full disk and into a
pipe nobody reads, beyond the commands `test_hostile_full_output.py` and
`test_hostile_pipes.py` try.

Expected, written before the run: on `/dev/full`, one line on stderr naming the cause (No
space left on device) and exit 2 — never a traceback, never 1 (`report`'s "alerts found");
into a pipe whose reader is gone before the first byte, nothing on stderr and the command's
own status (`report` 1 for a run with alerts, `diff` 0 for a run against itself, `export`,
`cache`, `index` 0), as `grep` ends.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT
from support.tui import write_reference


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The TF-free reference run (two steps, the second with −∞/NaN: alerts)."""
    d = tmp_path_factory.mktemp("held-out-out") / "ld"
    write_reference(d)
    return str(d)


# command → (arguments after the logdir(s), the status it ends with when its output is cut)
COMMANDS: dict[str, tuple[list[str], int]] = {
    "report-values": (["report", "--values", "{A}"], 1),
    "diff-human": (["diff", "{A}", "{A}"], 0),
    "diff-csv-stdout": (["diff", "{A}", "{A}", "--csv", "-"], 0),
    "export-csv": (["export", "{A}", "{OUT}", "--format", "csv"], 0),
    "cache-clear": (["cache", "clear"], 0),
    "index": (["index", "{A}", "--out", "{OUT}", "--workers", "1"], 0),
}


def _argv(name: str, ref: str, tmp: Path) -> list[str]:
    args, _ = COMMANDS[name]
    return [a.replace("{A}", ref).replace("{OUT}", str(tmp / "out")) for a in args]


def _env(tmp: Path) -> dict[str, str]:
    return {**child_env(), "TFDBG_TUI_CACHE_DIR": str(tmp / "cache")}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_stdout_on_a_full_disk(ref: str, tmp_path: Path, name: str) -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *_argv(name, ref, tmp_path)],
                              stdout=full, stderr=subprocess.PIPE, text=True,
                              env=_env(tmp_path), cwd=str(ROOT), timeout=HANG_GUARD)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert len(lines) == 1 and "No space left on device" in lines[0], proc.stderr


@pytest.mark.parametrize("name", [*COMMANDS, "export"])
def test_stdout_into_a_pipe_nobody_reads(ref: str, tmp_path: Path, name: str) -> None:
    """(`report` and `diff --json` cut mid-output: test_hostile_pipes.py)"""
    more = {"export": (["export", "{A}", "{OUT}"], 0)}
    args, status = {**COMMANDS, **more}[name]
    argv = [a.replace("{A}", ref).replace("{OUT}", str(tmp_path / "out")) for a in args]
    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first byte
    try:
        proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *argv], stdout=w,
                              stderr=subprocess.PIPE, text=True, env=_env(tmp_path),
                              cwd=str(ROOT), timeout=HANG_GUARD)
    finally:
        os.close(w)
    assert proc.stderr == "", proc.stderr[-3000:]
    assert proc.returncode == status, proc.returncode
