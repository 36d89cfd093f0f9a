"""Worker processes never outlive the process that started them, and their shards in
/dev/shm go with them — also when that process is killed mid-read (issue 30: SIGKILL or
SIGTERM left a forked worker blocked for ever and its shards in memory until reboot).

A `report` of three hosts reads them in worker processes; as soon as its workers and its
shard folder exist, it is stopped (SIGSTOP: nothing moves while the test looks) and killed.
Then every process it had started must end, and the folder must go, each within a generous
hang guard (scaled by TFDBG_TUI_TEST_SLOWDOWN); the test waits for those events, polling.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import psutil
import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT

from dumper.writer import LogdirWriter

SHM = Path("/dev/shm")
HOSTS, TRACES = 3, 300_000  # ~50 MB a host: read for a second or two


@pytest.fixture(scope="module")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("lifeline") / "run"
    for k in range(HOSTS):
        with LogdirWriter(d, run_id="r", hostname=f"h{k}", file_timestamp=1_700_000_000 + k) as w:
            w.add_graph("g", "f")
            w.add_op("g", "Log", "log", [])
            v = np.zeros((TRACES, 11))
            v[:, 2], v[:, 3], v[:, 4], v[:, 10] = 1, 1, 8, 8
            v[::1000, 7] = 1
            w.add_graph_traces("g", "log", 0, "FULL_HEALTH", v,
                               wall_times=1_700_000_000 + np.arange(TRACES) * 1e-3 + k * 1e-4)
    return d


def _shards() -> set[str]:
    return {p.name for p in SHM.glob("tfdbg-tui-shards-*")} if SHM.is_dir() else set()


def _until(what: str, done: object, guard: float = HANG_GUARD) -> None:
    deadline = time.monotonic() + guard
    while not done():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(f"not within {guard:.0f} s: {what}")
        time.sleep(0.001)


@pytest.mark.skipif(not sys.platform.startswith("linux") or not SHM.is_dir(),
                    reason="/dev/shm and parent-death signals are Linux's")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_killed_mid_read_leaves_no_worker_and_no_shards(hosts: Path, tmp_path: Path,
                                                        sig: signal.Signals) -> None:
    before = _shards()
    env = child_env()
    env.update(TFDBG_TUI_WORKERS="2", TFDBG_TUI_PARALLEL_MIN_BYTES="0",
               TFDBG_TUI_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.Popen([sys.executable, "-m", "tfdbg_tui", "report", str(hosts)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                            cwd=str(ROOT))
    parent = psutil.Process(proc.pid)
    try:
        seen: list[psutil.Process] = []
        folder: set[str] = set()

        def reading() -> bool:
            if proc.poll() is not None:
                pytest.fail("the report ended before its workers were seen")
            folder.update(_shards() - before)
            try:
                seen[:] = parent.children(recursive=True)
            except psutil.NoSuchProcess:
                return False
            return bool(folder) and any(c.name().startswith("python") for c in seen)

        _until("the report's workers and shard folder", reading)
        proc.send_signal(signal.SIGSTOP)
        seen[:] = parent.children(recursive=True)
        proc.send_signal(sig)
        if sig != signal.SIGKILL:
            proc.send_signal(signal.SIGCONT)  # (a stopped process takes SIGTERM once it runs)
        proc.wait(timeout=HANG_GUARD)
        _, alive = psutil.wait_procs(seen, timeout=HANG_GUARD)
        assert alive == [], f"outlived the report: {alive}"
        _until("its shard folder removed", lambda: not (SHM / next(iter(folder))).exists())
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
