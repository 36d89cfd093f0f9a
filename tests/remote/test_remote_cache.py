"""The index cache of a remote logdir: objects are known by endpoint, name, size and ETag (no
range read when all match); anything else — a longer version of an object (its covered bytes
could have changed anywhere), another endpoint serving the same names — is read again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.s3 import S3Server

from dumper.writer import LogdirWriter
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
                                         cache_dir: Path, tmp_path: Path) -> None:
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
    traces, _, _ = reopen(url)
    assert 0 < traces < len(local.traces)
    assert reopen(url)[2] == 0  # same size and ETag: everything from the cache
    # ... then the whole objects (new ETags, longer): read again, every byte (the bytes the
    # entry covered could have changed anywhere: see the run below)
    for s in BIG:
        s3.fs().pipe(f"cached/run/{full[s].name}", data[s])
    traces, alerts, rest = reopen(url)
    assert rest == everything
    assert (traces, alerts) == (len(local.traces), local.num_alerts)
    assert reopen(url)[2] == 0
    # a byte changed in what the entry covered (same size, new ETag): read again
    changed = bytearray(data["graph_execution_traces"])
    changed[len(changed) // 3] ^= 0x01
    s3.fs().pipe(f"cached/run/{full['graph_execution_traces'].name}", bytes(changed))
    assert reopen(url)[2] == everything

    # a run whose objects grow by a version that also changed a record in the middle of what
    # the entry covered (one NaN more, same length: the first and last KiB unchanged)
    before, after = tmp_path / "before", tmp_path / "after"
    write_run(before, nan_at=None)
    write_run(after, nan_at=N // 4 + 1)
    traces_name = next(before.glob("*.graph_execution_traces")).name
    old, new = (d.joinpath(traces_name).read_bytes() for d in (before, after))
    assert len(old) == len(new) and old[:4096] == new[:4096] and old[-4096:] == new[-4096:]
    s3.upload(before, "s3://cached/grown")
    s3.fs().pipe(f"cached/grown/{traces_name}", old[: len(old) // 2])  # still uploading
    half = reopen("s3://cached/grown")
    assert N // 4 < half[0] < N and half[1] == len(range(0, half[0], 3))
    s3.fs().pipe(f"cached/grown/{traces_name}", new)  # the rest, and the changed middle
    fresh = DebugLogdir(str(after))
    fresh.update()
    assert reopen("s3://cached/grown")[:2] == (N, fresh.num_alerts)
    assert fresh.num_alerts == len(range(0, N, 3)) + 1


N = 3000  # traces of `write_run`: ~100 bytes each, the one changed far from either end


def write_run(d: Path, nan_at: int | None) -> None:
    """N FULL_HEALTH traces of one op, every 3rd holding a NaN; and trace `nan_at` too."""
    with LogdirWriter(d, run_id="grown", hostname="worker-0", file_timestamp=1_700_000_000) as w:
        w.add_graph("g", "train_step")
        w.add_op("g", "MatMul", "dense/MatMul", [])
        v = np.zeros((N, 11))
        v[:, 0], v[:, 2], v[:, 3], v[:, 4] = np.arange(N), 1, 2, 64
        v[::3, 7] = 1  # NaN count
        if nan_at is not None:
            v[nan_at, 7] = 1
        v[:, 10] = 64 - v[:, 7]
        w.add_graph_traces("g", "dense/MatMul", 0, "FULL_HEALTH", v,
                           wall_times=1_700_000_000 + np.arange(N, dtype=np.float64))


def test_another_endpoint_is_another_entry(s3: S3Server, reference_logdir: str,
                                           cache_dir: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    """The same bucket, names and ETags at another endpoint are not taken from the entry one
    endpoint's read saved (a test or hostile server copying them poisoned the cache): here,
    one server reached by two names, each read from the objects once."""
    url = s3.upload(reference_logdir, "s3://endpoints/run")
    local = DebugLogdir(reference_logdir)
    local.update()
    everything = sum(local.file_cursor(0, s).offset for s in BIG)
    assert reopen(url)[2] == everything
    assert reopen(url)[2] == 0
    assert "127.0.0.1" in s3.endpoint
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3.endpoint.replace("127.0.0.1", "localhost"))
    assert reopen(url)[2] == everything
    assert reopen(url)[2] == 0
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3.endpoint)
    assert reopen(url)[2] == 0  # the first endpoint's entry is still its own


def test_followed_after_the_cache_every_byte_is_compared(s3: S3Server, reference_logdir: str,
                                                         cache_dir: Path) -> None:
    """Opened from the cache (no byte read), then followed: a longer version whose middle
    changed is not read on — the entry kept the CRC of every byte it covered, so the check
    is the same as for a run read here (before: the restored cursor knew no bytes at all)."""
    src = Path(reference_logdir)
    url = "s3://cached/follow"
    s3.upload(src, url)
    name = next(src.glob("*.graph_execution_traces")).name
    data = (src / name).read_bytes()
    assert reopen(url)[2] > 0  # read, and saved
    logdir = DebugLogdir(url, cache=True)
    assert logdir.update().bytes_read == 0  # from the cache
    rows = len(logdir.traces)
    changed = bytearray(data)
    changed[len(data) // 2] ^= 0xFF
    s3.fs().pipe(f"cached/follow/{name}", bytes(changed) + data)
    logdir.update()
    assert len(logdir.traces) == rows, "rows read on from a version whose middle changed"
    assert any(name in w and "rewritten" in w for w in logdir.warnings), logdir.warnings
