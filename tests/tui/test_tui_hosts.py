"""The debugger on a run of four hosts: one timeline in wall-time order, the host on every
row, and the header says how many hosts (tests/support/hosts.py: worker 2 goes bad at step 3).
"""

from __future__ import annotations

from pathlib import Path

from support.hosts import HOSTS
from support.hosts import write_job as write_hosts
from support.tui import settle, sync

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp


@sync
async def test_header_and_rows_name_the_hosts(tmp_path: Path) -> None:
    write_hosts(tmp_path / "job")
    app = TfdbgApp(DebugLogdir(str(tmp_path / "job")), follow=False)  # a finished run: its
    # read is done once indexed (a follow worker never ends: settle waited out its guard)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        assert f"{HOSTS} hosts" in str(s.query_one("#header-line").render())
        first = app.state.snapshot.alerts.index[0]  # the first alert: worker 2's Log
        ge_row = s.ge._row(int(first), 160).plain
        assert "log:0" in ge_row and "worker-2" in ge_row
        rows = [s.ge._row(i, 160).plain for i in range(4)]  # step 0 of workers 0, 0, 1, 1
        assert [r.split()[-2] if "CPU" in r else r.split()[-1] for r in rows] == [
            "worker-0", "worker-0", "worker-1", "worker-1"]
        timeline = [s.timeline._row(i, 160).plain for i in range(HOSTS)]
        assert [r.rstrip().split()[-1] for r in timeline] == [
            f"worker-{k}" for k in range(HOSTS)]
