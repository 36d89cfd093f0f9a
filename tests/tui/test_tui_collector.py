"""The collector is calmed for the process that runs the app (`tfdbg-tui LOGDIR`), never by
the app itself: a notebook or a test session that runs apps in-process keeps its collector
as it was (what `gc.freeze` moves out of reach is never collected).

`calm_collector` itself is judged by `make bench` (max key-to-repaint while a 12.5M-record
logdir is read), not here.
"""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from support.paths import ROOT
from support.slowdown import guard
from support.tui import settle, sync, write_reference

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp


@sync
async def test_an_app_run_in_process_leaves_the_collector_alone(tmp_path: Path) -> None:
    write_reference(tmp_path / "logdir")
    before = (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count())
    app = TfdbgApp(DebugLogdir(str(tmp_path / "logdir")), follow=False)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(app, pilot)
    assert (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()) == before


def test_calming_freezes_what_is_there_and_slows_young_collections() -> None:
    code = ("import gc; from tfdbg_tui.core.memory import YOUNG, calm_collector; "
            "n = len(gc.get_objects()); calm_collector(); "
            "print(gc.get_freeze_count() >= n // 2, gc.get_threshold()[0] == YOUNG, "
            "gc.isenabled())")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=guard(60), check=True).stdout.split()
    assert out == ["True", "True", "True"]
