"""Health kept during the load (`KeptHealth`, the index's `health_sink`): the export's counts
without reading them back, used only while the rows it was kept for are still those rows; and
graph traces written during the load (`EarlyTraces`), kept only while they are still right.

Logdirs written by the TF-free writer: one host, and two hosts whose traces interleave in
time (the timeline alternates between them, so rows indexed host after host move). That the
kept health is the health read back, on real, damaged and unusually laid-out logdirs, compiled
and pure-Python, is checked in tests/scale/test_native_fallback.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
from support.paths import ROOT

from dumper.writer import LogdirWriter
from reader import DebugLogdir, open_logdir
from tfdbg_tui.commands.export import _prepare, _writer, write_tables
from tfdbg_tui.commands.export.early import EarlyTraces
from tfdbg_tui.commands.export.kept import KeptHealth
from tfdbg_tui.commands.export.out import OutDir
from tfdbg_tui.commands.export.tables import TABLES, AlertCounts, Tables
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


def load(d: Path, pool: ThreadPoolExecutor, limit: int = 1 << 20
         ) -> tuple[DebugLogdir, KeptHealth, list[str]]:
    """The logdir loaded as the export loads it; also which tables' batches were kept."""
    early: list[KeptHealth] = []
    told: list[str] = []

    def watch(logdir: DebugLogdir) -> None:
        kept = KeptHealth(logdir, pool, limit)
        early.append(kept)

        def sink(name: str, *rest: Any) -> None:
            told.append(name)
            kept(name, *rest)

        logdir.health_sink = sink

    return _load(str(d), None, False, watch), early[0], told


def test_health_kept_during_the_load_is_those_rows(tmp_path: Path) -> None:
    write_host(tmp_path, 0, 4 * BATCH + 3, 1_700_000_000.0)
    with ThreadPoolExecutor(2) as pool:
        logdir, kept, told = load(tmp_path, pool)
        assert told and set(told) == {"traces"}  # (no eager outputs in this run)
        t = logdir.traces
        assert kept.complete()
        for start in range(0, 4 * BATCH + 3, BATCH):  # blocks across the load's batches
            rows = np.arange(start, min(len(t), start + BATCH))
            early = kept.take("traces", rows)
            assert early is not None, start
            got, now = early.result(), t.health_columns(rows)
            for c in ("nan", "size", "pos", "tensor_id", "bad"):
                assert got[c].tolist() == now[c].tolist(), (start, c)
            assert got["nan"].tolist() == [1 if r % 3 == 0 else 0 for r in rows.tolist()]
        assert kept.take("traces", np.arange(len(t), len(t) + 2)) is None  # none kept


def test_rows_past_the_limit_are_read_back(tmp_path: Path) -> None:
    """A run bigger than what may be kept: the rest is read back, the tables the same."""
    write_host(tmp_path, 0, 5 * BATCH, 1_700_000_000.0)
    with ThreadPoolExecutor(2) as pool:
        logdir, kept, _ = load(tmp_path, pool, limit=0)
        assert kept.take("traces", np.arange(BATCH)) is None and not kept.complete()
        fast = Tables(logdir, pool, AlertCounts(logdir), batch=BATCH, kept=kept)
        tables = {name: fast.table(name) for name in ("graph_traces", "alerts")}
    plain = Tables(logdir)
    for name, table in tables.items():
        assert table.to_pylist() == plain.table(name).to_pylist(), name


def test_rows_numbered_anew_are_read_again(tmp_path: Path) -> None:
    # host 0 at t = 0, 2, 4, …; host 1 at t = 1, 3, 5, …: the timeline alternates
    write_host(tmp_path, 0, 3 * BATCH, 1_700_000_000.0)
    write_host(tmp_path, 1, 3 * BATCH, 1_700_000_000.5)
    with ThreadPoolExecutor(2) as pool:
        logdir, kept, told = load(tmp_path, pool)
        plain = Tables(logdir)
        fast = Tables(logdir, pool, AlertCounts(logdir), batch=BATCH, kept=kept)
        traces, alerts = fast.table("graph_traces"), fast.table("alerts")
        # the load was told each host's rows before the timeline interleaved them: kept
        # for rows that now are other records, so none of it is taken
        assert told == ["traces", "traces"]
        assert kept.take("traces", np.arange(BATCH)) is None and not kept.complete()
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


def load_early(d: Path, pool: ThreadPoolExecutor, out: Path
               ) -> tuple[DebugLogdir, KeptHealth, EarlyTraces]:
    """The logdir loaded as the export loads it, graph traces written early in batches."""
    made: list[tuple[KeptHealth, EarlyTraces]] = []

    def watch(logdir: DebugLogdir) -> None:
        kept = KeptHealth(logdir, pool)
        early = EarlyTraces(logdir, kept, OutDir(str(out)),
                            "parquet", _prepare, _writer, batch=BATCH)
        kept.on_traces = early.offer
        logdir.health_sink = kept
        made.append((kept, early))

    logdir = _load(str(d), None, False, watch)
    return logdir, *made[0]


def exported(out: Path) -> dict[str, list[dict[str, Any]]]:
    return {name: pq.read_table(out / f"{name}.parquet").to_pylist()
            for name in ("graph_traces", "alerts")}


def test_traces_written_during_the_load_are_the_table(tmp_path: Path) -> None:
    """A run of 4 batches and a bit: the first 4 are written while it is read (one file
    set); the export goes on from there, and its tables are those of a plain export."""
    write_host(tmp_path / "run", 0, 4 * BATCH + 3, 1_700_000_000.0)
    with ThreadPoolExecutor(2) as pool:
        logdir, kept, early = load_early(tmp_path / "run", pool, tmp_path / "a")
        assert early.queued_rows == 4 * BATCH  # before the tables: during the load
        write_tables(logdir, str(tmp_path / "a"), reads=pool, kept=kept, early=early)
        assert early.handed_over == 4 * BATCH  # taken as written, not written again
    write_tables(open_logdir(str(tmp_path / "run")), str(tmp_path / "b"))
    assert exported(tmp_path / "a") == exported(tmp_path / "b")
    assert len(exported(tmp_path / "a")["graph_traces"]) == 4 * BATCH + 3
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == sorted(
        [f"{t}.parquet" for t in TABLES] + ["report.json"])  # no temporary left


def test_traces_written_early_are_written_again_when_a_kind_changed(tmp_path: Path) -> None:
    """A kind patched after its rows were written (as an op type learnt late is): the early
    part is dropped, and the table written from its first row, as a plain export's."""
    write_host(tmp_path / "run", 0, 3 * BATCH, 1_700_000_000.0)
    with ThreadPoolExecutor(2) as pool:
        logdir, kept, early = load_early(tmp_path / "run", pool, tmp_path / "a")
        assert early.queued_rows == 3 * BATCH
        kinds = logdir.traces.kinds
        assert kinds is not None
        kinds.patch("op_type", np.array([0]), int(kinds.col("op_type")[0]))  # (same value)
        write_tables(logdir, str(tmp_path / "a"), reads=pool, kept=kept, early=early)
        assert early.handed_over == 0
    write_tables(open_logdir(str(tmp_path / "run")), str(tmp_path / "b"))
    assert exported(tmp_path / "a") == exported(tmp_path / "b")


def test_no_traces_written_early_when_hosts_are_merged(tmp_path: Path) -> None:
    write_host(tmp_path / "run", 0, 3 * BATCH, 1_700_000_000.0)
    write_host(tmp_path / "run", 1, 3 * BATCH, 1_700_000_000.5)
    with ThreadPoolExecutor(2) as pool:
        logdir, kept, early = load_early(tmp_path / "run", pool, tmp_path / "a")
        assert early.queued_rows == 0 and not (tmp_path / "a").exists()
        write_tables(logdir, str(tmp_path / "a"), reads=pool, kept=kept, early=early)
    write_tables(open_logdir(str(tmp_path / "run")), str(tmp_path / "b"))
    assert exported(tmp_path / "a") == exported(tmp_path / "b")


@pytest.mark.tf
@pytest.mark.parametrize(("kind", "mode"), [("mixed", "FULL_HEALTH"), ("mixed", "FULL_TENSOR"),
                                            ("mixed", "SHAPE"), ("keras", "CURT_HEALTH")])
def test_early_traces_and_kept_counts_on_runs_tensorflow_wrote(
        make_tf_logdir: Callable[..., str], tmp_path: Path, kind: str, mode: str) -> None:
    """Logdirs TensorFlow wrote (eager ops and tf.functions, Keras), the early batches 4 rows
    long: the early part is taken, every count was kept, and every table is the one a plain
    export (health read back from the records, nothing early) writes."""
    src = make_tf_logdir(kind, mode)
    made: list[tuple[KeptHealth, EarlyTraces]] = []
    with ThreadPoolExecutor(2) as pool:

        def watch(logdir: DebugLogdir) -> None:
            kept = KeptHealth(logdir, pool)
            early = EarlyTraces(logdir, kept, OutDir(str(tmp_path / "a")),
                                "parquet", _prepare, _writer, batch=4)
            kept.on_traces = early.offer
            logdir.health_sink = kept
            made.append((kept, early))

        logdir = _load(src, None, False, watch)
        kept, early = made[0]
        assert len(logdir.traces) > 8 and kept.complete()
        write_tables(logdir, str(tmp_path / "a"), reads=pool, kept=kept, early=early)
        assert early.handed_over == len(logdir.traces) // 4 * 4
    write_tables(open_logdir(src), str(tmp_path / "b"))
    for name in ("graph_traces", "eager_outputs", "alerts", "executions"):
        assert pq.read_table(tmp_path / "a" / f"{name}.parquet").to_pylist() == \
            pq.read_table(tmp_path / "b" / f"{name}.parquet").to_pylist(), name
