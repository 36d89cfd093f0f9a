"""The alert selected at launch is the run's first, however its alerts arrive (issue 31).

A logdir's alerts reach the app in pieces: a progress snapshot of the first read, a file read
later, a live run's next poll. A piece read later can hold an *earlier* alert (another host's
file, the graph traces of a step whose eager call was read first). Until the user moves a
selection, the Alerts pane keeps the run's first alert (row 0: what `report` calls the first
alert) selected and the panes that follow it (Graph Executions, Stack, Source, the diagnosis)
follow it again; once the user has chosen, their alert is kept, by identity, as earlier rows
arrive before it. It failed once in a full run (zoo `c5_data_from_tensor_slices`: the app
kept eager alert 43 while the headline was graph alert 37; `test_tui_live[polling]`:
alerts.selected 3, not 0).

The order that shows it is made here, without timing: the test holds the reader's own lock
(the app's first read waits inside `update()`) and publishes the pieces through the app's
own publish path, later alerts first (`HeldLock`, as tests/tui/test_tui_indexing.py does).
The logdir is the reference run of three steps (two bad): alerts 0-2 are step 1's graph
traces (Log, mul, Sum), alert 3 its eager `train_step` call, 4-7 step 2's.
"""

from __future__ import annotations

from pathlib import Path

from support.tui import record_notifications, settle, sync, write_reference
from test_tui_indexing import HeldLock, later_alerts

from reader import EAGER, GRAPH, DebugLogdir
from reader.diagnosis import diagnose
from reader.index.alerts import Alerts
from tfdbg_tui.core.model import Snapshot, empty_alerts
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.main_screen import MainScreen


def snapshot(logdir: DebugLogdir, alerts: Alerts) -> Snapshot:
    """A progress snapshot of the whole logdir's rows with only `alerts` found so far."""
    return Snapshot(len(logdir.executions), len(logdir.traces), len(logdir.outputs), alerts,
                    indexing=True, done_bytes=1, total_bytes=2)


def alert(alerts: Alerts, k: int) -> tuple[int, int, int]:
    return int(alerts.kind[k]), int(alerts.index[k]), int(alerts.slot[k])


def reference(tmp_path: Path) -> tuple[DebugLogdir, Alerts]:
    write_reference(tmp_path / "run", steps=3)  # steps 2 and 3 go bad
    logdir = DebugLogdir(str(tmp_path / "run"))
    logdir.update()  # the rows exist; the app's own read then finds nothing new
    everything = logdir.alerts()
    # what the tests below rely on: a graph alert first, the eager call of its step later
    assert len(everything) == 8
    assert alert(everything, 0)[0] == GRAPH and alert(everything, 3)[0] == EAGER
    return logdir, everything


def shows_log_stack(s: MainScreen) -> bool:
    """The Stack Trace holds the Log op's stack (its `cross_entropy` frame): graph alert
    0's, not the eager `train_step` call's (`<module>` frames only)."""
    return any(f.function == "cross_entropy" for f in s.stack.frames)


@sync
async def test_an_earlier_alert_read_later_is_selected_and_followed(tmp_path: Path) -> None:
    logdir, everything = reference(tmp_path)
    lock = HeldLock(logdir)
    app = TfdbgApp(logdir, follow=False)
    said = record_notifications(app)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.pause()
            s = app.main
            assert isinstance(s, MainScreen)
            # the read has met step 1's eager call first, its graph traces not yet
            app._publish(snapshot(logdir, later_alerts(everything, 3)), False, [])
            await pilot.pause()
            assert s.alerts.selected_alert() == alert(everything, 3)  # the earliest so far
            assert s.timeline.selected == alert(everything, 3)[1]  # followed at launch
            assert not shows_log_stack(s)
            notices = len(said)

            lock.release()  # the read ends: the graph alerts before it are found
            await settle(app, pilot)
            first = alert(everything, 0)
            assert s.alerts.selected == 0 and s.alerts.selected_alert() == first, (
                f"selected {s.alerts.selected_alert()} at {s.alerts.selected}, want the "
                f"run's first alert {first}")
            # and what follows the selection followed it: tensor, op, stack, source, diagnosis
            assert s.ge.selected == first[1] and s.structure.trace == first[1]
            assert shows_log_stack(s), [f.function for f in s.stack.frames]
            want = diagnose(logdir, *first)
            assert s.alerts.diagnosed == 0 and s.alerts.diagnosis is not None
            assert s.alerts.diagnosis.explanation == want.explanation
            assert not s.alerts.provisional
            assert want.fix_frame is not None and s.source.frame is not None
            assert (s.source.frame.file, s.source.frame.line) == (want.fix_frame.file,
                                                                  want.fix_frame.line)
            # nothing to offer: what is selected is the earliest
            assert not any("earlier alert" in m for m in said[notices:]), said[notices:]
    finally:
        lock.release()


@sync
async def test_the_users_choice_is_kept_as_earlier_alerts_arrive(tmp_path: Path) -> None:
    logdir, everything = reference(tmp_path)
    lock = HeldLock(logdir)
    app = TfdbgApp(logdir, follow=False)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.pause()
            s = app.main
            assert isinstance(s, MainScreen)
            app._publish(snapshot(logdir, later_alerts(everything, 3)), False, [])
            await pilot.pause()
            assert s.alerts.selected_alert() == alert(everything, 3)
            await pilot.press("down")  # the user's choice: the alert after it
            assert s.alerts.selected_alert() == alert(everything, 4)
            stack = list(s.stack.frames)

            lock.release()
            await settle(app, pilot)
            assert s.alerts.selected_alert() == alert(everything, 4)  # the same alert…
            assert s.alerts.selected == 4  # …at its row now, four earlier ones before it
            assert s.alerts.diagnosed == 4
            assert s.stack.frames == stack  # nothing followed by itself
    finally:
        lock.release()


@sync
async def test_the_first_alert_stays_selected_while_the_user_is_elsewhere(
        tmp_path: Path) -> None:
    """As `test_tui_live` (alerts arrive while the user walks Graph Executions): the Alerts
    pane selects the run's first alert as earlier ones arrive, and the cursor the user moved
    in Graph Executions stays where they put it."""
    logdir, everything = reference(tmp_path)
    lock = HeldLock(logdir)
    app = TfdbgApp(logdir, follow=False)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.pause()
            s = app.main
            assert isinstance(s, MainScreen)
            app._publish(snapshot(logdir, empty_alerts()), False, [])  # rows, no alert yet
            await pilot.pause()
            await pilot.press("3", "down", "down")
            assert s.ge.selected == 2
            app._publish(snapshot(logdir, later_alerts(everything, 5)), False, [])
            await pilot.pause()
            assert s.alerts.selected_alert() == alert(everything, 5)
            app._publish(snapshot(logdir, later_alerts(everything, 3)), False, [])
            await pilot.pause()
            assert s.alerts.selected == 0, s.alerts.selected
            assert s.alerts.selected_alert() == alert(everything, 3)

            lock.release()
            await settle(app, pilot)
            assert s.alerts.selected == 0 and s.alerts.selected_alert() == alert(everything, 0)
            assert s.alerts.diagnosed == 0
            assert s.ge.selected == 2  # the user's cursor: not moved by any of it
            assert s.focused is s.ge.vlist
    finally:
        lock.release()
