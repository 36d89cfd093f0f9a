"""The per-step loss plot (compare mode's line under the header, `diff`'s lines under the steps
table) on forged training loops whose loss goes NaN: NaN must be visible, never dropped.

Each run is a hand-written eager training loop (the TensorFlow-free writer), the smallest the
step model recognises: read w, y = x @ w, loss = Σy, a gradient, w -= lr·g. Run B's loss is
written as NaN from step `NAN_AT` on (as a loss that blew up); everything else is the same.
Expected, before looking at the tool: run A's row has no NaN mark, run B's has one, and B's
summary says from which step; the steps before are drawn alike on both rows.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from compare.pairs_support import run_diff
from support.slowdown import WAIT
from support.tui import settle, sync
from textual.pilot import Pilot

from dumper.writer import LogdirWriter
from reader import DebugLogdir
from tfdbg_tui.core.compare.series import NAN, VALUE, LossSeries, SideLoss
from tfdbg_tui.core.compare.spark import BARS, GLYPH, MARK, spark
from tfdbg_tui.ui.app import TfdbgApp

HANDLE = 7
STEPS = 5
NAN_AT = 3


def _health(x: Any) -> np.ndarray:
    """The FULL_HEALTH vector TensorFlow writes for float32 tensor `x` (reader/index/health)."""
    v = np.asarray(x, np.float64).reshape(-1)
    f = v[np.isfinite(v)]
    return np.array([0, -1, 1, np.ndim(x), v.size, np.sum(v == -np.inf), np.sum(v == np.inf),
                     np.sum(np.isnan(v)), np.sum(f < 0), np.sum(f == 0), np.sum(f > 0)],
                    np.float64)


def _run(path: Path, nan_at: int | None, health: bool = False) -> str:
    """STEPS eager steps; the loss (`Sum`) recorded as NaN from step `nan_at` on; in
    FULL_HEALTH (counts, no values) when `health`."""
    w = np.full((2, 2), 0.5, np.float32)
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    with LogdirWriter(path, overwrite=True, run_id="plot0001", file_timestamp=1) as wr:
        f = wr.add_source_file("/site-packages/tensorflow/python/eager/backprop.py", ["pass"])
        backward = [wr.add_stack_frame(f, 1, "gradient")]
        o = wr.add_source_file("/site-packages/keras/src/optimizers/sgd.py", ["pass"])
        optimizer = [wr.add_stack_frame(o, 1, "update_step")]
        tid = 100
        clock = iter(range(1_000, 2_000))  # fixed wall times: the same picture every run
        _ex = wr.add_execution

        def add_execution(op: str, mode: str, tensors: list[Any], **kwargs: Any) -> int:
            if health:
                mode, tensors = "FULL_HEALTH", [_health(t) for t in tensors]
            return _ex(op, mode, tensors, wall_time=float(next(clock)), **kwargs)

        wr.add_execution = add_execution  # type: ignore[method-assign]
        for step in range(STEPS):
            wr.add_execution("ReadVariableOp", "FULL_TENSOR", [w.copy()],
                             input_tensor_ids=[HANDLE], output_tensor_ids=[tid])
            y = x @ w
            wr.add_execution("MatMul", "FULL_TENSOR", [y], input_tensor_ids=[50, tid],
                             output_tensor_ids=[tid + 1])
            loss = np.float32("nan") if nan_at is not None and step >= nan_at else y.sum()
            wr.add_execution("Sum", "FULL_TENSOR", [np.array(loss, np.float32)],
                             input_tensor_ids=[tid + 1, 51], output_tensor_ids=[tid + 2])
            g = (x.T @ np.ones((2, 2), np.float32)).astype(np.float32)
            wr.add_execution("MatMul", "FULL_TENSOR", [g], input_tensor_ids=[50, 53],
                             output_tensor_ids=[tid + 3], stack_frame_ids=backward)
            lr = np.array(0.01, np.float32)
            wr.add_execution("Identity", "FULL_TENSOR", [lr], input_tensor_ids=[54],
                             output_tensor_ids=[tid + 4])
            delta = (lr * g).astype(np.float32)
            wr.add_execution("Mul", "FULL_TENSOR", [delta], input_tensor_ids=[tid + 3, tid + 4],
                             output_tensor_ids=[tid + 5], stack_frame_ids=optimizer)
            wr.add_execution("AssignSubVariableOp", "FULL_TENSOR", [],
                             input_tensor_ids=[HANDLE, tid + 5], output_tensor_ids=[],
                             stack_frame_ids=optimizer)
            w = w - delta
            tid += 10
    return str(path)


def _plot_lines(app: TfdbgApp) -> list[str]:
    assert app.main is not None
    plot = app.main.query_one("#compare-plot")
    assert plot.display, "the loss plot is hidden"
    return str(plot.render()).splitlines()


def _cells(row: str, name: str) -> tuple[int, str]:
    """Where a run's cells start on its row, and the cells (up to the two-space gap)."""
    start = row.index(f"{name} ") + 2
    return start, row[start:row.index("  ", start)]


@sync
async def test_a_nan_loss_is_marked_on_b_row_and_said_from_which_step(tmp_path: Path) -> None:
    a, b = _run(tmp_path / "a", None), _run(tmp_path / "b", NAN_AT)
    app = TfdbgApp(DebugLogdir(a), follow=False, compare_with=DebugLogdir(b))
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        await asyncio.wait_for(app.compared.wait(), WAIT)
        await settle(app, pilot)
        row_a, row_b = _plot_lines(app)
    assert "loss" in row_a and " A " in row_a and " B " in row_b, (row_a, row_b)
    nan = GLYPH[NAN]
    (start_a, cells_a), (start_b, cells_b) = _cells(row_a, "A"), _cells(row_b, "B")
    assert nan not in cells_a, row_a
    assert nan in cells_b, row_b
    assert f"NaN from step {NAN_AT}" in row_b, row_b
    assert "NaN" not in row_a, row_a
    assert f"loss ≠ from step {NAN_AT}" in row_b, row_b  # NaN against a number differs
    # step k in the same column of both rows; the steps before the NaN drawn alike
    assert start_a == start_b, (row_a, row_b)
    before = cells_b.index(nan)
    assert cells_a[:before] == cells_b[:before], (row_a, row_b)


@sync
async def test_the_plot_collapses_to_one_line_at_80x24(tmp_path: Path) -> None:
    a, b = _run(tmp_path / "a", None), _run(tmp_path / "b", NAN_AT)
    app = TfdbgApp(DebugLogdir(a), follow=False, compare_with=DebugLogdir(b))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await asyncio.wait_for(app.compared.wait(), WAIT)
        await settle(app, pilot)
        (line,) = _plot_lines(app)
    assert " A " in line and " B " in line and GLYPH[NAN] in line, line


def test_diff_prints_a_loss_line_per_run_and_json_keeps_nan_apart(tmp_path: Path) -> None:
    a, b = _run(tmp_path / "a", None), _run(tmp_path / "b", NAN_AT)
    code, out, err = run_diff(a, b)
    assert "Traceback" not in err, err
    assert code == 1, out  # a NaN loss against a number: they diverge
    rows = {line.split()[1]: line for line in out.splitlines()
            if line.strip().startswith("loss ")}
    assert set(rows) == {"A", "B"}, out
    assert GLYPH[NAN] in rows["B"] and f"NaN from step {NAN_AT}" in rows["B"], rows
    assert GLYPH[NAN] not in rows["A"].strip().split("  ")[1], rows
    # bars of a small difference look alike: B's row says in words where the loss parts
    assert f"(loss ≠ from step {NAN_AT}" in rows["B"], rows
    code, out, err = run_diff("--json", a, b)
    assert code == 1, err
    r = json.loads(out)
    for step in r["steps"]:  # existing keys stay; loss_* are added
        assert "quantities" in step
        k = step["step"]
        assert step["loss_a_state"] == "value" and isinstance(step["loss_a"], float)
        if k >= NAN_AT:
            assert (step["loss_b"], step["loss_b_state"]) == (None, "nan"), step
        else:
            assert step["loss_b"] == step["loss_a"], step
    assert r["loss_series"]["b"]["states"][NAN_AT] == "nan"


def test_equal_runs_say_their_loss_is_equal_at_every_step(tmp_path: Path) -> None:
    a, b = _run(tmp_path / "a", None), _run(tmp_path / "b", None)
    code, out, err = run_diff(a, b)
    assert code == 0 and "Traceback" not in err, (out, err)
    (row_b,) = [line.strip() for line in out.splitlines() if line.strip().startswith("loss B")]
    assert row_b.endswith("(loss equal at every compared step)"), row_b


def test_a_health_run_shows_its_nan_from_the_counts_and_no_invented_values(
        tmp_path: Path) -> None:
    """Run B in FULL_HEALTH: no loss values, but the counts say where it is NaN — the plot
    marks those steps, says the values were not recorded, and invents no bars or numbers."""
    a, b = _run(tmp_path / "a", None), _run(tmp_path / "b", NAN_AT, health=True)
    code, out, err = run_diff(a, b)
    assert code == 1 and "Traceback" not in err, (out, err)
    (row_b,) = [line.strip() for line in out.splitlines() if line.strip().startswith("loss B")]
    cells = row_b.split("  ")[1]
    assert GLYPH[NAN] in cells and not set(cells) & set(BARS), row_b
    assert f"NaN from step {NAN_AT}" in row_b and "not recorded" in row_b, row_b
    assert "→" not in row_b, row_b  # no first → last value: there is none
    _, out, _ = run_diff("--json", a, b)
    states = json.loads(out)["loss_series"]["b"]["states"]
    assert states == ["finite"] * NAN_AT + ["nan"] * (STEPS - NAN_AT), states


def test_bucketed_cells_keep_a_single_nan_step_visible() -> None:
    """300 steps in 30 cells: one NaN step among ten still marks its cell; ±∞ too."""
    n = 300
    values = [float(k) for k in range(n)]
    states = [VALUE] * n
    values[155], states[155] = math.nan, NAN
    side = SideLoss(values, states)
    series = LossSeries(SideLoss([float(k) for k in range(n)], [VALUE] * n), side, n,
                        [False] * 155 + [True] * 145, [0.0] * n, ["equal"] * n, 155, "loss")
    row_a, row_b, first = spark(series, 30)
    assert len(row_a) == len(row_b) == 30
    assert [c.glyph for c in row_b].count(GLYPH[NAN]) == 1
    assert GLYPH[NAN] not in "".join(c.glyph for c in row_a)
    assert first is not None and 155 in row_b[first].steps
    assert MARK not in "".join(c.glyph for c in row_a)  # the mark is drawn by the renderers


@pytest.mark.parametrize("size", [(120, 32), (80, 24)])
def test_snapshot_after_d(snap_compare: Callable[..., bool], tmp_path: Path,
                          size: tuple[int, int]) -> None:
    """The whole screen once compared and `d` pressed: the plot under the header (two rows
    at 120×32, one at 80×24), the verdict in the header, the Timeline on the first
    divergence. Update with `--snapshot-update` after a deliberate change."""
    # B's logdir name is what the header shows of it: a fixed name, longer than the 24
    # cells the header keeps of B's path, so the picture does not hold pytest's tmp path
    a, b = _run(tmp_path / "a", None), _run(tmp_path / "forged_run_b_with_a_nan_loss", NAN_AT)

    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, TfdbgApp)
        await settle(app, pilot)
        await asyncio.wait_for(app.compared.wait(), WAIT)
        await settle(app, pilot)
        await pilot.press("d")
        await settle(app, pilot)
        app.clear_notifications()
        await pilot.pause()

    app = TfdbgApp(DebugLogdir(a), follow=False, compare_with=DebugLogdir(b),
                   display_path="/tmp/tf1_logdir")
    assert snap_compare(app, terminal_size=size, run_before=run_before)
