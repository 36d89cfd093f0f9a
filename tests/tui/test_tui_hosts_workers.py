"""The app reads a run of several hosts in worker processes (`reader.index.sharding`), as a
direct read of a big multi-host run does: in the app they are spawned (its reading thread
forbids a fork), and spawning needs multiprocessing's resource tracker, which hands its
process the file descriptor of `sys.stderr` — under Textual a proxy whose `fileno()` is -1.
The read then failed ("reading stopped: ValueError: bad value(s) in fds_to_keep") and the
screen said "nothing was recorded" for any multi-host run of 64 MB or more.

In a fresh interpreter (a test process may have its tracker running already), the headless
app on the four-host run of tests/support/hosts.py, workers forced for its few bytes
(`TFDBG_TUI_PARALLEL_MIN_BYTES=1`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from support.hosts import HOSTS, STEPS, write_job
from support.paths import ROOT
from support.slowdown import guard

SCRIPT = textwrap.dedent("""
    import asyncio, json, sys
    from reader import DebugLogdir
    from tfdbg_tui.ui.app import TfdbgApp

    async def main():
        app = TfdbgApp(DebugLogdir(sys.argv[1]), follow=False)
        async with app.run_test(size=(120, 40)):
            while not app.indexed.is_set() and app.read_error is None:
                await asyncio.sleep(0.02)
            s = app.state.snapshot
            return {"error": app.read_error, "traces": s.traces, "alerts": len(s.alerts)}

    if __name__ == "__main__":
        print(json.dumps(asyncio.run(main())))
""")


def test_a_multi_host_run_is_read_in_spawned_workers_inside_the_app(tmp_path: Path) -> None:
    run = tmp_path / "run"
    write_job(run)
    script = tmp_path / "app.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TFDBG_TUI_PARALLEL_MIN_BYTES="1",
               TFDBG_TUI_WORKERS="2", TFDBG_TUI_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, str(script), str(run)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=guard(300))
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["error"] is None
    assert got["traces"] == HOSTS * STEPS * 2 and got["alerts"] > 0, got
