"""SVG snapshots of the layout: the first screen as it opens (no key pressed) at 160×45,
120×32 and 80×24, and after Enter on the first alert at 200×50 and 80×24.

The logdir is written by `dumper.writer` with a fixed run id, host, timestamps and source
paths, and the header shows a fixed display path, so the pictures are the same every run.
Update with `pytest tests/tui/test_tui_snapshots.py --snapshot-update` after a deliberate change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import support.tui
from incident_logdir import write_two_origins
from support.tui import write_reference
from textual.pilot import Pilot

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp


@pytest.fixture(scope="module")
def snap_logdir(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("snap") / "logdir"
    write_reference(path)
    return str(path)


def make_app(path: str) -> TfdbgApp:
    return TfdbgApp(DebugLogdir(path), follow=False, display_path="/tmp/tfdbg2_logdir")


async def follow_first_alert(pilot: Pilot[Any]) -> None:
    await support.tui.follow_first_alert(pilot.app, pilot)


@pytest.mark.parametrize("size", [(160, 45), (120, 32), (80, 24)])
def test_first_screen(snap_compare: Callable[..., bool], snap_logdir: str,
                      size: tuple[int, int]) -> None:
    """What a user sees before pressing any key: the first alert already followed."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await support.tui.settle(pilot.app, pilot)

    assert snap_compare(make_app(snap_logdir), terminal_size=size, run_before=run_before)


def test_layout_200x50(snap_compare: Callable[..., bool], snap_logdir: str) -> None:
    assert snap_compare(make_app(snap_logdir), terminal_size=(200, 50),
                        run_before=follow_first_alert)


def test_layout_80x24(snap_compare: Callable[..., bool], snap_logdir: str) -> None:
    assert snap_compare(make_app(snap_logdir), terminal_size=(80, 24),
                        run_before=follow_first_alert)


def test_zoomed_graph_executions_80x24(snap_compare: Callable[..., bool],
                                       snap_logdir: str) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await follow_first_alert(pilot)
        await pilot.press("3")
        await pilot.pause()

    assert snap_compare(make_app(snap_logdir), terminal_size=(80, 24), run_before=run_before)



def test_alerts_by_incident_160x45(snap_compare: Callable[..., bool],
                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    """Two origins whose alerts interleave: each incident a header with its alerts beneath;
    the first folded (←), the second's header selected."""
    path = tmp_path_factory.mktemp("incidents") / "logdir"
    write_two_origins(path)

    async def run_before(pilot: Pilot[Any]) -> None:
        await support.tui.settle(pilot.app, pilot)
        await pilot.press("left", "down")
        await support.tui.settle(pilot.app, pilot)

    assert snap_compare(make_app(str(path)), terminal_size=(160, 45), run_before=run_before)
