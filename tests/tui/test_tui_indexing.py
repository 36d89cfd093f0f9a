"""The app while its first read is still running (issue 19, point 16).

A big logdir takes seconds to index. Meanwhile every key must be handled (the UI thread never
waits for the reader), and the alert selected at launch is only the earliest *so far*: if the
rest of the read finds an earlier one, the app says so and how to get there, and never moves
the user's selection by itself.

"Still indexing" is made deterministic here without sleeps or mocks: the test holds the
reader's own lock — exactly what `DebugLogdir.update()` holds while it reads — so the app's
indexing worker waits inside its first read for as long as the test wants. Progress
snapshots are published through the app's own publish path, as the worker does.
"""

from __future__ import annotations

import threading
from pathlib import Path

from support.slowdown import WAIT
from support.tui import record_notifications, settle, sync, write_reference
from textual.widgets import Input

from reader import DebugLogdir
from reader.index.alerts import Alerts
from tfdbg_tui.core.model import Snapshot
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.dialogs import HelpScreen
from tfdbg_tui.ui.main_screen import MainScreen


class HeldLock:
    """Holds the logdir's reader lock from another thread until `release()`."""

    def __init__(self, logdir: DebugLogdir) -> None:
        self._held, self._go = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._hold, args=(logdir,), daemon=True)
        self._thread.start()
        assert self._held.wait(WAIT)

    def _hold(self, logdir: DebugLogdir) -> None:
        with logdir._lock:
            self._held.set()
            # until the test releases it (always, in a `finally`); the guard only frees a
            # lock whose test died before that — it must outlast the slowest test body
            self._go.wait(4 * WAIT)

    def release(self) -> None:
        self._go.set()
        self._thread.join(WAIT)


def later_alerts(alerts: Alerts, skip: int) -> Alerts:
    return Alerts(alerts.kind[skip:], alerts.index[skip:], alerts.slot[skip:],
                  alerts.wall_time[skip:])


@sync
async def test_keys_work_while_indexing_and_an_earlier_alert_is_offered_not_forced(
        tmp_path: Path) -> None:
    write_reference(tmp_path / "run", steps=3)  # steps 2 and 3 go bad
    logdir = DebugLogdir(str(tmp_path / "run"))
    logdir.update()  # the rows exist; the app's own read then finds nothing new
    everything = logdir.alerts()
    assert len(everything) >= 2
    lock = HeldLock(logdir)
    app = TfdbgApp(logdir, follow=False)
    said = record_notifications(app)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.pause()
            assert not app.indexed.is_set()  # the worker waits inside update()
            s = app.main
            assert isinstance(s, MainScreen)
            # the read has met only the later alerts so far (another host's file, say)
            partial = Snapshot(len(logdir.executions), len(logdir.traces),
                               len(logdir.outputs), later_alerts(everything, 1),
                               indexing=True, done_bytes=1, total_bytes=2)
            app._publish(partial, False, [])
            await pilot.pause()
            launch = s.alerts.selected_alert()
            assert launch == (int(everything.kind[1]), int(everything.index[1]),
                              int(everything.slot[1]))
            summary = str(s.query_one("#alerts-summary").render())
            assert "earliest so far" in summary
            # keys are handled meanwhile
            await pilot.press("3")
            assert s.focused is s.ge.vlist
            before = s.ge.vlist.cursor_index
            await pilot.press("j")
            assert s.ge.vlist.cursor_index != before
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await pilot.press("1", "slash")
            assert isinstance(app.screen.focused, Input)
            await pilot.press("escape")
            assert not app.indexed.is_set()  # all of that while still indexing
            # the read ends and finds the earlier alert
            notices = len(said)
            lock.release()
            await settle(app, pilot)
            assert s.alerts.selected_alert() == launch  # the selection did not move
            new = said[notices:]
            assert any("earlier alert" in m for m in new), new
    finally:
        lock.release()


@sync
async def test_no_notice_when_the_launch_alert_stays_the_earliest(tmp_path: Path) -> None:
    write_reference(tmp_path / "run", steps=3)
    logdir = DebugLogdir(str(tmp_path / "run"))
    logdir.update()
    everything = logdir.alerts()
    lock = HeldLock(logdir)
    app = TfdbgApp(logdir, follow=False)
    said = record_notifications(app)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.pause()
            partial = Snapshot(len(logdir.executions), len(logdir.traces),
                               len(logdir.outputs), everything, indexing=True,
                               done_bytes=1, total_bytes=2)
            app._publish(partial, False, [])
            await pilot.pause()
            notices = len(said)
            lock.release()
            await settle(app, pilot)
            assert app.main is not None and app.main.alerts.selected == 0
            new = said[notices:]
            assert not any("earlier alert" in m for m in new), new
    finally:
        lock.release()
