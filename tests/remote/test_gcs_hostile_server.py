"""`gs://` answers cut short (issue 30): what tests/remote/test_remote_hostile_server.py
proves of `s3://`, for GCS. A misbehaving server (`support.gcs_proxy`) stands in front of the
tests' GCS emulator; what is checked is what the user sees — an answer that does not bring
the bytes it announces is a failed read of its object, said in one line naming it, never an
object that ends there (an empty run, an incomplete record "a job killed mid-write"), and
never a shard or a cache entry that takes the short read for the object.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.paths import ROOT
from support.slowdown import guard

pytest.importorskip("gcsfs")
pytest.importorskip("gcp_storage_emulator")

from support.gcs import GCSServer
from support.gcs_proxy import GCSProxy

TENSOR_FILES = (".execution", ".graph_execution_traces")


@pytest.fixture
def proxy(gcs: GCSServer) -> Iterator[GCSProxy]:
    p = GCSProxy(gcs)
    try:
        yield p
    finally:
        p.close()


DIRECT = str(ROOT / "no-such-shard-folder")  # `$TFDBG_TUI_SHARDS` for a direct read


def run(endpoint: str, *args: str, shards: str = DIRECT, **env: str
        ) -> subprocess.CompletedProcess[str]:
    """`tfdbg-tui ARGS` against the GCS server at `endpoint`, remote timeout 1 s (the hang
    guard is the test's, generous); `shards`: `$TFDBG_TUI_SHARDS` ("": the logdir's own)."""
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=guard(300),
                          env={**os.environ, "STORAGE_EMULATOR_HOST": endpoint,
                               "TFDBG_TUI_REMOTE_TIMEOUT": "1", "TFDBG_TUI_SHARDS": shards,
                               **env})
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def downloads(gcs: GCSServer, since: int) -> dict[str, int]:
    """GETs of each object's bytes the server answered since the mark, by name suffix."""
    prefix = "/download/storage/v1/b/"
    got: dict[str, int] = {}
    for method, path, _ in gcs.requests(since):
        if method == "GET" and path.startswith(prefix):
            suffix = "." + path.rsplit(".", 1)[-1]
            got[suffix] = got.get(suffix, 0) + 1
    return got


@pytest.mark.parametrize("mode", ["short", "short-held", "cut"])
def test_gs_answers_cut_short_are_not_an_empty_run(gcs: GCSServer, proxy: GCSProxy,
                                                   reference_logdir: str, mode: str) -> None:
    """The answers for the files that hold the tensors are cut short: `short` announces
    (Content-Length) 1,000 bytes more than it sends, then closes; `short-held` the same, the
    connection left open; `cut` announces the true length and sends 1,000 bytes less. No
    tensor can be read: the line says so, and why (the server's answer), naming the object,
    having asked the server for each object's bytes once or twice. Before: gcsfs asked six
    times (its retries, 30 s of backoff an object), printed each try's traceback on stderr
    through its log, and `short-held` was "no answer within 1 s", of a server that had
    answered."""
    url = gcs.upload(reference_logdir, f"gs://hostile/{mode}")
    proxy.mode, proxy.only = mode, TENSOR_FILES
    since = gcs.mark()
    proc = run(proxy.endpoint, "report", url)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    (line,) = proc.stderr.strip().splitlines()
    assert "no tensor could be read" in line and "nothing was recorded" not in line, line
    assert f"{url}/" in line and "the server's answer" in line, line
    assert "cannot reach" not in line and "no answer within" not in line, line
    asked = downloads(gcs, since)
    assert all(asked[s] <= 2 for s in TENSOR_FILES), asked  # (gcsfs asked 6 times)


def test_a_gs_run_whose_every_answer_is_cut_short_has_nothing_readable(
        gcs: GCSServer, proxy: GCSProxy, reference_logdir: str) -> None:
    """Every object's answer announces 1,000 bytes more than it sends, the run's metadata and
    source files' too: nothing of the run is read, and the one line says so, naming the
    object and what was wrong with the server's answer (its headers, before any byte is
    used). Before: "was cut short (ClientPayloadError…)", after gcsfs's six tries each."""
    url = gcs.upload(reference_logdir, "gs://hostile/all-short")
    proxy.mode = "short"
    since = gcs.mark()
    proc = run(proxy.endpoint, "report", url)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    (line,) = proc.stderr.strip().splitlines()
    assert "nothing readable" in line and url in line and "tfdbg_events." in line, line
    assert "the server's answer announces" in line and "nothing was recorded" not in line
    asked = downloads(gcs, since)
    assert max(asked.values()) <= 2, asked  # (gcsfs: 6, or 12 for a file read twice)


def test_a_gs_file_whose_answer_is_cut_short_is_not_said_to_end_early(
        gcs: GCSServer, proxy: GCSProxy, reference_logdir: str) -> None:
    """The stack frames' answer ends 1,000 bytes before its (true) Content-Length; the rest
    of the run is read. The warning says reading stopped on the server's answer, and nothing
    says the file ends in an incomplete record: the file is whole, its answer was not.
    Before: the same words, after 12 GETs of it (gcsfs's retries, twice) and their
    tracebacks on stderr."""
    url = gcs.upload(reference_logdir, "gs://hostile/cut-frames")
    proxy.mode, proxy.only = "cut", ".stack_frames"
    since = gcs.mark()
    proc = run(proxy.endpoint, "report", url)
    out = " ".join((proc.stdout + proc.stderr).split())  # (warnings are wrapped)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)  # the alerts are read
    assert "stack_frames: reading stopped at byte 0 (the server's answer" in out, out
    assert "incomplete" not in out and "killed mid-write" not in out, out
    assert downloads(gcs, since)[".stack_frames"] <= 2  # (gcsfs: 12, its retries, 70 s)


def report_json(endpoint: str, url: str, shards: str = DIRECT, **env: str) -> dict[str, Any]:
    proc = run(endpoint, "report", "--json", "--limit", "50", url, shards=shards, **env)
    assert proc.returncode in (0, 1), proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


@pytest.mark.parametrize("mode", ["short", "cut"])
def test_a_cut_read_is_neither_cached_nor_indexed(gcs: GCSServer, proxy: GCSProxy,
                                                  reference_logdir: str, tmp_path: Path,
                                                  mode: str) -> None:
    """The graph traces' answers are cut short while the index cache and `tfdbg-tui index`
    read the run: the report warns, no shard is written ("not indexed"), and once the same
    server (same endpoint: the cache's and the shards' key) answers whole, the report with
    the cache, and from the shards of `index` run again, say what a fresh read says —
    nothing of the cut read kept as the object, nor its warning."""
    url = gcs.upload(reference_logdir, f"gs://hostile/cached-{mode}")
    cache = {"TFDBG_TUI_CACHE_DIR": str(tmp_path / "cache"), "TFDBG_TUI_CACHE_MIN_BYTES": "0"}
    truth = report_json(gcs.host, url)
    proxy.mode, proxy.only = mode, ".graph_execution_traces"

    cut = report_json(proxy.endpoint, url, **cache)
    assert any("reading stopped" in w for w in cut["warnings"]), cut["warnings"]
    proc = run(proxy.endpoint, "index", url, shards="")
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "0 indexed" in proc.stdout and "1 failed" in proc.stdout, proc.stdout
    assert "not indexed" in proc.stderr and "the server's answer" in proc.stderr, proc.stderr
    assert not gcs.fs().exists(f"{url[len('gs://'):]}/.tfdbg-index/"), "a shard of a cut read"

    proxy.mode = "forward"
    assert report_json(proxy.endpoint, url, **cache) == truth  # (the cache saved by now)
    assert report_json(proxy.endpoint, url, **cache) == truth  # (read from it)
    proc = run(proxy.endpoint, "index", url, shards="")
    assert proc.returncode == 0 and "1 indexed" in proc.stdout, (proc.stdout, proc.stderr)
    assert report_json(proxy.endpoint, url, shards="") == truth  # from the shard


def test_a_gs_server_ignoring_range_gives_no_byte_from_the_wrong_offset(
        gcs: GCSServer, proxy: GCSProxy, reference_logdir: str) -> None:
    """Every GET of an object is answered with the whole object (200, no Content-Range),
    whatever range was asked for: a read from offset 0 of a whole object is that object, a
    read from anywhere else is refused and said. Before: the object's first bytes were taken
    for those at the offset — the report re-read records by offset and concluded from the
    wrong bytes (another loss, another explanation of the −∞), without a warning."""
    url = gcs.upload(reference_logdir, "gs://hostile/ignore-range")
    proxy.mode = "ignore-range"
    got = report_json(proxy.endpoint, url)
    refused = [w for w in got["warnings"] if "the server's answer has no Content-Range" in w]
    assert refused and all(url in w for w in refused), got["warnings"]


@pytest.mark.parametrize("mode", ["stall", "trickle", "error"])
def test_a_gs_server_that_does_not_deliver_is_one_line(gcs: GCSServer, proxy: GCSProxy,
                                                       reference_logdir: str,
                                                       mode: str) -> None:
    """Answers that stall mid-body, trickle a byte every 50 ms, or are all 500: `report`
    ends with one line naming the URL (and, for the first two, the time limit), having
    asked for each object at most twice a read. Before: a trickle kept gcsfs reading (its socket
    timeout never fires while bytes come), a stall or a 500 was tried six times with
    backoff, each try's traceback on stderr."""
    url = gcs.upload(reference_logdir, f"gs://hostile/{mode}")
    proxy.mode = mode
    since = gcs.mark()
    proc = run(proxy.endpoint, "report", url)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    (line,) = proc.stderr.strip().splitlines()
    assert url in line, line
    assert ("TFDBG_TUI_REMOTE_TIMEOUT" in line) == (mode != "error"), line
    asked = downloads(gcs, since)
    assert max(asked.values()) <= 4, asked  # (2 tries of each of 2 reads; gcsfs: 6 tries)
