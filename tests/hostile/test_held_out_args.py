"""Held-out cases (issue 30's acceptance): huge and negative counts given on the command line.

Expected, written before the run: a count out of what the command (or TensorFlow under it)
can take is one line naming it, exit 2, before anything starts — `run --buffer` beyond
int64 was a TypeError from TensorFlow's writer in the program's output (exit 1, and the
logdir already made); a huge count that only bounds a loop is taken as "all".
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT
from support.tui import write_reference

HUGE = "99999999999999999999"


@pytest.mark.parametrize("buffer", [HUGE, "-" + HUGE])
def test_run_buffer_beyond_int64_is_one_line_before_the_program(tmp_path: Path,
                                                                buffer: str) -> None:
    prog = tmp_path / "prog.py"
    prog.write_text("print('started')\n")
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "run", "--buffer", buffer,
                           "--logdir", str(tmp_path / "ld"), "--", str(prog)],
                          capture_output=True, text=True, cwd=ROOT, env=child_env(),
                          timeout=HANG_GUARD)
    assert proc.returncode == 2, (proc.stdout, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "buffer" in lines[0], proc.stderr
    assert "started" not in proc.stdout and not (tmp_path / "ld").exists()


@pytest.mark.parametrize("args", [["report", "--limit", HUGE], ["export", "--diagnose", HUGE],
                                  ["diff", "--tight-steps", HUGE]],
                         ids=["report-limit", "export-diagnose", "diff-tight-steps"])
def test_huge_counts_that_bound_a_loop_mean_all(tmp_path: Path, args: list[str]) -> None:
    ld = tmp_path / "ld"
    write_reference(ld)
    more = {"report": [str(ld)], "export": [str(ld), str(tmp_path / "out")],
            "diff": [str(ld), str(ld)]}[args[0]]
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args, *more],
                          capture_output=True, text=True, cwd=ROOT, env=child_env(),
                          timeout=HANG_GUARD)
    assert proc.returncode == {"report": 1, "export": 0, "diff": 0}[args[0]], proc.stderr
    assert proc.stderr == "", proc.stderr
