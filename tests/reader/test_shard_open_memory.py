"""What an open from shards keeps in memory (issue 32: the open's peak memory).

On the run of tests/reader/test_shard_stream.py (three hosts, one ending in NaN times):
the merged tables say they are in wall-time order (so no reader scans every wall time to
learn it), the pages of the merged columns the merge looked at leave the process's resident
set after each window, and the alerts are kept once (not once more per kind).
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from test_shard_stream import N, indexed  # noqa: F401  (indexed: the fixture)

from dumper.writer import LogdirWriter
from reader import DebugLogdir, open_logdir
from reader.index.alerts import AlertLog, NewRows

pytest.importorskip("pyarrow")


def test_merged_tables_say_they_are_in_wall_time_order(indexed: Path) -> None:  # noqa: F811
    """`Table.ordered_rows`: the rows merged in order, up to the window with NaN times."""
    logdir = DebugLogdir(str(indexed))
    logdir.update()
    t = logdir.traces
    walls = np.asarray(t.col("wall_time"))
    k = t.ordered_rows
    assert 0 < k < len(t) == 3 * N + 120  # host 2's last 500 have no time: the last window
    assert not np.isnan(walls[:k]).any() and bool((np.diff(walls[:k]) >= 0).all())
    assert np.isnan(walls[-500:]).all()
    e = logdir.executions
    streamed = e.ordered_rows > 0  # merged window by window (its shards in order)
    assert e.ordered_rows in (0, len(e))
    if streamed:
        assert bool((np.diff(np.asarray(e.col("wall_time"))) >= 0).all())


def _resident_kb(folder_part: str) -> int:
    """KB of this process's resident pages of the mappings of files whose path holds
    `folder_part`."""
    total, mine = 0, False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()
            if head and "-" in head[0] and len(head) >= 5:  # a mapping's first line
                mine = len(head) >= 6 and folder_part in head[5]
            elif mine and line.startswith("Rss:"):
                total += int(head[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="needs /proc")
def test_an_open_from_shards_keeps_no_merged_pages_resident(
        indexed: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """The merge looks at each window's rows in the mapped columns (their NaN flags, the
    kinds of the alerts in them); those pages are let go after each window: 12.5M records
    kept ~250 MB of them resident. They read back the same."""
    logdir = DebugLogdir(str(indexed))
    logdir.update()
    assert logdir.spool is not None
    folder = str(logdir.spool.folder)
    size = sum(logdir.traces.col(c).nbytes for c in logdir.traces.columns)
    assert size > 8_000_000
    assert _resident_kb(folder) < 64  # of ~9 MB of columns
    bad = np.asarray(logdir.traces.col("bad"))  # read again: from the page cache
    assert int((bad == 1).sum()) == len([a for a in np.asarray(logdir.alerts().kind)
                                         if a == 0])
    assert _resident_kb(folder) >= len(bad) // 1024 - 4


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="needs /proc")
def test_the_diagnosis_and_incidents_let_go_of_the_columns_they_pass_over(
        indexed: Path) -> None:  # noqa: F811
    """The diagnosis' tables (every trace's kind, every output's tensor id) and the
    incidents' counts (the kind of every alert's row) pass over whole mapped columns; their
    pages are let go after each pass (`DebugLogdir.release_pages`), not kept resident."""
    from reader.diagnosis import diagnose
    from reader.diagnosis.incidents import find_incidents
    from reader.diagnosis.steps import training_steps

    logdir = DebugLogdir(str(indexed))
    logdir.update()
    assert logdir.mapped is not None
    folder = str(logdir.mapped.folder)
    alerts = logdir.alerts()
    found = find_incidents(logdir, training_steps(logdir))
    assert sum(i.alerts for i in found.items) == len(alerts)
    d = diagnose(logdir, int(alerts.kind[-1]), int(alerts.index[-1]), int(alerts.slot[-1]))
    assert d is not None
    kinds = len(logdir.traces) * 4 // 1024  # KB of the traces' kind column alone
    assert _resident_kb(folder) < kinds // 4


def test_the_alert_log_keeps_each_alert_once(tmp_path: Path) -> None:
    """Sorted, the alerts are 5 bytes each (kind, row) and a flag: the rows found are not
    kept again per kind (36 MB for 5.55M alerts)."""
    n = 400_000
    with LogdirWriter(tmp_path, run_id="r", hostname="h") as w:
        w.add_graph("g", "forward")
        w.add_op("g", "Log", "log", [])
        v = np.zeros((n, 11))
        v[:, 2], v[:, 3], v[:, 4], v[:, 10] = 1, 1, 8, 8
        v[:, 5], v[:, 10] = 1, 7  # every one NaN
        w.add_graph_traces("g", "log", 0, "FULL_HEALTH", v,
                           wall_times=1000.0 + np.arange(n) * 1e-3)
    logdir = open_logdir(str(tmp_path))
    log = AlertLog()
    tracemalloc.start()
    try:
        log.detect(NewRows(logdir.traces, logdir.executions, logdir.outputs,
                           range(0, n), range(0, 0)))
        alerts = log.sorted()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(alerts) == n and int(alerts.index[n - 1]) == n - 1
    assert held < 8 * n  # 6 bytes an alert (and a count per kind), not 10
    more = np.arange(n - 10, n)  # found again later, out of order: sorted anew
    log._add(0, more.astype(np.int32))
    again = log.sorted()
    assert len(again) == n + 10 and np.asarray(again.index[:3]).tolist() == [0, 1, 2]
    assert np.asarray(again.index[-4:]).tolist() == [n - 2, n - 2, n - 1, n - 1]


def test_an_open_from_shards_lets_go_of_the_shard_files(indexed: Path) -> None:  # noqa: F811
    """Once merged, the shards' Parquet readers (each holds its file's decoded footer: ~4 MB
    for a host of a million traces, 62 columns by 62 row groups) and the row groups their
    readers hold are freed at once, not when the cyclic collector next runs (the TUI runs it
    rarely): with 10 hosts, ~40 MB stayed resident under the app's work after the merge."""
    import gc

    import pyarrow as pa
    import pyarrow.parquet as pq

    def readers() -> set[int]:
        return {id(o) for o in gc.get_objects() if isinstance(o, pq.ParquetFile)}

    gc.collect()
    logdir = DebugLogdir(str(indexed))
    gc.disable()
    try:
        before, arrow = readers(), pa.total_allocated_bytes()
        logdir.update()
        assert len(logdir.traces) == 3 * N + 120
        assert readers() - before == set()
        assert pa.total_allocated_bytes() <= arrow
    finally:
        gc.enable()
