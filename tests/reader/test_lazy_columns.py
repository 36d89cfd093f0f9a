"""A row's kind fields and an alert's index as `LazyColumn`s: a slice of them, or all of
them, is computed without an index array of the positions first (8 bytes a row: the
Graph Executions pane asked for the devices of every row merged since its last look, and
an 80 MB `arange` came with each ten million), and says what a gather says."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np

from dumper.writer import LogdirWriter
from reader import open_logdir

N = 400_000


def test_slices_and_whole_lazy_columns_need_no_index_array(tmp_path: Path) -> None:
    with LogdirWriter(tmp_path, run_id="r", hostname="h") as w:
        w.add_graph("g", "forward")
        w.add_op("g", "Log", "log", [])
        w.add_op("g", "Exp", "exp", [])
        for op in ("log", "exp"):
            v = np.zeros((N // 2, 11))
            v[:, 2], v[:, 3], v[:, 4], v[:, 10] = 1, 1, 8, 8
            v[::2, 7], v[::2, 10] = 8, 0  # every other one NaN
            w.add_graph_traces("g", op, 0, "FULL_HEALTH", v,
                               wall_times=1000.0 + np.arange(N // 2) * 1e-3)
    logdir = open_logdir(str(tmp_path))
    t, alerts = logdir.traces, logdir.alerts()
    assert len(t) == N and len(alerts) == N // 2
    rows = np.arange(N, dtype=np.int64)
    want = {"op_type": t.op_type[rows], "wall_time": t.lazy("wall_time")[rows],
            "index": alerts.index[np.arange(N // 2)]}
    for name, column in (("op_type", t.op_type), ("wall_time", t.lazy("wall_time")),
                         ("index", alerts.index)):
        n = len(column)
        tracemalloc.start()
        try:
            part = column[n // 4: n]
            whole = np.asarray(column)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        size = column.dtype.itemsize
        assert peak < 2.2 * size * n, name  # the two results, and no 8-byte index a row
        assert np.array_equal(part, want[name][n // 4:]) and np.array_equal(whole, want[name])
        assert column[5:2].shape == (0,) and np.array_equal(column[::3], want[name][::3])
