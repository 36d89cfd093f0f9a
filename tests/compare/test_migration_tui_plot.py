"""Compare mode on migration pairs: the loss plot under the header, and `b` on a learning rate
or an update (issue 18, point 3 and the `b` key), through the pilot.

Run A is the TF1 Session program, run B a rewrite with one mistake (tests/programs/migration).
Expected, written from the programs before looking at the tool:
- the plot's row A starts and ends at the TF1 program's own loss (the tensor its
  `v1.losses.softmax_cross_entropy` returns, `softmax_cross_entropy_loss/value`, read by name
  here, not through the step model); both runs start from the same weights, so step 0 is drawn
  alike on both rows; a momentum of 0.9 first changes the weights in step 1's update, so the
  mark of the first divergent step is at step 1, in the same column of both rows;
- a run recorded in NO_TENSOR has no loss value: the plot says "no loss found in B";
- `b` on the changed schedule / optimizer: Source Code shows the rewrite's line CREATING it
  (marked `# MIGRATION-BUG`), and Stack Trace the stack APPLYING it, its user line ▶ being the
  rewrite's `apply_gradients(` / `model.fit(` line, named in the Stack Trace's title; before
  `b`, run A's side shows the TF1 line marked `# MIGRATION-A` (it creates and applies it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from compare.migration_fixtures import (
    CUSTOM,
    KERAS,
    MIGRATION,
    STEPS,
    TF1,
    marked_line,
    migration_runs,
)
from support.slowdown import WAIT
from support.tui import settle, sync
from textual.pilot import Pilot

from reader import DebugLogdir
from reader.index.frames import user_frame_index
from tfdbg_tui.core.compare import Tolerance
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.main_screen import MainScreen
from tfdbg_tui.ui.panes.base import ShowFrame

pytestmark = pytest.mark.tf
__all__ = ["migration_runs"]  # the session fixture, used by name

SIZE = (200, 50)
MARK = "┊"
Check = Callable[[TfdbgApp, Pilot, MainScreen], Awaitable[None]]


async def _open(a_dir: str, b_dir: str, check: Check) -> None:
    app = TfdbgApp(DebugLogdir(a_dir), follow=False, compare_with=DebugLogdir(b_dir),
                   tolerance=Tolerance(rtol=1e-5, atol=1e-6))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await asyncio.wait_for(app.compared.wait(), WAIT)
        await settle(app, pilot)
        assert app.main is not None and app.main.compare_view is not None
        await check(app, pilot, app.main)


def _plot(s: MainScreen) -> list[str]:
    plot = s.query_one("#compare-plot")
    assert plot.display, "no loss plot on screen"
    return str(plot.render()).splitlines()


def _line_of(program: str, text: str) -> int:
    """The one line of `program` holding `text` (searched here, in the program's text)."""
    lines = (MIGRATION / program).read_text().splitlines()
    (hit,) = [n for n, line in enumerate(lines, 1) if text in line]
    return hit


def _tf1_losses(path: str) -> list[float]:
    """The TF1 program's loss per Session.run, by the name TF1 gives it."""
    d = DebugLogdir(path)
    d.update()
    rows = [r for r in range(len(d.traces))
            if d.op_name_of_trace(r) == "softmax_cross_entropy_loss/value"]
    assert rows, "the TF1 run recorded no softmax_cross_entropy_loss/value"
    out = []
    for r in rows:
        value = d.read_trace(r).value
        assert value is not None
        out.append(float(value.values.reshape(-1)[0]))
    return out


@sync
async def test_plot_shows_both_losses_and_marks_step_1_of_a_momentum_rewrite(
        migration_runs: dict[str, str]) -> None:
    a_dir, b_dir = migration_runs["tf1"], migration_runs["fit_momentum"]
    losses = _tf1_losses(a_dir)

    async def check(app: TfdbgApp, pilot: Pilot, s: MainScreen) -> None:
        row_a, row_b = _plot(s)
        assert f"{losses[0]:.3g} → {losses[-1]:.3g}" in row_a, (losses, row_a)
        assert f"{losses[0]:.3g} →" in row_b, row_b  # same weights, same first loss
        assert row_a.count(MARK) == row_b.count(MARK) == 1, (row_a, row_b)
        col = row_a.index(MARK)
        assert row_b.index(MARK) == col, (row_a, row_b)  # one column, both rows
        assert "first ≠ step 1" in row_a, row_a
        start = row_a.index(" A ") + 3
        assert row_b.index(" B ") + 3 == start, (row_a, row_b)
        assert row_a[start:col] == row_b[start:col], (row_a, row_b)  # step 0 drawn alike
        assert row_a[start:col].strip(), row_a  # ...and drawn
        cells = row_a[start:row_a.index("  ", start)].replace(MARK, "")
        assert len(cells) == (col - start) * STEPS, row_a  # the mark after step 0's cells

    await _open(a_dir, b_dir, check)


@sync
async def test_plot_says_no_loss_found_for_a_no_tensor_run(migration_runs: dict[str, str]
                                                          ) -> None:
    async def check(app: TfdbgApp, pilot: Pilot, s: MainScreen) -> None:
        row_a, row_b = _plot(s)
        # said instead of an empty plot: nothing drawn between "B" and the sentence
        assert row_b[row_b.index(" B ") + 3:].startswith("no loss found in B"), row_b
        assert "no loss found" not in row_a, row_a

    await _open(migration_runs["tf1"], migration_runs["eager_no_tensor"], check)


async def _d_then_b(app: TfdbgApp, pilot: Pilot, s: MainScreen, variant: str, program: str,
                    applying: str) -> None:
    await pilot.press("d")
    await settle(app, pilot)
    frame = s.source.frame
    assert frame is not None
    assert (Path(frame.file).name, frame.line) == (TF1, marked_line(TF1, "A", variant))
    await pilot.press("b")
    await settle(app, pilot)
    frame = s.source.frame
    assert frame is not None
    assert (Path(frame.file).name, frame.line) == (program, marked_line(program, "BUG",
                                                                         variant))
    applied = _line_of(program, applying)
    title = str(s.stack.border_subtitle)
    assert f"applied at line {applied} ·" in title, title  # created in the same file
    k = user_frame_index(s.stack.frames)
    assert k is not None and (Path(s.stack.frames[k].file).name,
                              s.stack.frames[k].line) == (program, applied)
    # the Stack Trace's own request for its ▶ line, delivered late (a busy loop: in the full
    # suite it came after a 0.5 s hold had run out) must not replace the creating line
    s.post_message(ShowFrame(s.stack.frames[k], immediate=False))
    await settle(app, pilot)  # which waits for that request's debounce
    frame = s.source.frame
    assert frame is not None
    assert (Path(frame.file).name, frame.line) == (program, marked_line(program, "BUG",
                                                                         variant))
    await pilot.press("b")  # back on run A's side
    await settle(app, pilot)
    frame = s.source.frame
    assert frame is not None
    assert (Path(frame.file).name, frame.line) == (TF1, marked_line(TF1, "A", variant))


@sync
async def test_b_on_a_changed_schedule_shows_the_line_creating_it_and_the_one_applying_it(
        migration_runs: dict[str, str]) -> None:
    async def check(app: TfdbgApp, pilot: Pilot, s: MainScreen) -> None:
        await _d_then_b(app, pilot, s, "end_lr", CUSTOM, "apply_gradients(")

    await _open(migration_runs["tf1"], migration_runs["eager_end_lr"], check)


@sync
async def test_b_on_a_changed_optimizer_shows_the_line_creating_it_and_the_one_applying_it(
        migration_runs: dict[str, str]) -> None:
    async def check(app: TfdbgApp, pilot: Pilot, s: MainScreen) -> None:
        await _d_then_b(app, pilot, s, "momentum", KERAS, "model.fit(")

    await _open(migration_runs["tf1"], migration_runs["fit_momentum"], check)


@sync
async def test_run_a_eager_shows_its_schedule_lines_then_b_the_tf1_line(
        migration_runs: dict[str, str]) -> None:
    """The rewrite opened with `--compare` its TF1 run: `d` goes to the learning rate in the
    Timeline; run A's side is the rewrite's line creating the schedule (its applying line ▶
    in Stack Trace); `b` shows the TF1 line, which both creates and applies it."""
    async def check(app: TfdbgApp, pilot: Pilot, s: MainScreen) -> None:
        await pilot.press("d")
        await settle(app, pilot)
        assert s.current_pane() is s.timeline
        frame = s.source.frame
        assert frame is not None
        assert (Path(frame.file).name, frame.line) == (CUSTOM, marked_line(CUSTOM, "BUG",
                                                                            "end_lr"))
        applied = _line_of(CUSTOM, "apply_gradients(")
        assert f"applied at line {applied} ·" in str(s.stack.border_subtitle)
        await pilot.press("b")
        await settle(app, pilot)
        frame = s.source.frame
        assert frame is not None
        assert (Path(frame.file).name, frame.line) == (TF1, marked_line(TF1, "A", "end_lr"))
        assert "creates and applies" in str(s.source.border_subtitle)

    await _open(migration_runs["eager_end_lr"], migration_runs["tf1"], check)
