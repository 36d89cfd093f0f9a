"""A run that keeps growing while its incidents are found keeps them current (issue 31).

Before: the journey (steps and incidents) was an exclusive worker, and a result found for an
older alert list was dropped. While snapshots arrived faster than incidents were found, no
result ever landed: the Alerts pane's "▼ new · N alerts not yet grouped" grew with the run
until it paused. Now one finding runs at a time and each result is laid over the list the
run has grown into (its alerts by position, the newer ones apart), so the alerts not yet
grouped stay those of the last step or two, however long the run grows.

The steady growth is made deterministic, not timed: each finding, as it starts, has the
writer append a step and waits until the pane has taken the grown list, then finds the
incidents of the list it was asked for (TensorFlow-free logdir: tests/tui/incident_logdir.py).
So a new snapshot always arrives during every finding. Waits are on events (the app's data,
the workers, a condition the pane's data hook sets), never a sleep.
"""

from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path

import pytest
from incident_logdir import LINES, add_ops, add_two_origin_step
from support.slowdown import WAIT
from support.tui import start_reference, sync
from textual.worker import WorkerCancelled

from reader import Alerts, DebugLogdir
from tfdbg_tui.core.journey import Journey
from tfdbg_tui.ui import main_screen
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.main_screen import MainScreen

PER_STEP = 4  # alerts a step adds (tests/tui/incident_logdir.py)
GROWTH = 6  # steps the run grows by while its incidents are being found


async def settled(app: TfdbgApp) -> None:
    """Until no finding is running (each one that lands may start the next)."""
    async def wait() -> None:
        while running := [w for w in app.workers if w.group == "journey"
                          and not w.is_finished]:
            try:
                await app.workers.wait_for_complete(running)
            except WorkerCancelled:
                continue

    await asyncio.wait_for(wait(), WAIT)


def texts(s: MainScreen) -> list[str]:
    vl = s.alerts.vlist
    return [s.alerts.render_row(vl.index_at(k), 200).plain for k in range(vl.row_count)]


def not_grouped(summary: str) -> int:
    """N of the summary's "+ N new not yet grouped" (0 when all are grouped)."""
    m = re.search(r"\+ ([\d,]+) new not yet grouped", summary)
    return int(m.group(1).replace(",", "")) if m else 0


@sync
async def test_incidents_keep_up_with_a_run_that_keeps_growing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ref = start_reference(tmp_path / "live", source_lines=LINES)
    add_ops(ref)
    for step in range(2):
        add_two_origin_step(ref, step)
    app = TfdbgApp(DebugLogdir(str(tmp_path / "live")), follow=True, notify=False,
                   poll_interval=0.05)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            n = 2 * PER_STEP
            await app.wait_for_data(lambda snap: not snap.indexing and len(snap.alerts) == n,
                                    timeout=WAIT)
            await settled(app)
            await pilot.pause()
            s = app.main
            assert s is not None
            a = s.alerts
            assert texts(s)[0].startswith("▼ 1/2"), texts(s)  # grouped: two incidents
            # incident 1 folded, the cursor on incident 2's first alert
            await pilot.press("1", "home", "down", "left", "down", "down")
            await pilot.pause()
            assert texts(s)[0].startswith("▶ 1/2"), texts(s)
            chosen = a.selected_alert()
            assert chosen is not None

            taken = threading.Condition()
            summaries: list[str] = []  # the summary as each new alert list left it
            on_data = a.on_data

            def recorded() -> None:
                on_data()
                with taken:
                    summaries.append(str(s.query_one("#alerts-summary").render()))
                    taken.notify_all()

            a.on_data = recorded  # type: ignore[method-assign]
            real = main_screen.compute_journey
            asked: list[int] = []  # the lengths of the lists findings were asked for
            grown = [0]

            def growing(logdir: DebugLogdir, alerts: Alerts) -> Journey:
                """A step is written as each finding starts, and taken by the pane before
                the finding goes on (in the worker's thread)."""
                asked.append(len(alerts))
                if grown[0] < GROWTH:
                    grown[0] += 1
                    add_two_origin_step(ref, 2 + grown[0])
                    target = n + (1 + grown[0]) * PER_STEP  # (the first growth's, then this)
                    with taken:
                        assert taken.wait_for(lambda: len(a.alerts) >= target, WAIT)
                return real(logdir, alerts)

            monkeypatch.setattr(main_screen, "compute_journey", growing)
            add_two_origin_step(ref, 2)  # the first growth; the findings make the rest
            m = n + (GROWTH + 1) * PER_STEP
            await app.wait_for_data(lambda snap: len(snap.alerts) == m, timeout=WAIT)
            await settled(app)
            await pilot.pause()

            assert grown[0] == GROWTH and len(asked) > 1, asked
            # grouped all along, and never more than the last steps' alerts apart (before:
            # 4, 8, 12, … 28: no finding landed while the run grew)
            assert all(t.startswith("2 incidents") for t in summaries), summaries
            worst = max(not_grouped(t) for t in summaries)
            assert worst <= 2 * PER_STEP, summaries
            # the last finding is the grown list's own: every alert in an incident
            assert app.state.journey is not None
            assert app.state.journey.alerts is app.state.snapshot.alerts
            shown = texts(s)
            assert not any("not yet grouped" in t for t in shown), shown
            summary = str(s.query_one("#alerts-summary").render())
            assert summary.startswith("2 incidents ·") and f"{m} NaN/∞ events" in summary, summary
            # the user's choices outlived every finding: the fold, the cursor's alert
            assert shown[0].startswith("▶ 1/2"), shown
            assert a.selected_alert() == chosen
            vl = a.vlist
            alerts_shown = sorted(r for r in (vl.index_at(k) for k in range(vl.row_count))
                                  if r < m)
            assert alerts_shown == sorted(set(alerts_shown))  # each alert at most once
    finally:
        ref.writer.close()
