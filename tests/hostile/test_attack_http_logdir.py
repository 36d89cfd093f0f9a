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


def write_run(d: Path, nan_at: int, n: int = N) -> None:
    """`n` FULL_HEALTH traces of one op; every 3rd holds a NaN, and trace `nan_at` too (the
    same length whatever `nan_at`: a rewrite of the same size)."""
    with LogdirWriter(d, run_id="http", hostname="web-0", file_timestamp=1_700_000_000) as w:
        w.add_graph("g", "train_step")
        w.add_op("g", "MatMul", "dense/MatMul", [])
        v = np.zeros((n, 11))
        v[:, 0], v[:, 2], v[:, 3], v[:, 4] = np.arange(n), 1, 2, 64
        v[::3, 7] = 1
        v[nan_at, 7] = 1
        v[:, 10] = 64 - v[:, 7]
        w.add_graph_traces("g", "dense/MatMul", 0, "FULL_HEALTH", v,
                           wall_times=1_700_000_000 + np.arange(n, dtype=np.float64))


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


POLLS = 30


def test_following_lists_once_a_poll_and_heads_a_bounded_few(site: Site, tmp_path: Path
                                                             ) -> None:
    """What a follower of an HTTP logdir does every 0.2 s (`reader.io.watch.signature`, an
    update when it changed), counted at the server: one listing (GET of the index page) a
    poll and at most 4 HEADs (`remote_clients.RESIZED`) (before: a HEAD of each of the run's six
    files on every poll). A file that grows is still seen within a few polls (its turn), and
    its new rows are read."""
    from reader import DebugLogdir
    from reader.io.watch import signature

    www = tmp_path / "www"
    write_run(www / "ref", nan_at=0)
    write_run(tmp_path / "longer", nan_at=0, n=N + 600)
    (traces,) = (www / "ref").glob("*.graph_execution_traces")
    longer = (tmp_path / "longer" / traces.name).read_bytes()
    assert longer.startswith(traces.read_bytes()) and len(longer) > traces.stat().st_size
    url = f"{site.url}/ref"
    logdir = DebugLogdir(url)
    logdir.update()
    assert len(logdir.traces) == N
    site.requests.clear()
    seen = signature(url)
    for _ in range(POLLS):
        now = signature(url)
        assert now == seen  # nothing changed: nothing read
    assert site.requests["HEAD"] <= 4 * (POLLS + 1), site.requests
    assert site.requests["HEAD"] <= POLLS + 1, site.requests  # one in turn a quiet poll
    assert site.requests["GET"] == POLLS + 1, site.requests  # the index page, once a poll
    traces.write_bytes(longer)  # the run goes on
    for _ in range(7):  # six files, one asked again in turn: within seven polls
        if signature(url) != seen:
            break
    else:
        pytest.fail("the grown file was never seen")
    logdir.update()
    assert len(logdir.traces) == N + 600
