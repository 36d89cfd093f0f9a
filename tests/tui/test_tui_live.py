"""The app follows a logdir that is still being written: rows and alerts arrive on their own.

A writer appends records (real TFRecord framing, via `dumper.writer`) while the app runs with
its normal one-second poll; the test waits on the app's data event, never on a sleep.
"""

from __future__ import annotations

import time
from pathlib import Path

from support.tui import add_step, start_reference, sync

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp


@sync
async def test_new_rows_and_alerts_arrive_live_without_moving_selection(tmp_path: Path) -> None:
    ref = start_reference(tmp_path / "live")
    add_step(ref, 0, bad=False)
    app = TfdbgApp(DebugLogdir(str(tmp_path / "live")), follow=True)
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            await app.wait_for_data(lambda s: not s.indexing)
            await pilot.pause()
            s = app.main
            assert s is not None
            assert app.state.snapshot.traces == 5 and len(app.state.snapshot.alerts) == 0
            await pilot.press("3", "down", "down")
            assert s.ge.selected == 2
            offset = s.ge.vlist.scroll_offset.y

            add_step(ref, 1, bad=True)  # five more traces, four of them with NaN/∞
            start = time.monotonic()
            await app.wait_for_data(lambda snap: snap.traces == 10 and len(snap.alerts) == 4,
                                    timeout=2.0)
            elapsed = time.monotonic() - start
            await pilot.pause()
            assert elapsed < 2.0  # the bar: new data shows within 2 s
            assert s.ge.vlist.row_count == 10
            assert s.timeline.vlist.row_count == 2
            assert s.ge.selected == 2  # the selection did not jump
            assert s.ge.vlist.scroll_offset.y == offset
            assert s.alerts.vlist.row_count == 4
            assert s.alerts.selected == 0  # the first alert is selected when alerts appear
            assert "10 graph tensors" in str(s.query_one("#header-line").render())

            # a filter stays applied to rows that arrive later
            assert s.ge.toggle_only_bad()
            assert s.ge.vlist.row_count == 3  # Log, mul, Sum (the 4th alert is eager)
            add_step(ref, 2, bad=True)
            await app.wait_for_data(lambda snap: snap.traces == 15, timeout=2.0)
            await pilot.pause()
            assert s.ge.vlist.row_count == 6
            assert s.alerts.vlist.row_count == 8
    finally:
        ref.writer.close()
