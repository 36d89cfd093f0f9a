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
from textual.geometry import Region
from textual.widgets import Static

from reader import DebugLogdir
from tfdbg_tui.core.textutil import shorten_parts
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


@sync
async def test_a_summary_too_long_for_its_box_says_what_it_left_out(demo_logdir: str) -> None:
    """At 160×45 the demo's summary needs three lines in its box of two: it showed
    '… 3 eager · Mul×30,' — a list cut at the box's edge, looking whole (held-out check of
    issue 31). What is left out goes from the end, an '…' saying so; every count shown is
    one of the summary's, whole."""
    app = TfdbgApp(DebugLogdir(demo_logdir), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        box = app.screen.query_one("#alerts-summary", Static)
        lines = box.render_lines(Region(0, 0, *box.outer_size))
        shown = " ".join(" ".join(strip.text.split()) for strip in lines).strip()
        full = " ".join(str(app.main.alerts._summary_text).split())  # type: ignore[union-attr]
        assert len(Text(full).wrap(app.console, box.content_region.width)) > 2, full
        assert shown.endswith("…"), shown
        kept = shown.removesuffix("…").strip()
        assert full.startswith(kept.rstrip(",")) and not kept.endswith(","), (shown, full)


def test_shorten_parts_drops_items_then_parts_from_the_end() -> None:
    text = "2 incidents · 115 NaN/∞ events · 3 eager · Mul×30, MatMul×13, Sum×12"
    assert shorten_parts(text, lambda t: True) == text
    assert shorten_parts(text, lambda t: len(t) <= 56) == (
        "2 incidents · 115 NaN/∞ events · 3 eager · Mul×30 …")
    assert shorten_parts(text, lambda t: len(t) <= 40) == "2 incidents · 115 NaN/∞ events …"
    assert shorten_parts(text, lambda t: False) == "2 incidents"
