"""The app follows a logdir that is still being written: rows and alerts arrive on their own.

A writer appends records (real TFRecord framing, via `dumper.writer`) while the app runs,
once woken by file-system notifications and once by the polling fallback (what a network
file system gets); the test waits on the app's data event, never on a sleep.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from support.tui import add_step, start_reference, sync, write_reference

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.follow import MAX_NOTICES, notices
from tfdbg_tui.ui.main_screen import MainScreen

WAIT = 60.0  # a bound that fails the test, never a pace


@pytest.mark.parametrize("notify", [True, False], ids=["notifications", "polling"])
@sync
async def test_new_rows_and_alerts_arrive_live_without_moving_selection(
        tmp_path: Path, notify: bool) -> None:
    ref = start_reference(tmp_path / "live")
    add_step(ref, 0, bad=False)
    app = TfdbgApp(DebugLogdir(str(tmp_path / "live")), follow=True, notify=notify,
                   poll_interval=0.05)
    if notify:  # no stat within WAIT: only a notification can bring the new rows in time
        app.follower.safety_interval = 3600.0
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            await app.wait_for_data(lambda s: not s.indexing, timeout=WAIT)
            await pilot.pause()
            s = app.main
            assert s is not None
            assert app.follower.mode == ("notify" if notify else "poll")
            assert app.state.snapshot.traces == 5 and len(app.state.snapshot.alerts) == 0
            await pilot.press("3", "down", "down")
            assert s.ge.selected == 2
            offset = s.ge.vlist.scroll_offset.y

            add_step(ref, 1, bad=True)  # five more traces, four of them with NaN/∞
            await app.wait_for_data(lambda snap: snap.traces == 10 and len(snap.alerts) == 4,
                                    timeout=WAIT)
            await pilot.pause()
            assert s.ge.vlist.row_count == 10
            assert s.timeline.vlist.row_count == 2
            assert s.ge.selected == 2  # the selection did not jump
            assert s.ge.vlist.scroll_offset.y == offset
            assert alert_rows(s) == 4
            assert s.alerts.selected == 0  # the first alert is selected when alerts appear
            assert "10 graph tensors" in str(s.query_one("#header-line").render())

            # a filter stays applied to rows that arrive later
            assert s.ge.toggle_only_bad()
            assert s.ge.vlist.row_count == 3  # Log, mul, Sum (the 4th alert is eager)
            add_step(ref, 2, bad=True)
            await app.wait_for_data(lambda snap: snap.traces == 15, timeout=WAIT)
            await pilot.pause()
            assert s.ge.vlist.row_count == 6
            assert alert_rows(s) == 8
    finally:
        ref.writer.close()


def alert_rows(s: MainScreen) -> int:
    """Alerts listed (an incident's header, once they are grouped, is not one)."""
    return len(s.alerts.alert_rows_shown(range(s.alerts.vlist.row_count)))


def test_a_flood_of_new_warnings_pops_up_as_a_few_and_a_count() -> None:
    few = [f"file {i}: skipped" for i in range(MAX_NOTICES)]
    assert notices(few) == few  # each one while they are few
    many = [f"file {i}: skipped" for i in range(3 * MAX_NOTICES)]
    shown = notices(many)
    assert len(shown) == MAX_NOTICES and shown[:-1] == many[: MAX_NOTICES - 1]
    assert f"{len(many) - (MAX_NOTICES - 1)} more warnings" in shown[-1]


async def _compared_rows(app: TfdbgApp, rows: int) -> None:
    """Wait (event-driven) until a comparison covering `rows` Graph Executions rows is shown."""
    async def wait() -> None:
        while app.main is None or app.main.compare_view is None \
                or len(app.main.compare_view.status) < rows:
            app.compared.clear()
            await app.compared.wait()

    await asyncio.wait_for(wait(), WAIT)


@sync
async def test_comparing_a_run_still_being_written_compares_rows_as_they_arrive(
        tmp_path: Path) -> None:
    """`tfdbg-tui A --compare B` while A is still written (issue 19, point 13): A's rows are
    compared as they arrive, not only those there when A was first read, and the Alerts
    pane says "no NaN/∞ found" one way only."""
    write_reference(tmp_path / "B", steps=3)  # B: the finished run, its steps 1, 2 bad
    ref = start_reference(tmp_path / "A")  # A: the same program, still running
    add_step(ref, 0, bad=False)
    app = TfdbgApp(DebugLogdir(str(tmp_path / "A")), follow=True, notify=False,
                   poll_interval=0.05, compare_with=DebugLogdir(str(tmp_path / "B")))
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await _compared_rows(app, 5)
            await pilot.pause()
            s = app.main
            assert s is not None and s.compare_view is not None
            summary = " ".join(str(w.render()) for w in (s.query_one("#alerts-summary"),))
            assert "no NaN/∞ found" in summary and "yet" not in summary

            add_step(ref, 1, bad=True)  # A goes on: the same steps as B
            add_step(ref, 2, bad=True)
            await _compared_rows(app, 15)
            await pilot.pause()
            assert s.ge.vlist.row_count == 15
            chips = [s.compare_view.chip(row).plain.strip() for row in range(15)]
            assert chips == ["="] * 15, chips  # every row paired with B's and equal
            header = str(s.query_one("#header-line").render())
            assert "vs B" in header and "equivalent" in header, header
            assert "no NaN/∞ found" not in str(s.query_one("#alerts-summary").render())
    finally:
        ref.writer.close()
