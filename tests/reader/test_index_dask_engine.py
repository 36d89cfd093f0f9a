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
import socket
import subprocess
import sys
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
