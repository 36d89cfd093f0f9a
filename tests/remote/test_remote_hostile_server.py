"""A server that misbehaves: ignores `If-Match`, never answers, stalls mid-body, trickles
(issue 30). Put in front of the tests' S3 server by `support.s3_proxy`; what is checked is
what the user sees — the bytes handed over are only ever the listed version's, and a network
that does not deliver ends in one line naming the URL, in bounded time."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.paths import ROOT
from support.s3 import S3Server
from support.s3_proxy import Proxy

from reader.io.regular import open_regular

SLOW = float(os.environ.get("TFDBG_TUI_TEST_SLOWDOWN", "1") or 1)


@pytest.fixture
def proxy(s3: S3Server) -> Iterator[Proxy]:
    p = Proxy(s3)
    try:
        yield p
    finally:
        p.close()


def _put(s3: S3Server, key: str, data: bytes) -> None:
    fs = s3.fs()
    if not fs.exists("hostile"):
        fs.mkdir("hostile")
    fs.pipe(f"hostile/{key}", data)


@pytest.mark.parametrize("mode", ["ignore-if-match", "ignore-if-match-no-etag"])
def test_a_server_ignoring_if_match_is_refused_not_mixed(
        s3: S3Server, proxy: Proxy, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """The object replaced after the first 1 MB GET; the server answers the next GETs with
    the new version despite `If-Match`: its ETag says so — or, stripped by a proxy, its
    absence does (before: an answer without an ETag was taken as the listed version) — and
    nothing of it is handed over."""
    proxy.mode = mode
    monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
    monkeypatch.setenv("TFDBG_TUI_REMOTE_SPAN", str(1 << 20))
    size = 16 << 20
    old = bytes(range(256)) * (size // 256)
    new = bytes(255 - b for b in range(256)) * (size // 256)
    _put(s3, "ignored/blob", old)
    url = "s3://hostile/ignored/blob"
    buf = bytearray(1 << 20)
    got = bytearray()
    with pytest.raises(OSError) as err, open_regular(url) as f:
        got += buf[: f.readinto(buf)]
        _put(s3, "ignored/blob", new)
        while n := f.readinto(buf):
            got += buf[:n]
    # (without ETags, not even the first GET's bytes can be told to be the listed version)
    assert (0 < len(got) if mode == "ignore-if-match" else len(got) == 0) and len(got) < size
    assert bytes(got) == old[: len(got)]  # only the version it began with
    line = str(err.value)
    assert line.startswith(url + ": ") and "\n" not in line
    assert ("replaced" if mode == "ignore-if-match" else "no ETag") in line, line


def report(s3: S3Server, endpoint: str, url: str) -> subprocess.CompletedProcess[str]:
    """`tfdbg-tui report URL` against `endpoint`, remote timeout 1 s; the hang guard is the
    test's, generous."""
    return subprocess.run([sys.executable, "-m", "tfdbg_tui", "report", url],
                          capture_output=True, text=True, cwd=ROOT, timeout=300 * SLOW,
                          env=s3.env(AWS_ENDPOINT_URL=endpoint, TFDBG_TUI_REMOTE_TIMEOUT="1"))


@pytest.mark.parametrize("mode", ["silent", "stall", "trickle"])
def test_a_server_that_does_not_deliver_is_one_line(s3: S3Server, proxy: Proxy,
                                                    reference_logdir: str, mode: str) -> None:
    url = s3.upload(reference_logdir, f"s3://hostile/{mode}")
    proxy.mode = mode
    proc = report(s3, proxy.endpoint, url)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert url in lines[0] and "TFDBG_TUI_REMOTE_TIMEOUT" in lines[0], lines[0]


def test_bytes_that_do_not_match_their_checksum_are_said_as_such(
        s3: S3Server, proxy: Proxy, reference_logdir: str) -> None:
    """Every object's answer has other bytes (same length, same ETag): the server was
    reached, what it sent is wrong. Before: "cannot reach it (FlexibleChecksumError: …)",
    a network failure the user would look for in the wrong place."""
    url = s3.upload(reference_logdir, "s3://hostile/corrupt")
    proxy.mode = "corrupt"
    proc = report(s3, proxy.endpoint, url)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    (line,) = proc.stderr.strip().splitlines()
    assert url in line and "tfdbg_events." in line, line  # (the URL and the object)
    assert "did not match the object's checksum" in line, line
    assert "changed during the read" in line and "cannot reach" not in line, line


def test_a_listing_claiming_a_tebibyte_is_not_out_of_memory(s3: S3Server, proxy: Proxy,
                                                            reference_logdir: str) -> None:
    """The listing says 1 TiB for each object (each holds what it holds): the read ends where
    the object does, as the same report of the true listing — no false "out of memory" from
    room reserved for the claim."""
    url = s3.upload(reference_logdir, "s3://hostile/tib")
    truth = report(s3, s3.endpoint, url)
    proxy.mode = "huge-listing"
    proc = report(s3, proxy.endpoint, url)
    assert "out of memory" not in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == truth.returncode == 1, proc.stderr
    assert proc.stdout.splitlines()[:3] == truth.stdout.splitlines()[:3]


TENSOR_FILES = (".execution", ".graph_execution_traces")


@pytest.mark.parametrize("mode", ["short", "short-held", "cut"])
def test_answers_cut_short_are_not_an_empty_run(s3: S3Server, proxy: Proxy,
                                                reference_logdir: str, mode: str) -> None:
    """The answers for the files that hold the tensors are cut short: `short` announces
    (Content-Length) 1,000 bytes more than it sends, then closes; `short-held` the same, the
    connection left open; `cut` announces the true length and sends 1,000 bytes less. No
    tensor can be read: the line says so, and why (the server's answer), naming the object.
    Before: "nothing was recorded: the program ran no TensorFlow op" — a claim about the
    program, from a failing server; then a short answer was noticed only if the connection's
    close arrived before the reader had taken the bytes it asked for: `short-held` never,
    `short` by chance (it passed alone and failed after tests/reader/test_shard_stream.py,
    whose leftovers in this process slowed the proxy's close); `cut` said "cannot reach
    it", of a server that was reached."""
    url = s3.upload(reference_logdir, f"s3://hostile/{mode}")
    proxy.mode, proxy.only = mode, TENSOR_FILES
    proc = report(s3, proxy.endpoint, url)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    (line,) = proc.stderr.strip().splitlines()
    assert "no tensor could be read" in line and "nothing was recorded" not in line, line
    assert f"{url}/" in line and "the server's answer" in line, line
    assert "cannot reach" not in line, line


def test_a_run_whose_every_answer_is_cut_short_has_nothing_readable(
        s3: S3Server, proxy: Proxy, reference_logdir: str) -> None:
    """Every object's answer announces 1,000 bytes more than it sends, the run's metadata and
    source files' too: nothing of the run is read, and the one line says so, naming the
    object and what was wrong with the server's answer. Before: each object was read whole
    or not by how soon the proxy's close arrived; the 4 MB source file was read most of the
    time, and the line said "no tensor could be read" by that chance."""
    url = s3.upload(reference_logdir, "s3://hostile/all-short")
    proxy.mode = "short"
    proc = report(s3, proxy.endpoint, url)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    (line,) = proc.stderr.strip().splitlines()
    assert "nothing readable" in line and url in line and "tfdbg_events." in line, line
    assert "the server's answer announces" in line and "nothing was recorded" not in line


def test_a_file_whose_answer_is_cut_short_is_not_said_to_end_early(
        s3: S3Server, proxy: Proxy, reference_logdir: str) -> None:
    """The stack frames' answer ends 1,000 bytes before its (true) Content-Length; the rest
    of the run is read. The warning says reading stopped on the server's answer, and nothing
    says the file ends in an incomplete record ("a job killed mid-write, a copy cut short, or
    one still writing"): the file is whole, its answer was not. Before: both were said."""
    url = s3.upload(reference_logdir, "s3://hostile/cut-frames")
    proxy.mode, proxy.only = "cut", ".stack_frames"
    proc = report(s3, proxy.endpoint, url)
    out = " ".join((proc.stdout + proc.stderr).split())  # (warnings are wrapped)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)  # the alerts are read
    assert "stack_frames: reading stopped at byte 0 (the server's answer" in out, out
    assert "incomplete" not in out and "killed mid-write" not in out, out


def test_the_remote_timeout_flag_bounds_a_silent_server(s3: S3Server, proxy: Proxy,
                                                        reference_logdir: str) -> None:
    """`--remote-timeout 1` wins over the environment's 600 s: a server that never answers
    ends the report in one line naming the URL and the limit the flag set."""
    url = s3.upload(reference_logdir, "s3://hostile/flag")
    proxy.mode = "silent"
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "report", "--remote-timeout",
                           "1", url], capture_output=True, text=True, cwd=ROOT,
                          timeout=300 * SLOW, env=s3.env(AWS_ENDPOINT_URL=proxy.endpoint,
                                                         TFDBG_TUI_REMOTE_TIMEOUT="600"))
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert url in lines[0] and "within 1 s" in lines[0] and "--remote-timeout" in lines[0]


def test_index_through_a_failing_server_indexes_nothing(s3: S3Server, proxy: Proxy,
                                                        reference_logdir: str,
                                                        tmp_path: Path) -> None:
    """Every object's GET answered 500: the file set is "not indexed", exit 1, the line says
    why. Before: "1 indexed, 0 failed", exit 0, for a shard of nothing."""
    url = s3.upload(reference_logdir, "s3://hostile/error")
    proxy.mode = "error"
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "index", url, "--out",
                           str(tmp_path / "shards")], capture_output=True, text=True, cwd=ROOT,
                          timeout=300 * SLOW, env=s3.env(AWS_ENDPOINT_URL=proxy.endpoint,
                                                         TFDBG_TUI_REMOTE_TIMEOUT="5"))
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "0 indexed" in proc.stdout and "1 failed" in proc.stdout, proc.stdout
    (line,) = proc.stderr.strip().splitlines()
    assert "not indexed" in line and "could not be read" in line, line


def test_a_listing_that_never_ends_is_one_line(s3: S3Server, proxy: Proxy,
                                               reference_logdir: str) -> None:
    """Every page of the folder's listing says there is another (a new token each time):
    each request is answered in time, so only a bound on the whole listing ends it — 10x the
    remote timeout. Before: report listed for ever, its memory growing."""
    url = s3.upload(reference_logdir, "s3://hostile/endless")
    proxy.mode = "endless-listing"
    proc = report(s3, proxy.endpoint, url)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    (line,) = proc.stderr.strip().splitlines()
    assert url in line and "listing did not end" in line, line
    assert proxy.pages > 1  # (it did page on: the bound, not an error, ended it)
