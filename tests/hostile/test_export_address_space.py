"""`export` under an address-space limit (`ulimit -v`, a container's): a table set, or one
line and exit 2 — never a signal (Arrow's abort on `bad_alloc`, SIGSEGV on a thread's stack),
never "needs pyarrow" for a pyarrow that is installed, and the figure it gives is export's own
(issue 30: it needs over a gigabyte whatever the logdir, not "about 3x" its files)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hostile.checks import HANG_GUARD, _limit, child_env
from support.paths import ROOT

from tfdbg_tui.commands.export.tables import TABLES


@pytest.mark.parametrize("mb", [300, 600, 800, 900, 1000, 1300, 2048])
def test_export_under_a_limit_is_tables_or_one_line(reference_logdir: str, tmp_path: Path,
                                                    mb: int) -> None:
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "export", reference_logdir,
                           str(out)], capture_output=True, text=True, env=child_env(),
                          cwd=str(ROOT), preexec_fn=_limit(mb), timeout=HANG_GUARD)
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("tfdbg-tui")]
    assert proc.returncode in (0, 2), (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and "pip install" not in proc.stderr, proc.stderr
    if proc.returncode == 2:
        assert len(lines) == 1 and "address space" in lines[0], proc.stderr[-2000:]
        assert not out.exists() or not any(out.iterdir())  # nothing half-written
    else:
        assert sorted(p.name for p in out.iterdir()) == sorted(
            [f"{t}.parquet" for t in TABLES] + ["report.json"])
