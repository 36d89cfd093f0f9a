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
