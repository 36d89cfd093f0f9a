"""A Dask worker receiving SIGTERM during `tfdbg-tui index --engine dask` (issue 30, point 4):
a batch system preempting one worker, the OOM killer's polite cousin, an operator's `kill`.

What the user must get: the command ends as an index ends — every file set landed (Dask runs
the killed worker's task again on a worker its Nanny restarts) or a line per file set that did
not — with no traceback, no temporary left in the shard folder, no worker process left and no
new file in /dev/shm. Before: the killed worker's `.NAME.parquet.tmp-…` stayed in the shard
folder for good (a worker's task runs in a thread; its process died at once on SIGTERM).

And a worker killed while the LocalCluster starts: before, Dask's "Nanny failed to start"
with a 40-line traceback, exit 1; now one line, exit 2.

The moments are made certain, not raced: `held/sitecustomize.py` (first on PYTHONPATH, so
Dask's spawned workers load it too) holds the first shard writer of all the command's
processes once its temporary exists and says which process it is on a FIFO; the test then
sends SIGTERM to that worker process alone.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT

from dumper.writer import LogdirWriter

pytest.importorskip("dask.distributed")
pytest.importorskip("pyarrow")

HELD = Path(__file__).parent / "held"
HOSTS = 6
T0 = 1_700_000_000.0


def _write_hosts(d: Path) -> None:
    for k in range(HOSTS):
        with LogdirWriter(d, run_id="dask-term", hostname=f"h{k}",
                          file_timestamp=int(T0) + k) as w:
            w.add_graph("g", "train_step")
            w.add_op("g", "Placeholder", "x", [])
            for step in range(3):
                w.add_graph_trace("g", "x", 0, "FULL_HEALTH",
                                  [1, 1, 1, 1, 4, 0, 0, 0, 0, 0, 4],
                                  wall_time=T0 + step + k * 0.01)


def _shm_left(tmp_path: Path) -> list[str]:
    """What the command's processes made in /dev/shm (each noted by `held/sitecustomize.py`
    as it was made) and is still there: a leak. Not /dev/shm before against after — other
    tests' workers make and remove names there all the time on a busy machine."""
    try:
        made = (tmp_path / "shm-made").read_text().split()
    except FileNotFoundError:
        return []
    return sorted(n for n in made if os.path.lexists(os.path.join("/dev/shm", n)))


def _session_alive(sid: int) -> list[int]:
    """The processes of session `sid` (the command's, started in a session of its own)."""
    alive = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[4]) == sid:
                alive.append(int(entry))
    return alive


def _wait_session_end(sid: int) -> None:
    """Until the last process of the command's session has ended (multiprocessing's
    resource tracker removes what a killed worker left as it ends), or HANG_GUARD."""
    deadline = time.monotonic() + HANG_GUARD
    while (alive := _session_alive(sid)) and time.monotonic() < deadline:
        time.sleep(0.05)  # (polling an event no file descriptor signals)
    assert not alive, f"the command's processes outlived it: {alive}"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _index_with_a_worker_terminated(logdir: Path, tmp_path: Path, hold: str,
                                    extra: dict[str, str] | None = None
                                    ) -> tuple[subprocess.CompletedProcess[str], int]:
    event = tmp_path / "event"
    os.mkfifo(event)
    rfd = os.open(event, os.O_RDONLY | os.O_NONBLOCK)
    keep = os.open(event, os.O_WRONLY)  # (no EOF while no worker has opened it yet)
    env = {**child_env(), "TFDBG_TEST_HOLD": hold, "TFDBG_TEST_EVENT": str(event),
           "TFDBG_TUI_SHARDS": str(tmp_path / "shards"),  # where index writes
           "TFDBG_TUI_CACHE_DIR": str(tmp_path / "cache"),
           "TFDBG_TEST_SHM_LOG": str(tmp_path / "shm-made"), **(extra or {})}
    env["PYTHONPATH"] = os.pathsep.join([str(HELD), env["PYTHONPATH"]])
    proc = subprocess.Popen([sys.executable, "-m", "tfdbg_tui", "index", str(logdir),
                             "--engine", "dask", "--workers", "2"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        ready, _, _ = select.select([rfd], [], [], HANG_GUARD)
        assert ready, "no worker was ever held"
        said = os.read(rfd, 100).decode()
        assert said.startswith("held "), said
        worker = int(said.split()[1])
        assert worker != proc.pid, "held in the command itself, not in a Dask worker"
        os.kill(worker, signal.SIGTERM)
        out, err = proc.communicate(timeout=HANG_GUARD)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
        os.close(rfd)
        os.close(keep)
    _wait_session_end(proc.pid)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), worker


def test_a_dask_worker_terminated_mid_shard_leaves_nothing(tmp_path: Path) -> None:
    logdir = tmp_path / "run"
    _write_hosts(logdir)
    proc, worker = _index_with_a_worker_terminated(logdir, tmp_path, "shard-once")
    shards = tmp_path / "shards"
    assert shards.is_dir(), (proc.returncode, proc.stdout, proc.stderr)
    left = sorted(p.name for p in shards.iterdir() if ".tmp-" in p.name)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert left == [], f"temporaries left in the shard folder: {left}"
    landed = sorted(shards.glob("*.parquet"))
    if proc.returncode == 0:  # Dask ran the task again: every file set landed
        assert f"{HOSTS} file sets: {HOSTS} indexed" in proc.stdout, proc.stdout
        assert len(landed) == HOSTS
    else:  # or a line per file set that did not, the others landed
        failed = proc.stderr.strip().splitlines()
        assert proc.returncode == 1 and all("not indexed" in x for x in failed), proc.stderr
        assert len(landed) == HOSTS - len(failed)
    assert not _alive(worker), "the terminated worker still runs"
    assert _shm_left(tmp_path) == [], "left in /dev/shm"


def test_a_dask_worker_terminated_while_the_cluster_starts_is_one_line(tmp_path: Path
                                                                        ) -> None:
    """`start`: the first Dask worker process holds as it starts (before it connects)."""
    logdir = tmp_path / "run"
    _write_hosts(logdir)
    proc, worker = _index_with_a_worker_terminated(logdir, tmp_path, "dask-start")
    assert "Traceback" not in proc.stderr, proc.stderr
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1, (proc.returncode, proc.stderr)
        assert lines[0].startswith("tfdbg-tui index: error: ") and "Dask" in lines[0], lines
    else:  # (a Dask that restarts a worker dead at its start: every file set landed)
        assert f"{HOSTS} file sets: {HOSTS} indexed" in proc.stdout, proc.stdout
    shards = tmp_path / "shards"
    assert not shards.exists() or not [p for p in shards.iterdir() if ".tmp-" in p.name]
    assert not _alive(worker)
    assert _shm_left(tmp_path) == [], "left in /dev/shm"
