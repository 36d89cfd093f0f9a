"""The index cache of a remote logdir: objects are known by size and ETag (no range read
when both match), a longer version of an object reuses the entry when the bytes it covered
are unchanged, anything else is read again."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.s3 import S3Server

from reader import DebugLogdir

BIG = ("graph_execution_traces", "execution")


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(d))
    monkeypatch.setenv("TFDBG_TUI_CACHE_MIN_BYTES", "0")
    return d


def reopen(url: str) -> tuple[int, int, int]:
    """(graph traces, alerts, big-file bytes read) of opening `url` with the cache."""
    logdir = DebugLogdir(url, cache=True)
    stats = logdir.update()
    return len(logdir.traces), logdir.num_alerts, stats.bytes_read


def test_remote_entries_by_size_and_etag(s3: S3Server, reference_logdir: str,
                                         cache_dir: Path) -> None:
    src = Path(reference_logdir)
    url = "s3://cached/run"
    s3.upload(src, url)
    full = {s: next(src.glob(f"*.{s}")) for s in BIG}
    data = {s: p.read_bytes() for s, p in full.items()}
    local = DebugLogdir(reference_logdir)
    local.update()
    everything = sum(local.file_cursor(0, s).offset for s in BIG)

    # a job still uploading: each big object holds its first half (cut mid-record)
    for s in BIG:
        s3.fs().pipe(f"cached/run/{full[s].name}", data[s][: len(data[s]) // 2 + 7])
    traces, _, first = reopen(url)
    assert 0 < traces < len(local.traces)
    assert reopen(url)[2] == 0  # same size and ETag: everything from the cache
    # ... then the whole objects (new ETags, longer): only the rest is read
    for s in BIG:
        s3.fs().pipe(f"cached/run/{full[s].name}", data[s])
    traces, alerts, rest = reopen(url)
    assert rest == everything - first
    assert (traces, alerts) == (len(local.traces), local.num_alerts)
    # a byte changed in what the entry covered (same size, new ETag): read again
    changed = bytearray(data["graph_execution_traces"])
    changed[len(changed) // 3] ^= 0x01
    s3.fs().pipe(f"cached/run/{full['graph_execution_traces'].name}", bytes(changed))
    assert reopen(url)[2] == everything
