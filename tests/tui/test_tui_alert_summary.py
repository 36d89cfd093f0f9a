"""The Alerts pane's summary line takes the lines its text needs at the pane's width (up to
two), whatever width it had when the text was set: a summary set against one width and shown
at another was cut to one line (the first screen at 120×32 showed "4 NaN/∞ events · 3 of 10"
and dropped the rest, once in a full test run).

Checked against the text itself: Rich wraps it at the box's width, and the box's height on
screen must be that many lines, after each resize of the terminal.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from support.tui import settle, sync, write_reference
from textual.widgets import Static

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp


@pytest.mark.parametrize("sizes", [[(160, 45), (120, 32), (80, 24), (120, 32)],
                                   [(80, 24), (200, 50), (120, 32)]])
@sync
async def test_summary_height_follows_its_width(tmp_path: Path,
                                                sizes: list[tuple[int, int]]) -> None:
    write_reference(tmp_path / "logdir")
    app = TfdbgApp(DebugLogdir(str(tmp_path / "logdir")), follow=False)
    async with app.run_test(size=sizes[0]) as pilot:
        for size in sizes:
            if size != sizes[0]:
                await pilot.resize_terminal(*size)
            await settle(app, pilot)
            box = app.screen.query_one("#alerts-summary", Static)
            text = str(box.visual)  # what it shows
            width = box.content_region.width
            need = min(2, len(Text(text).wrap(app.console, width)))
            assert box.size.height == need, (size, width, str(text))
