"""Pilot tests of the ValueInspector screen on a real FULL_TENSOR logdir.

The screen is pushed on a bare host app (the main app has its own test at the end). Waiting
is on workers (`support.tui.workers_done`) and `pilot.pause()`, never on sleeps.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.tui import record_notifications, workers_done
from support.values import (
    STRINGS,
    Host,
    eager_index,
    expected_stats,
    inputs,
    open_values,
    sync,
    trace_index,
    widget_text,
)
from textual.pilot import Pilot
from textual.widgets import Input, LoadingIndicator, Static
from textual.worker import WorkerState

from reader import EAGER, GRAPH, DebugLogdir
from tfdbg_tui.ui.inspector.grid import ValueGrid
from tfdbg_tui.ui.inspector.inspector import ValueInspector

SIZE = (120, 50)


@pytest.fixture(scope="module")
def logdir(values_logdir: str) -> DebugLogdir:
    return open_values(values_logdir)


async def loaded(pilot: Pilot[None]) -> ValueInspector:
    await pilot.pause()
    await workers_done(pilot.app)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ValueInspector)
    assert screen.error is None, screen.error
    return screen


def text_of(screen: ValueInspector, wid: str) -> str:
    return widget_text(screen.query_one(wid))


async def type_slice(pilot: Pilot[None], expr: str) -> None:
    await pilot.press("slash")
    inp = pilot.app.screen.query_one("#vi-slice", Input)
    assert inp.has_focus
    inp.value = ""
    await pilot.press(*expr)
    await pilot.press("enter")
    await pilot.pause()


@sync
async def test_float_tensor_shows_shape_stats_and_highlighted_values(logdir: DebugLogdir) -> None:
    app = Host(lambda: ValueInspector(logdir, GRAPH, trace_index(logdir, "floats:0"), 0))
    src = inputs()["floats"]
    exp = expected_stats(src)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        stats_text = text_of(screen, "#vi-stats")
        assert "[6, 7]" in stats_text and "float32" in stats_text and "42" in stats_text
        assert screen.loaded is not None and screen.loaded.stats is not None
        s = screen.loaded.stats
        assert s.min == pytest.approx(exp["min"]) and s.max == pytest.approx(exp["max"])
        assert s.mean == pytest.approx(exp["mean"]) and s.std == pytest.approx(exp["std"])
        assert (s.n_nan, s.n_neg_inf, s.n_pos_inf) == (1, 1, 1)
        assert format(exp["min"], ".6g") in stats_text
        assert "histogram of finite values" in text_of(screen, "#vi-hist")
        grid = screen.query_one(ValueGrid)
        assert grid.has_focus
        shown = text_of(screen, "#vi-grid")
        assert format(float(src[0, 0]), ".6g") in shown
        assert "nan" in shown and "-inf" in shown and " inf" in shown
        rows_before = grid.size.height
        await pilot.press("i")  # hide the statistics: the values get the rows
        await pilot.pause()
        assert not screen.query_one("#vi-summary").display
        assert grid.size.height > rows_before
        # NaN is highlighted: its segment carries the red style
        nan_line = grid.render_line(1 + 1)  # header, row 0, row 1 (NaN at [1, 2])
        styles = [seg.style for seg in nan_line if seg.text.strip() == "nan"]
        assert styles and styles[0] is not None and styles[0].color is not None
        red = styles[0].color.triplet
        assert red is not None and red.red > 200 and red.green < 128 and red.blue < 128


@sync
async def test_slicing_and_bad_slice(logdir: DebugLogdir) -> None:
    app = Host(lambda: ValueInspector(logdir, GRAPH, trace_index(logdir, "floats:0"), 0))
    src = inputs()["floats"]
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        grid = screen.query_one(ValueGrid)
        await type_slice(pilot, "[2, 1:4]")
        np.testing.assert_array_equal(grid.array, src[2, 1:4])
        assert grid.cell_text(0, 0) == format(float(src[2, 1]), ".6g")
        assert "shape [3]" in text_of(screen, "#vi-status")
        assert grid.has_focus
        await type_slice(pilot, "[0, :a]")
        status = text_of(screen, "#vi-status")
        assert "bad slice" in status and "unexpected 'a'" in status
        np.testing.assert_array_equal(grid.array, src[2, 1:4])  # the view is kept
        await type_slice(pilot, "[9]")
        assert "out of bounds" in text_of(screen, "#vi-status")
        await type_slice(pilot, "[..., 3]")
        np.testing.assert_array_equal(grid.array, src[..., 3])
        # escape in the slice box goes back to the grid, not out of the inspector
        await pilot.press("slash", "escape")
        assert isinstance(app.screen, ValueInspector) and grid.has_focus
        await pilot.press("q")
        assert not isinstance(app.screen, ValueInspector)


@sync
async def test_jump_to_first_nonfinite_rank4(logdir: DebugLogdir) -> None:
    app = Host(lambda: ValueInspector(logdir, GRAPH, trace_index(logdir, "rank4:0"), 0))
    src = inputs()["rank4"]
    where = tuple(int(i) for i in np.argwhere(np.isnan(src))[0])
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        grid = screen.query_one(ValueGrid)
        assert screen.query_one("#vi-slice", Input).value == "[0, 0, :, :]"
        np.testing.assert_array_equal(grid.array, src[0, 0])
        await pilot.press("n")
        await pilot.pause()
        assert screen.query_one("#vi-slice", Input).value == f"[{where[0]}, {where[1]}, :, :]"
        np.testing.assert_array_equal(grid.array, src[where[:2]])
        assert grid.mark == where[2:]
        assert str(list(where)) in text_of(screen, "#vi-status")
        assert "nan" in text_of(screen, "#vi-grid")


@sync
async def test_int_bool_half_string_bfloat16(logdir: DebugLogdir) -> None:
    src = inputs()
    for name, check in (
        ("ints:0", lambda g: g.cell_text(0, 0) == str(src["ints"][0, 0])),
        ("bools:0", lambda g: g.cell_text(0, 0) == str(bool(src["bools"][0, 0]))),
        ("halfs:0", lambda g: g.cell_text(0, 0) == format(float(src["halfs"][0, 0]), ".4g")),
        ("bf16:0", lambda g: g.cell_text(1, 2) == "nan"),
        ("int64s:0", lambda g: g.cell_text(0, 1) == str(src["int64s"][1])),
    ):
        app = Host(lambda n=name: ValueInspector(logdir, GRAPH, trace_index(logdir, n), 0))
        async with app.run_test(size=SIZE) as pilot:
            screen = await loaded(pilot)
            assert check(screen.query_one(ValueGrid)), name
            assert screen.loaded is not None and screen.loaded.value is not None
            assert screen.loaded.value.dtype_name in text_of(screen, "#vi-stats")


@sync
async def test_strings_are_escaped_never_raw(logdir: DebugLogdir) -> None:
    app = Host(lambda: ValueInspector(logdir, GRAPH, trace_index(logdir, "strings:0"), 0))
    async with app.run_test(size=(200, 40)) as pilot:
        screen = await loaded(pilot)
        grid = screen.query_one(ValueGrid)
        shown = text_of(screen, "#vi-grid")
        assert '"plain"' in shown
        assert "\\x1b[31mred" in shown and "\x1b" not in shown
        assert "[bold red]markup[/]" in shown  # shown literally, not parsed as markup
        assert "two\\x0alines" in shown and "café" in shown and "\\xff\\xfe" in shown
        assert len(STRINGS) == grid.cols


@sync
async def test_eager_full_tensor_output(logdir: DebugLogdir) -> None:
    i = eager_index(logdir, "Sqrt")
    app = Host(lambda: ValueInspector(logdir, EAGER, i, 0))
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        grid = screen.query_one(ValueGrid)
        assert [grid.cell_text(0, 0), grid.cell_text(0, 1)] == ["2", "nan"]
        assert "eager execution" in text_of(screen, "#vi-title")
        await pilot.press("n")
        assert grid.mark == (0, 1)


@sync
async def test_save_writes_npy_and_says_where(logdir: DebugLogdir, tmp_path: Path) -> None:
    app = Host(lambda: ValueInspector(logdir, GRAPH, trace_index(logdir, "floats:0"), 0,
                                      save_dir=str(tmp_path)))
    notes = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        await pilot.press("s")
        await workers_done(app)
        await pilot.pause()
        assert screen.saved_path is not None
        assert Path(screen.saved_path).parent == tmp_path
        np.testing.assert_array_equal(np.load(screen.saved_path), inputs()["floats"])
        assert any(screen.saved_path in m for m in notes), notes


@sync
async def test_big_tensor_loads_in_a_worker_and_ui_stays_responsive(
        logdir: DebugLogdir) -> None:
    big = inputs()["big"]
    i = trace_index(logdir, "big:0")
    app = Host(lambda: ValueInspector(logdir, GRAPH, trace_index(logdir, "ints:0"), 0))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = ValueInspector(logdir, GRAPH, i, 0)
        await app.push_screen(screen)  # returns once mounted; the worker has just started
        worker = screen.load_worker
        assert worker is not None
        # mounted and showing the loading state while the worker reads 40 MB
        assert worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
        assert screen.query_one(LoadingIndicator).display
        assert not screen.query_one("#vi-body").display
        await pilot.press("escape")  # handled at once: the screen closes mid-load
        assert app.screen is not screen
        # closing cancels only a running load: CANCELLED proves the key beat the worker
        assert worker.state == WorkerState.CANCELLED, worker.state
        await workers_done(app)
        # opened again and left to finish: the values and statistics of all 10M elements
        app.push_screen(ValueInspector(logdir, GRAPH, i, 0))
        screen = await loaded(pilot)
        assert screen.loaded is not None and screen.loaded.stats is not None
        s = screen.loaded.stats
        exp = expected_stats(big)
        assert s.size == 10_000_000 and s.n_nan == exp["n_nan"] == 1
        assert s.min == pytest.approx(exp["min"]) and s.mean == pytest.approx(exp["mean"])
        grid = screen.query_one(ValueGrid)
        assert grid.rows == 1_000_000
        assert "10,000,000" in text_of(screen, "#vi-stats")
        await pilot.press("n")
        await pilot.pause()
        where = int(np.flatnonzero(np.isnan(big))[0])
        assert grid.mark == divmod(where, 10)
        shown = text_of(screen, "#vi-grid")
        assert f"[{where - where % 10}]" in shown and "nan" in shown


@sync
async def test_missing_tensor_is_an_error_not_a_crash(logdir: DebugLogdir) -> None:
    app = Host(lambda: ValueInspector(logdir, GRAPH, 10**6, 0))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.pause()
        await workers_done(app)
        await pilot.pause()
        assert isinstance(screen, ValueInspector) and screen.error is not None
        assert "does not exist" in text_of(screen, "#vi-message")
        assert isinstance(screen.query_one("#vi-message"), Static)
