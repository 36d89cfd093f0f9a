"""A cache folder that is a file (issue 19, point 15): said in one line, on `report`'s
stderr and among the TUI's warnings — not a silent "nothing is cached"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT
from support.slowdown import guard
from support.tui import settle, sync, write_reference

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp


def _cache_file(tmp_path: Path) -> Path:
    f = tmp_path / "cache-typo"
    f.write_text("not a folder\n")
    return f


def test_report_says_on_stderr_that_the_cache_folder_is_a_file(tmp_path: Path) -> None:
    write_reference(tmp_path / "run")
    cache = _cache_file(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TFDBG_TUI_CACHE_DIR=str(cache))
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "report", str(tmp_path / "run")],
                          env=env, capture_output=True, text=True, timeout=guard(120))
    lines = [ln for ln in proc.stderr.splitlines() if "cache" in ln]
    assert len(lines) == 1, proc.stderr
    assert str(cache) in lines[0] and "is a file" in lines[0] and "warning" in lines[0]
    assert proc.returncode == 1  # the report itself is unchanged: the run has alerts


@sync
async def test_the_tui_lists_the_cache_folder_being_a_file_among_warnings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_reference(tmp_path / "run")
    cache = _cache_file(tmp_path)
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(cache))
    app = TfdbgApp(DebugLogdir(str(tmp_path / "run"), cache=True), follow=False)  # as opened
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        assert app.main is not None
        whole = app.main.alerts.whole_text()
        assert str(cache) in str(whole) and "is a file" in str(whole), whole
