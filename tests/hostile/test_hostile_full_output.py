"""stdout on a full disk (`> /dev/full`): one line on stderr and exit 2, never a traceback
nor exit 1 (which `report` uses for "alerts found", `diff` for "diverge")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT


@pytest.mark.parametrize("command", [["report"], ["report", "--json"], ["diff", "--json"],
                                     ["export"], ["cache"]],
                         ids=["report", "report-json", "diff-json", "export", "cache"])
def test_output_on_a_full_disk_is_one_line_exit_2(reference_logdir: str, tmp_path: Path,
                                                  command: list[str]) -> None:
    args = {"report": [reference_logdir], "diff": [reference_logdir, reference_logdir],
            "export": [reference_logdir, str(tmp_path / "out")], "cache": []}[command[0]]
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *command, *args],
                              stdout=full, stderr=subprocess.PIPE, text=True, env=child_env(),
                              cwd=str(ROOT), timeout=HANG_GUARD)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and "No space left on device" in lines[0], proc.stderr
