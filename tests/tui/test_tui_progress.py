"""Progress of the first read never waits for the UI thread.

The indexing worker reports progress from inside `DebugLogdir.update()`, which holds the
reader's lock. If that report waited for the UI thread while the UI thread waited for the
reader's lock (a pane asking for a source file or a diagnosis), neither would ever go on:
on a 12.5M-record logdir, moving the cursor during the first read froze the app for good.
Here the UI thread is held on purpose while the worker's thread reports progress.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

from support.tui import sync, write_reference

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp

WAIT = 20.0  # a bound that fails the test, never a pace


@sync
async def test_progress_is_handed_over_without_waiting_for_the_ui_thread(tmp_path: Path
                                                                         ) -> None:
    write_reference(tmp_path / "run")
    app = TfdbgApp(DebugLogdir(str(tmp_path / "run")), follow=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await app.indexed.wait()
        final = app.state.snapshot
        progress = replace(final, indexing=True, done_bytes=1, total_bytes=2)
        returned = threading.Event()

        def report() -> None:  # what the worker does from inside update()
            app.follower._publish(progress, False, [])
            returned.set()

        thread = threading.Thread(target=report)
        thread.start()
        # This test runs on the UI thread: blocking here is the UI thread waiting for the
        # reader's lock. A report that waits for the UI thread cannot return meanwhile.
        handed_over = returned.wait(WAIT)
        await pilot.pause()  # the UI thread runs again: a report still waiting can finish
        thread.join(WAIT)
        assert handed_over, "a progress report waited for the UI thread"
        # a late progress report never turns a finished read back into "indexing"
        assert app.state.snapshot is final and not app.state.snapshot.indexing
