"""The index cache counts an entry's description against its size cap, and never stores a
description it could not read back (issue 30, left from round 3: a run of huge op names made a
120 MB description — over the 64 MB read limit — rewritten on every open, far past the cap)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dumper.writer import LogdirWriter
from reader import DebugLogdir
from reader.cache.store import Store

OPS, NAME = 600, 2000  # 600 op names of 2,000 characters: a description of ~1.2 MB


@pytest.fixture
def long_names(tmp_path: Path) -> Path:
    d = tmp_path / "run"
    with LogdirWriter(d, run_id="long", hostname="h0", file_timestamp=1000) as w:
        w.add_graph("g", "f")
        for i in range(OPS):
            name = f"op{i:04d}/" + "x" * NAME
            w.add_op("g", "Log", name, [])
            w.add_graph_trace("g", name, 0, "FULL_HEALTH",
                              np.array([0, 0, 1, 1, 8, 0, 0, 0, 0, 0, 8.0]), wall_time=1000 + i)
    return d


def folder_bytes(d: Path) -> int:
    return sum(p.stat().st_size for p in d.rglob("*") if p.is_file())


def test_a_description_past_the_cap_is_not_stored(long_names: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(cache))
    monkeypatch.setenv("TFDBG_TUI_CACHE_MIN_BYTES", "0")
    cap = 512 << 10  # the columns (600 rows) fit many times; the description does not
    monkeypatch.setenv("TFDBG_TUI_CACHE_MAX_BYTES", str(cap))
    logdir = DebugLogdir(str(long_names), cache=True)
    logdir.update()
    assert len(logdir.traces) == OPS
    assert not cache.exists() or folder_bytes(cache) <= cap, Store().info()
    assert Store().info() == []
    monkeypatch.setenv("TFDBG_TUI_CACHE_MAX_BYTES", str(64 << 20))  # room for it: stored
    again = DebugLogdir(str(long_names), cache=True)
    again.update()
    assert [e.logdir for e in Store().info()] == [str(long_names)]
