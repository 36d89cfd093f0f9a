"""An app at rest does no work: a pane hidden by a small terminal (80×24 shows one pane) must not
ask, after every refresh, to scroll to its cursor or center its source line.

Found when a snapshot at 80×24 took 13 s (each `pilot.pause()` waits for the CPU to go idle,
up to a second) and then differed under load: the Graph Structure list and the Source pane,
zero rows high, re-queued their scroll after each refresh, for as long as they stayed hidden
(100 % of a core in a real terminal). Counted, not timed: the scroll and center calls made
while the app should be idle, over a few repaints.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from compare.test_compare_plot_forged import NAN_AT, _run
from support.tui import settle, write_reference

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.panes.source import SourceView
from tfdbg_tui.ui.vlist import VirtualList


def _count_calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count (and still make) every list scroll and source centering."""
    calls = {"scroll": 0, "center": 0}
    scroll, center = VirtualList.scroll_to_cursor, SourceView.center

    def counted_scroll(self: VirtualList, *args: Any, **kwargs: Any) -> None:
        calls["scroll"] += 1
        scroll(self, *args, **kwargs)

    def counted_center(self: SourceView, *args: Any, **kwargs: Any) -> None:
        calls["center"] += 1
        center(self, *args, **kwargs)

    monkeypatch.setattr(VirtualList, "scroll_to_cursor", counted_scroll)
    monkeypatch.setattr(SourceView, "center", counted_center)
    return calls


async def _idle_calls(app: TfdbgApp, calls: dict[str, int], compared: bool) -> dict[str, int]:
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        if compared:
            await app.compared.wait()
            await pilot.press("d")
            await settle(app, pilot)
        before = dict(calls)
        for _ in range(5):
            app.refresh()
            await pilot.pause()
        return {k: calls[k] - before[k] for k in calls}


def test_first_screen_at_80x24_is_idle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_reference(tmp_path / "logdir")
    calls = _count_calls(monkeypatch)
    app = TfdbgApp(DebugLogdir(str(tmp_path / "logdir")), follow=False)
    assert asyncio.run(_idle_calls(app, calls, compared=False)) == {"scroll": 0, "center": 0}


def test_compare_mode_at_80x24_is_idle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = _run(tmp_path / "a", None), _run(tmp_path / "b", NAN_AT)
    calls = _count_calls(monkeypatch)
    app = TfdbgApp(DebugLogdir(a), follow=False, compare_with=DebugLogdir(b))
    assert asyncio.run(_idle_calls(app, calls, compared=True)) == {"scroll": 0, "center": 0}
