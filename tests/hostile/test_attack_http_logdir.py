"""A logdir served over HTTP (Python's `http.server`, `hostile.test_attack_urls.Site`): what a
web server's folder does not give — a version of each file's bytes (no ETag), the sizes in its
index page — must not make the reader trust a stale cache entry, nor cost a request per file
on every poll of a follower.

- An object without an ETag rewritten with the same size (and time) is not taken from the
  index cache (SECURITY.md: a remote object is known by its version; with none, it is never
  known) — before, `report` gave the old version's alerts from the cache.
- Following: each poll lists the folder once and asks the size (a HEAD) of at most one file
  it already knows; before, every poll made a HEAD of every file of the run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hostile.checks import HANG_GUARD, child_env
from hostile.test_attack_urls import Site
from support.paths import ROOT

from dumper.writer import LogdirWriter

N = 3000  # traces: ~100 bytes each


def write_run(d: Path, nan_at: int) -> None:
    """N FULL_HEALTH traces of one op; every 3rd holds a NaN, and trace `nan_at` too (the
    same length whatever `nan_at`: a rewrite of the same size)."""
    with LogdirWriter(d, run_id="http", hostname="web-0", file_timestamp=1_700_000_000) as w:
        w.add_graph("g", "train_step")
        w.add_op("g", "MatMul", "dense/MatMul", [])
        v = np.zeros((N, 11))
        v[:, 0], v[:, 2], v[:, 3], v[:, 4] = np.arange(N), 1, 2, 64
        v[::3, 7] = 1
        v[nan_at, 7] = 1
        v[:, 10] = 64 - v[:, 7]
        w.add_graph_traces("g", "dense/MatMul", 0, "FULL_HEALTH", v,
                           wall_times=1_700_000_000 + np.arange(N, dtype=np.float64))


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    s = Site(tmp_path / "www")
    try:
        yield s
    finally:
        s.close()


def alerts(url: str, cache: Path) -> int:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "report", "--json", url],
                          capture_output=True, text=True, cwd=ROOT, timeout=HANG_GUARD,
                          env={**child_env(), "TFDBG_TUI_CACHE_DIR": str(cache),
                               "TFDBG_TUI_CACHE_MIN_BYTES": "0",
                               "TFDBG_TUI_SHARDS": str(cache / "no-shards")})
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    return int(json.loads(proc.stdout)["alerts"]["total"])


def test_an_object_without_etag_rewritten_with_its_size_is_read_again(
        site: Site, tmp_path: Path) -> None:
    www = tmp_path / "www"
    write_run(www / "ref", nan_at=0)  # trace 0 holds one already: no NaN more
    write_run(tmp_path / "after", nan_at=2)  # trace 2 instead: one more alert
    (traces,) = (www / "ref").glob("*.graph_execution_traces")
    new = (tmp_path / "after" / traces.name).read_bytes()
    assert len(new) == traces.stat().st_size and new != traces.read_bytes()
    url, cache = f"{site.url}/ref", tmp_path / "cache"
    before = alerts(url, cache)
    assert alerts(url, cache) == before  # (from the cache or not: the same files)
    st = traces.stat()
    traces.write_bytes(new)  # the same size, the same time: only the bytes differ
    os.utime(traces, ns=(st.st_atime_ns, st.st_mtime_ns))
    fresh = alerts(str(tmp_path / "after"), tmp_path / "no-cache")
    assert fresh == before + 1
    assert alerts(url, cache) == fresh, "the old version's alerts, from the cache"
    assert not any(cache.rglob("*.npy")), "an entry no check could trust was saved"
