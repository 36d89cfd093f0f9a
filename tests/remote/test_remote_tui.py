"""The debugger on a run in a bucket, followed while the job uploads it again and again
(each upload replaces the objects whole, as a sync of a growing logdir does)."""

from __future__ import annotations

from pathlib import Path

from support.s3 import S3Server
from support.tui import add_step, start_reference, sync

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp

WAIT = 60.0  # a bound that fails the test, never a pace


@sync
async def test_tui_follows_a_bucket_by_polling(s3: S3Server, tmp_path: Path) -> None:
    local = tmp_path / "job"
    ref = start_reference(local)
    add_step(ref, 0, bad=False)
    url = s3.upload(local, "s3://tui/job")
    logdir = DebugLogdir(url)
    app = TfdbgApp(logdir, follow=True, poll_interval=0.05)
    async with app.run_test(size=(200, 50)) as pilot:
        await app.wait_for_data(lambda s: not s.indexing and s.traces == 5, timeout=WAIT)
        await pilot.pause()
        s = app.main
        assert s is not None
        assert app.follower.mode == "poll"  # a bucket sends no notifications
        assert len(app.state.snapshot.alerts) == 0
        header = str(s.query_one("#header-line").render())
        assert url in header

        add_step(ref, 1, bad=True)  # five more traces, four with NaN/∞ ...
        s3.upload(local, url)  # ... uploaded: every object replaced by a longer one
        await app.wait_for_data(lambda snap: snap.traces == 10 and len(snap.alerts) == 4,
                                timeout=WAIT)
        await pilot.pause()
        vl = s.alerts.vlist  # alert rows (an incident's header, once grouped, is none)
        assert len(s.alerts.alert_rows_shown(range(vl.row_count))) == 4
        assert not any("rewritten" in w or "replaced" in w for w in logdir.warnings)
    ref.writer.close()
