"""The value inspector as a new user meets it (issue 19, points 4 and 5).

On a FULL_HEALTH tensor there are counts, not values: the value keys must not be offered,
each must say why it does nothing, and the first Esc must close the screen (it once went to
a hidden slice box). On a FULL_TENSOR tensor NaN is red and ±∞ magenta everywhere — the
statistics too — because they are different bugs (0/0 against overflow or log 0).
"""

from __future__ import annotations

import pytest
from rich.style import Style
from support.tui import record_notifications, settle, sync, workers_done
from support.values import Host, open_values, trace_index
from textual.geometry import Region
from textual.widgets._footer import FooterKey

from reader import GRAPH, DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.inspector.inspector import ValueInspector
from tfdbg_tui.ui.main_screen import MainScreen

pytestmark = pytest.mark.tf


@sync
async def test_value_keys_on_a_health_tensor_say_why_and_esc_closes_at_once(
        reference_logdir: str) -> None:
    app = TfdbgApp(DebugLogdir(reference_logdir), follow=False)
    said = record_notifications(app)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        await pilot.press("v")  # on the first alert, a FULL_HEALTH tensor
        await pilot.pause()
        await workers_done(app)
        await pilot.pause()
        inspector = app.screen
        assert isinstance(inspector, ValueInspector) and inspector.loaded is not None
        assert inspector.loaded.value is None  # counts only
        footer = " ".join(k.description for k in inspector.query(FooterKey))
        for offered in ("Slice", "First NaN", "Save", "Stats"):
            assert offered not in footer, footer
        for key in ("n", "slash", "s", "i"):
            before = len(said)
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is inspector
            assert len(said) == before + 1, key
            message = said[-1]
            assert "FULL_HEALTH" in message and "FULL_TENSOR" in message, message
        await pilot.press("escape")  # one Esc, back on the main screen
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)


def colours_of(widget: object, label: str) -> set[str]:
    """The colours of the count on the statistics line that starts with `label`."""
    assert hasattr(widget, "render_lines") and hasattr(widget, "size")
    w, h = widget.size
    out: set[str] = set()
    for strip in widget.render_lines(Region(0, 0, w, h)):
        if strip.text.strip().startswith(label + " "):
            for seg in strip:
                style = seg.style or Style()
                if seg.text.strip().isdigit() and style.color is not None:
                    out.add(style.color.name)
    return out


@sync
async def test_nan_and_infinity_have_different_colours_in_the_statistics(
        values_logdir: str) -> None:
    logdir = open_values(values_logdir)
    app = Host(lambda: ValueInspector(logdir, GRAPH, trace_index(logdir, "floats:0"), 0))
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.pause()
        await workers_done(app)
        await pilot.pause()
        stats = app.screen.query_one("#vi-stats")
        nan, ninf, pinf = (colours_of(stats, label) for label in ("NaN", "−∞", "+∞"))
        assert nan and ninf and pinf  # the tensor holds one of each
        assert not nan & ninf and not nan & pinf
        grid = app.screen.query_one("#vi-grid")
        cells: dict[str, set[str]] = {"nan": set(), "inf": set()}
        for strip in grid.render_lines(Region(0, 0, *grid.size)):
            for seg in strip:
                word = seg.text.strip().lstrip("-")
                if word in cells and seg.style is not None and seg.style.color is not None:
                    cells[word].add(seg.style.color.name)
        assert cells["nan"] and cells["inf"] and not cells["nan"] & cells["inf"]


@sync
async def test_a_slice_keeps_the_tensors_own_indices(values_logdir: str) -> None:
    """`[2:5, 3:]` of the 6×7 `floats` shows rows 2, 3, 4 and columns from 3, labelled so —
    not renumbered from 0, which would send a user to the wrong element."""
    logdir = open_values(values_logdir)
    app = Host(lambda: ValueInspector(logdir, GRAPH, trace_index(logdir, "floats:0"), 0))
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.pause()
        await workers_done(app)
        await pilot.pause()
        await pilot.press("slash")
        field = app.screen.query_one("#vi-slice")
        field.value = "[2:5, 3:]"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        grid = app.screen.query_one("#vi-grid")
        box = [strip.text for strip in grid.render_lines(Region(0, 0, *grid.outer_size))]
        lines = [ln.strip("│ ") for ln in box[1:-1]]  # inside the round border
        header, rows = lines[0].split(), [ln.split()[0] for ln in lines[1:4]]
        assert header[:4] == ["3", "4", "5", "6"], lines[0]
        assert rows == ["[2]", "[3]", "[4]"], lines[:4]
