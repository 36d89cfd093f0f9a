"""What the reader asks a bucket for, seen at the server (moto's request recorder).

Every GET costs a round trip and the server's set-up, and moto (like some other S3-compatible
servers) reads the whole object for each one, ranged or not, so the number of requests, not
the bytes, is what a remote logdir costs. The index must read each object in as few GETs as
it can (one, for objects under `remote_stream.SPAN`), never past the object's end, each GET
conditional on the version that was listed, so that a replacement between two GETs is
refused instead of mixing two versions' bytes.
"""

from __future__ import annotations

import json
from collections import Counter
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from support.s3 import S3Server

from dumper.writer import LogdirWriter
from reader import DebugLogdir
from reader.io.regular import open_regular
from tfdbg_tui import cli


def _run(d: Path, n: int) -> None:
    """A run of `n` FULL_HEALTH graph traces of one op, a NaN in trace 10."""
    with LogdirWriter(d, run_id="req", hostname="h0", file_timestamp=1000) as w:
        f = w.add_source_file("/job/train.py", ["x = data()", "y = tf.math.log(x)"])
        frame = w.add_stack_frame(f, 2, "step")
        w.add_graph("g", "train_step")
        w.add_op("g", "Log", "log", [], stack_frame_ids=[frame])
        vectors = np.zeros((n, 11))
        vectors[:, 2], vectors[:, 3], vectors[:, 4], vectors[:, 10] = 1, 1, 8, 8
        vectors[10, 7], vectors[10, 10] = 1, 7
        w.add_graph_traces("g", "log", 0, "FULL_HEALTH", vectors,
                           wall_times=1000 + np.arange(n) * 1e-3)


def _put(s3: S3Server, key: str, data: bytes) -> None:
    """Put one object into the bucket `requests` (made if this test runs first)."""
    fs = s3.fs()
    if not fs.exists("requests"):
        fs.mkdir("requests")
    fs.pipe(f"requests/{key}", data)


def _gets(requests: list[dict[str, str]], name: str) -> list[tuple[int, int]]:
    """The byte ranges (first, last) of the GETs of object `name`, in order."""
    out = []
    for r in requests:
        if r["method"] == "GET" and r["path"].endswith("/" + name):
            first, last = r["range"].removeprefix("bytes=").split("-")
            out.append((int(first), int(last)))
    return out


def test_index_reads_each_object_in_one_get_of_its_listed_version(s3: S3Server,
                                                                   tmp_path: Path) -> None:
    d = tmp_path / "run"
    _run(d, 250_000)  # ~20 MB of traces: two and a half 8 MB chunks
    url = s3.upload(d, "s3://requests/one-get")
    files = {f.name: f.stat().st_size for f in d.iterdir() if f.stat().st_size}
    etags = {name: s3.fs().info(f"requests/one-get/{name}")["ETag"] for name in files}
    with s3.recording() as requests:
        logdir = DebugLogdir(url)
        logdir.update()
        first = int(logdir.alerts().index[0])
        health = logdir.traces.health(first)  # a row read back by offset
    assert len(logdir.traces) == 250_000 and logdir.num_alerts == 1
    assert health is not None
    for name, size in files.items():
        # one GET from byte 0 to the last byte, whatever the 8 MB chunks of the index and
        # the identity checks (the first and last bytes) and the row read back ask for
        assert _gets(requests, name) == [(0, size - 1)], (name, _gets(requests, name))
    for r in requests:
        if r["method"] == "GET" and r["range"]:
            assert r["if_match"] == etags[r["path"].rsplit("/", 1)[-1]]
    assert not [r for r in requests if r["method"] == "HEAD"]
    lists = [r for r in requests if r["method"] == "GET" and "list-type" in r["query"]]
    assert len(lists) <= len(files) + 2, len(lists)  # no listing per chunk or per check


def _lists(requests: list[dict[str, str]]) -> int:
    return sum(1 for r in requests if r["method"] == "GET" and "list-type" in r["query"])


def test_an_update_lists_the_folder_once(s3: S3Server, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Opened as `report` opens it (with the index cache, which looks for an entry before
    reading and saves one after): the update's look at the cache, its plan of the files,
    their opens and the cache's record of what was read ask one listing, not one each —
    each is a round trip to the bucket."""
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TFDBG_TUI_CACHE_MIN_BYTES", "0")  # saved, small as the run is
    d = tmp_path / "run"
    _run(d, 20_000)
    url = s3.upload(d, "s3://requests/one-list")
    logdir = DebugLogdir(url, cache=True)
    with s3.recording() as requests:
        logdir.update()
    assert len(logdir.traces) == 20_000
    assert list((tmp_path / "cache").rglob("*")), "no index cache saved"
    assert _lists(requests) == 1
    _put(s3, "one-list/tfdbg_events.9.h1.metadata", b"")  # a new object meanwhile...
    with s3.recording() as requests:
        logdir.update()
    assert _lists(requests) == 1  # ...the next update lists anew


def test_spans_cover_the_object_once_and_stop_at_its_end(s3: S3Server, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setenv("TFDBG_TUI_REMOTE_SPAN", str(1 << 20))
    data = np.random.default_rng(3).integers(0, 256, (5 << 20) + 12_345, np.uint8).tobytes()
    _put(s3, "spans/blob", data)
    url = "s3://requests/spans/blob"
    buf = bytearray(3 << 20)  # not a multiple of the span
    got = bytearray()
    with s3.recording() as requests, open_regular(url) as f:
        while n := f.readinto(buf):
            got += buf[:n]
        assert f.readinto(buf) == 0  # the end stays the end, no request past it
    assert bytes(got) == data
    spans = _gets(requests, "blob")
    assert spans[0] == (0, (1 << 20) - 1)
    assert all(b[0] == a[1] + 1 for a, b in pairwise(spans))
    assert spans[-1][1] == len(data) - 1
    assert len(spans) == 6


def test_object_replaced_between_two_gets_is_refused_not_mixed(s3: S3Server,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    """Read in 1 MB GETs, the stream is at most (AHEAD + 2) MB ahead of the reader; the
    object replaced by another of the same size after the first MB: the GETs after that
    carry the old ETag and are refused, and nothing of the new version is handed over."""
    monkeypatch.setenv("TFDBG_TUI_REMOTE_SPAN", str(1 << 20))
    size = 16 << 20
    old = bytes(range(256)) * (size // 256)
    new = bytes(255 - b for b in range(256)) * (size // 256)
    _put(s3, "replaced/blob", old)
    url = "s3://requests/replaced/blob"
    buf = bytearray(1 << 20)
    got = bytearray()
    with pytest.raises(OSError) as err, open_regular(url) as f:
        got += buf[: f.readinto(buf)]
        _put(s3, "replaced/blob", new)
        while n := f.readinto(buf):
            got += buf[:n]
    assert 0 < len(got) < size
    assert bytes(got) == old[: len(got)]  # only the version it began with
    line = str(err.value)
    assert line.startswith(url + ": ") and "replaced" in line and "\n" not in line


def test_index_of_an_object_replaced_mid_read_stops_and_never_mixes_versions(
        s3: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the index: the read of the old version stops with one warning naming the
    object; the next update sees another version whose first bytes differ: not followed."""
    monkeypatch.setenv("TFDBG_TUI_REMOTE_SPAN", str(1 << 20))
    d = tmp_path / "run"
    _run(d, 320_000)  # 25 MB of traces: read on at most (AHEAD + 2) MB past the 8 MB chunk
    url = s3.upload(d, "s3://requests/report-replaced")
    traces = next(d.glob("*.graph_execution_traces"))
    other = tmp_path / "other"
    _run(other, 330_000)  # another run's traces under the same name
    replacement = next(other.glob("*.graph_execution_traces")).read_bytes()
    changed = bytearray(replacement)
    changed[100] ^= 0xFF  # its first bytes differ from the ones read
    logdir = DebugLogdir(url)
    done: list[int] = []

    def progress(n: int, _total: int) -> None:
        if n >= 2 << 20 and not done:
            s3.fs().pipe(f"requests/report-replaced/{traces.name}", bytes(changed))
            done.append(n)

    logdir.update(progress)
    assert done
    stopped = [w for w in logdir.warnings if "reading stopped" in w]
    assert len(stopped) == 1 and traces.name in stopped[0] and "replaced" in stopped[0]
    first = len(logdir.traces)
    assert 0 < first < 320_000
    logdir.update()
    assert Counter("rewritten" in w and traces.name in w for w in logdir.warnings)[True] == 1
    assert len(logdir.traces) == first  # nothing of the other version mixed in


def test_a_report_of_a_bucket_lists_it_once(s3: S3Server, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """`report` reads the logdir once and ends: its opening, its update and the rows it reads
    back for the alerts' diagnoses share the one listing (a round trip to the bucket)."""
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(tmp_path / "cache"))
    d = tmp_path / "run"
    _run(d, 20_000)
    url = s3.upload(d, "s3://requests/report-once")
    with s3.recording() as requests:
        status = cli.main(["report", "--json", url])
    report = json.loads(capsys.readouterr().out)
    assert status == 1 and report["alerts"]["total"] == 1  # the NaN of trace 10
    assert report["first_alerts"]  # ...diagnosed, from rows read back
    assert _lists(requests) == 1
