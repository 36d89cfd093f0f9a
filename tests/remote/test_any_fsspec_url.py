"""Any fsspec URL is a logdir: fsspec's in-memory file system (no server, no extra), read
through the same seam as a bucket, gives the index the local files give."""

from __future__ import annotations

from pathlib import Path

import fsspec
import numpy as np
from support.tui import write_reference

from reader import DebugLogdir


def test_memory_url_reads_like_the_local_folder(tmp_path: Path) -> None:
    local = tmp_path / "ref"
    write_reference(local, steps=4)
    fs = fsspec.filesystem("memory")
    for f in local.iterdir():
        fs.pipe(f"/i22-any-url/ref/{f.name}", f.read_bytes())
    try:
        a, b = DebugLogdir(str(local)), DebugLogdir("memory://i22-any-url/ref")
        a.update()
        b.update()
        assert b.path == "memory://i22-any-url/ref"
        assert (len(b.traces), len(b.executions), b.num_alerts) == (
            len(a.traces), len(a.executions), a.num_alerts) != (0, 0, 0)
        assert np.array_equal(a.traces.wall_time, b.traces.wall_time)
        first = int(b.alerts().index[0])
        assert b.traces.health(first) == a.traces.health(first)  # read back by range
        assert b.code_line(b.op_stack(b.op_of_trace(first))[-1]) is not None  # sources
    finally:
        fs.rm("/i22-any-url", recursive=True)


def test_objects_of_several_chunks_read_like_files(tmp_path: Path) -> None:
    """Objects read in several ranged requests, the next one fetched while the previous is
    indexed: the same rows as the local files, in the same order."""
    from dumper.writer import LogdirWriter
    from reader.io.cursors import CHUNK

    local = tmp_path / "big"
    n = 300_000
    with LogdirWriter(local, run_id="big", hostname="h0", file_timestamp=1000) as w:
        w.add_graph("g", "train_step")
        w.add_op("g", "Log", "log", [])
        v = np.zeros((n, 11))
        v[:, 2], v[:, 3], v[:, 4], v[:, 10] = 1, 1, 8, 8
        v[::1000, 5], v[::1000, 10] = 1, 7  # a −∞ every 1000 traces
        w.add_graph_traces("g", "log", 0, "FULL_HEALTH", v,
                           wall_times=1000 + np.arange(n) * 1e-3)
    (traces,) = local.glob("*.graph_execution_traces")
    assert traces.stat().st_size > 2 * CHUNK
    fs = fsspec.filesystem("memory")
    for f in local.iterdir():
        fs.pipe(f"/i22-chunks/big/{f.name}", f.read_bytes())
    try:
        a, b = DebugLogdir(str(local)), DebugLogdir("memory://i22-chunks/big")
        a.update()
        b.update()
        assert len(b.traces) == len(a.traces) == n
        assert np.array_equal(a.traces.wall_time, b.traces.wall_time)
        assert np.array_equal(a.alerts().index, b.alerts().index)
        assert b.num_alerts == n // 1000
    finally:
        fs.rm("/i22-chunks", recursive=True)
