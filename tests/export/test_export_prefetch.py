"""Health read during the load (`Prefetch`): used when the rows it read are still those rows,
read again when the load numbered them anew (several hosts merged into one timeline).

Logdirs written by the TF-free writer: one host, and two hosts whose traces interleave in
time (the timeline alternates between them, so the rows read host after host move).
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
from support.paths import ROOT

from dumper.writer import LogdirWriter
from reader import DebugLogdir
from tfdbg_tui.commands.export.prefetch import Prefetch
from tfdbg_tui.commands.export.tables import AlertCounts, Tables
from tfdbg_tui.commands.report import _load

BATCH = 8


def write_host(d: Path, host: int, n: int, first_time: float) -> None:
    """n FULL_HEALTH traces of one op on `host`, every 3rd holding NaNs, 1 s apart."""
    with LogdirWriter(d, run_id="prefetch", hostname=f"worker-{host}",
                      file_timestamp=1_700_000_000 + host) as w:
        w.add_graph("g", "train_step")
        w.add_op("g", "MatMul", "dense/MatMul", [])
        v = np.zeros((n, 11))
        v[:, 0], v[:, 2], v[:, 3], v[:, 4] = np.arange(n), 1, 2, 64
        v[::3, 7] = host + 1  # NaN count
        v[:, 10] = 64 - v[:, 7]
        w.add_graph_traces("g", "dense/MatMul", 0, "FULL_HEALTH", v,
                           wall_times=first_time + np.arange(n, dtype=np.float64))


def load(d: Path, pool: ThreadPoolExecutor) -> tuple[DebugLogdir, Prefetch]:
    early: list[Prefetch] = []

    def watch(logdir: DebugLogdir) -> Any:
        early.append(Prefetch(logdir, pool, BATCH))
        return early[0].progress

    return _load(str(d), None, False, watch), early[0]


def test_batches_read_during_the_load_are_those_rows(tmp_path: Path) -> None:
    write_host(tmp_path, 0, 4 * BATCH + 3, 1_700_000_000.0)
    with ThreadPoolExecutor(2) as pool:
        logdir, prefetch = load(tmp_path, pool)
        t = logdir.traces
        for start in range(0, 4 * BATCH, BATCH):
            rows = np.arange(start, start + BATCH)
            early = prefetch.take("traces", rows)
            assert early is not None, start
            got, now = early.result(), t.health_columns(rows)
            for c in ("nan", "size", "pos", "tensor_id", "bad"):
                assert got[c].tolist() == now[c].tolist(), (start, c)
            assert got["nan"].tolist() == [1 if r % 3 == 0 else 0 for r in rows.tolist()]
        last = np.arange(4 * BATCH, 4 * BATCH + 3)  # not a whole batch: never read early
        assert prefetch.take("traces", last) is None


def test_rows_numbered_anew_are_read_again(tmp_path: Path) -> None:
    # host 0 at t = 0, 2, 4, …; host 1 at t = 1, 3, 5, …: the timeline alternates
    write_host(tmp_path, 0, 3 * BATCH, 1_700_000_000.0)
    write_host(tmp_path, 1, 3 * BATCH, 1_700_000_000.5)
    with ThreadPoolExecutor(2) as pool:
        logdir, prefetch = load(tmp_path, pool)
        plain = Tables(logdir)
        fast = Tables(logdir, pool, AlertCounts(logdir), batch=BATCH, prefetch=prefetch)
        traces, alerts = fast.table("graph_traces"), fast.table("alerts")
    hosts = traces.column("host").to_pylist()
    assert hosts[:4] == ["worker-0", "worker-1", "worker-0", "worker-1"]
    # the NaN counts say which host a row came from (host k writes k + 1)
    nan = traces.column("nan").to_pylist()
    for host, count in zip(hosts, nan, strict=True):
        assert count in (0, int(host[-1]) + 1)
    assert sum(1 for c in nan if c) == 2 * BATCH
    for name, table in (("graph_traces", traces), ("alerts", alerts)):
        want = plain.table(name)
        assert table.to_pylist() == want.to_pylist(), name


def test_export_saves_the_index_cache_and_reuses_it(tmp_path: Path) -> None:
    """The export saves the index cache after its load (while writing, not during the
    load), as `report` does; a second export starts from it and writes the same tables."""
    logdir = tmp_path / "run"
    write_host(logdir, 0, 5 * BATCH, 1_700_000_000.0)
    cache = tmp_path / "cache"
    env = dict(os.environ, PYTHONPATH=str(ROOT), TFDBG_TUI_CACHE_DIR=str(cache),
               TFDBG_TUI_CACHE_MIN_BYTES="0")

    def export(out: Path) -> dict[str, Any]:
        proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "export", str(logdir),
                               str(out)], env=env, cwd=ROOT, capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr
        return {name: pq.read_table(out / f"{name}.parquet").to_pylist()
                for name in ("graph_traces", "alerts")}

    first = export(tmp_path / "a")
    assert len(list((cache / "v1").glob("*.json"))) == 1  # the index was saved
    assert export(tmp_path / "b") == first
    assert len(first["graph_traces"]) == 5 * BATCH
    assert [a["nan"] for a in first["alerts"]] == [1] * len(range(0, 5 * BATCH, 3))
