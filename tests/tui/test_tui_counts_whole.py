"""Every count of a row stays on screen at 160×45 (issue 31, point 3; a held-out check in a
real terminal): on the demo's recording, Graph Executions' rows with four-digit counts
('NaN 64 −:1141 0:3669 +:…') and the Timeline's tf.function calls ('NaN 1 −:0 0:0 +:…')
lost their last counts at the pane's edge, and compare mode's Timeline (an eager run A)
showed 'f32 2D ×16 fi'. A name is shortened in its middle and stays recognisable; a cut
count says nothing — so the name yields.

What a row shows is read back as the pane draws it (the row cut at the list's width), and
compared with the health summary of the tensor it stands for.
"""

from __future__ import annotations

import asyncio

import pytest
from rich.text import Text
from support.slowdown import WAIT
from support.tui import settle, sync

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.main_screen import MainScreen
from tfdbg_tui.ui.panes.base import TableListPane
from tfdbg_tui.ui.render import health_chips

pytestmark = pytest.mark.tf


def drawn(pane: TableListPane, i: int) -> str:
    """Row `i` of a list pane as it is drawn: cut at the list's width."""
    width = pane.vlist.scrollable_content_region.width
    row: Text = pane._row(i, width)  # type: ignore[attr-defined]
    row.truncate(width)
    return row.plain


def assert_counts_whole(s: MainScreen) -> None:
    logdir = s.state.logdir
    ge_width = s.ge.vlist.scrollable_content_region.width
    for i in range(s.state.snapshot.traces):
        chips = health_chips(logdir.traces.health(i), compact=ge_width < 110).plain
        assert chips in drawn(s.ge, i), (i, drawn(s.ge, i), chips)
    for i in range(s.state.snapshot.executions):
        outputs = logdir.output_rows(i)
        if len(outputs) == 1:  # (several outputs: '… +N outputs' says what is left out)
            chips = health_chips(logdir.outputs.health(outputs[0]), compact=True).plain
            assert chips in drawn(s.timeline, i), (i, drawn(s.timeline, i), chips)


@sync
async def test_rows_keep_every_count_at_160x45(demo_logdir: str) -> None:
    app = TfdbgApp(DebugLogdir(demo_logdir), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        assert app.main is not None
        assert_counts_whole(app.main)


@sync
async def test_compare_mode_timeline_keeps_its_marks_and_counts_at_160x45(
        make_tf_logdir: object) -> None:
    """An eager run A compared with itself: every Timeline row marked, counts whole."""
    eager = make_tf_logdir("eager")  # type: ignore[operator]
    app = TfdbgApp(DebugLogdir(eager), follow=False, compare_with=DebugLogdir(eager))
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        await asyncio.wait_for(app.compared.wait(), WAIT)
        await settle(app, pilot)
        s = app.main
        assert s is not None and s.compare_view is not None
        assert_counts_whole(s)
        marks = {drawn(s.timeline, i)[0] for i in range(s.state.snapshot.executions)
                 if len(s.state.logdir.output_rows(i))}
        assert "=" in marks, marks  # compared with itself: equal rows are marked
