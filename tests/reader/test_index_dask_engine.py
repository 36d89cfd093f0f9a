"""`tfdbg-tui index LOGDIR --engine dask`: the command makes its own Dask `LocalCluster`, and
what the user reads on stderr is ours alone — a line per file set that failed, nothing else.

Before, a LocalCluster started while another Dask scheduler ran on the machine (its HTTP
server on the default port 8787, as `dask scheduler` keeps one even without a dashboard)
printed Dask's four-line UserWarning ("Port 8787 is already in use. Perhaps you already have
a cluster running? …") on every run, and its close sometimes logged a worker's heartbeat
`CommClosedError` at ERROR level.
"""

from __future__ import annotations

import errno
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.paths import ROOT
from support.slowdown import guard

from dumper.writer import LogdirWriter

pytest.importorskip("dask.distributed")
pytest.importorskip("pyarrow")

T0 = 1_700_000_000.0


def write_hosts(d: Path, hosts: int) -> None:
    for k in range(hosts):
        with LogdirWriter(d, run_id="dask-engine", hostname=f"h{k}",
                          file_timestamp=int(T0) + k) as w:
            w.add_graph("g", "train_step")
            w.add_op("g", "Placeholder", "x", [])
            for step in range(3):
                w.add_graph_trace("g", "x", 0, "FULL_HEALTH",
                                  [1, 1, 1, 1, 4, 0, 0, 0, 0, 0, 4],
                                  wall_time=T0 + step + k * 0.01)


@pytest.fixture
def port_8787_taken() -> Iterator[None]:
    """Dask's default HTTP port held, as by a scheduler already running here (if something
    holds it already, so much the better)."""
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", 8787))
        s.listen()
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
    try:
        yield
    finally:
        s.close()


def test_a_local_cluster_leaves_stderr_to_us(tmp_path: Path, port_8787_taken: None) -> None:
    run = tmp_path / "run"
    write_hosts(run, 3)
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "index", str(run), "--engine",
                           "dask", "--workers", "2"], capture_output=True, text=True,
                          cwd=ROOT, timeout=guard(600))
    assert proc.returncode == 0, proc.stderr
    assert "3 file sets: 3 indexed, 0 up to date, 0 failed" in proc.stdout, proc.stdout
    assert proc.stderr == ""


def _children(pid: int) -> list[int]:
    """Processes whose parent is `pid` (from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def test_ctrl_c_while_a_local_cluster_works_is_quiet(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the terminal's whole process group) once the LocalCluster's two
    worker processes run: the command ends as an interrupted command does (status 130) and
    nothing else is printed. Before: each worker process printed 'Process Dask Worker
    process (from Nanny):' and two tracebacks (CancelledError, KeyboardInterrupt)."""
    run = tmp_path / "run"
    write_hosts(run, 300)
    proc = subprocess.Popen([sys.executable, "-m", "tfdbg_tui", "index", str(run),
                             "--engine", "dask", "--workers", "2"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + guard(300)
        shards = run / ".tfdbg-index"
        # the workers run and have indexed something: their tasks are under way
        while not (len(_children(proc.pid)) >= 2 and shards.is_dir()
                   and any(shards.glob("*.parquet"))):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the cluster never started its work"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=guard(120))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, (proc.returncode, err)
    assert "Traceback" not in err and "Process Dask Worker" not in err, err
    assert len(err.splitlines()) <= 1, err
