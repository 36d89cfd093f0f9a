"""Held-out cases (issue 30's acceptance): a bucket's server, or what sits between, lying in
ways `tests/remote/` does not try — ETags rewritten on the way, a Range ignored or answered
with other bytes, 403/404 for objects the listing named, listed sizes smaller than the
objects or negative, keys carrying escape sequences, a listing that trickles — and the
commands beyond `report` (export, diff, `tfdbg_tui.open`) on a server that does not deliver.

The server is the tests' moto server (`support.s3`), started for this module; the liar is a
proxy in front of it (`support.s3_proxy.Proxy`'s forwarding, with the changes below).

Expected, written before the run: never a traceback nor a hang; exit 2 with one line naming
the URL when nothing trustworthy can be read; no alert printed from bytes of another version
or range; no raw control character from a key on the terminal; export's previous OUT_DIR
kept when the read fails.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from hostile.checks import HANG_GUARD, assert_no_raw_controls, child_env
from support.paths import ROOT
from support.s3 import S3Server, start
from support.s3_proxy import Proxy
from support.tui import write_reference


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    home = tmp_path_factory.mktemp("held-out-s3")
    with pytest.MonkeyPatch.context() as mp:
        for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN"):
            mp.delenv(name, raising=False)
        mp.setenv("AWS_CONFIG_FILE", str(home / "no-config"))
        mp.setenv("AWS_SHARED_CREDENTIALS_FILE", str(home / "no-credentials"))
        for server in start(home):
            for k, v in server.settings().items():
                mp.setenv(k, v)
            yield server


@pytest.fixture(scope="module")
def url(s3: S3Server, tmp_path_factory: pytest.TempPathFactory) -> str:
    local = tmp_path_factory.mktemp("held-out-remote") / "ld"
    write_reference(local)
    return s3.upload(local, "s3://heldout/ref")


class Liar(Proxy):
    """Forwards to moto, then changes the answer as `mode` says (modes of its own)."""

    def handle(self, h: BaseHTTPRequestHandler, method: str) -> None:
        if self.mode in ("forward", "silent", "stall", "trickle", "error"):
            return super().handle(h, method)
        import http.client

        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else None
        host, port = self.upstream
        conn = http.client.HTTPConnection(host, port, timeout=120)
        conn.putrequest(method, h.path, skip_host=True, skip_accept_encoding=True)
        for k, v in h.headers.items():
            conn.putheader(k, v)
        conn.endheaders(body)
        resp = conn.getresponse()
        data, status = resp.read(), resp.status
        headers = [(k, v) for k, v in resp.getheaders()
                   if k.lower() not in ("connection", "keep-alive", "transfer-encoding",
                                        "content-length")]
        conn.close()
        query = urlsplit(h.path).query
        listing = method == "GET" and "list-type" in query
        is_object = (method == "GET" and not listing and "location" not in query
                     and urlsplit(h.path).path.strip("/").count("/") >= 1)
        if is_object and self.mode == "etag-rewrite":
            headers = [(k, '"0123456789abcdef0123456789abcdef"' if k.lower() == "etag" else v)
                       for k, v in headers]
        if is_object and self.mode == "ignore-range" and status == 206:
            status = 200  # the whole object, as a server ignoring Range answers
            data = bytes(self.s3.fs().cat_file(urlsplit(h.path).path.lstrip("/")))
            headers = [(k, v) for k, v in headers if k.lower() != "content-range"]
        if is_object and self.mode == "wrong-range" and status == 206:
            data = bytes((b + 1) & 0xFF for b in data)  # other bytes, same length and ETag
        if is_object and self.mode in ("forbidden", "gone"):
            status, headers = (403, []) if self.mode == "forbidden" else (404, [])
            code = "AccessDenied" if self.mode == "forbidden" else "NoSuchKey"
            data = f"<Error><Code>{code}</Code><Message>no</Message></Error>".encode()
        if listing and self.mode in ("listing-small", "listing-negative"):
            def size(m: re.Match[bytes]) -> bytes:
                n = int(m.group(1))
                return b"<Size>%d</Size>" % (n // 2 if self.mode == "listing-small" else -5)
            data = re.sub(rb"<Size>(\d+)</Size>", size, data)
        if listing and self.mode == "listing-escape":
            data = data.replace(b"<Key>heldout/", b"<Key>heldout/\x1b]52;c;cHduZWQ=\x07")
        h.send_response(status)
        for k, v in headers:
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        if method == "HEAD":
            return
        if listing and self.mode == "trickle-listing":
            for i in range(len(data)):
                if self.stop.wait(0.05):
                    break
                h.wfile.write(data[i: i + 1])
                h.wfile.flush()
            h.close_connection = True
            return
        h.wfile.write(data)


@pytest.fixture
def liar(s3: S3Server) -> Iterator[Liar]:
    p = Liar(s3)
    try:
        yield p
    finally:
        p.close()


def cli(s3: S3Server, endpoint: str, *args: str, limit: str = "2"
        ) -> subprocess.CompletedProcess[str]:
    env = {**child_env(), **s3.settings(), "AWS_ENDPOINT_URL": endpoint,
           "TFDBG_TUI_REMOTE_TIMEOUT": limit}
    try:
        proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                              text=True, cwd=ROOT, env=env, timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args} hung")
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert_no_raw_controls(proc.stdout, "stdout")
    assert_no_raw_controls(proc.stderr, "stderr")
    for line in proc.stderr.splitlines():
        assert line.startswith("tfdbg-tui"), proc.stderr
    return proc


def one_line(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-1000:], proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("mode", ["etag-rewrite", "forbidden", "gone"])
def test_objects_the_listing_named_that_cannot_be_trusted(s3: S3Server, liar: Liar, url: str,
                                                          mode: str) -> None:
    """Every GET answered with another ETag (its version unknown), 403, or 404 (deleted
    after the listing): nothing read, one line naming an object of the run, exit 2."""
    liar.mode = mode
    one_line(cli(s3, liar.endpoint, "report", url), url, "tfdbg_events.")


def test_a_range_ignored_gives_the_true_report_or_one_line(s3: S3Server, liar: Liar,
                                                           url: str) -> None:
    truth = cli(s3, s3.endpoint, "report", "--json", url)
    liar.mode = "ignore-range"
    proc = cli(s3, liar.endpoint, "report", "--json", url)
    if proc.returncode == 2:
        one_line(proc, url, "tfdbg_events.")
    else:
        assert proc.stdout == truth.stdout


def test_other_bytes_for_the_range_asked_are_never_alerts(s3: S3Server, liar: Liar,
                                                          url: str) -> None:
    """Same length, same ETag, every byte off by one: the CRCs fail. Either one line, or
    warnings naming the objects and no alert from those bytes."""
    liar.mode = "wrong-range"
    proc = cli(s3, liar.endpoint, "report", url)
    if proc.returncode == 2:
        one_line(proc, url, "tfdbg_events.")
    else:
        assert proc.returncode == 0, proc.stdout[-2000:]  # nothing read: no alert invented
        assert "warning" in proc.stdout and url in proc.stdout, proc.stdout[-2000:]


@pytest.mark.parametrize("mode", ["listing-small", "listing-negative"])
def test_listed_sizes_that_lie_low(s3: S3Server, liar: Liar, url: str, mode: str) -> None:
    """Sizes halved or negative: what is read is at most what was listed (exit 0/1), or one
    line; never a traceback."""
    liar.mode = mode
    proc = cli(s3, liar.endpoint, "report", url)
    assert proc.returncode in (0, 1, 2), proc.stderr
    if proc.returncode == 2:
        one_line(proc, url)


def test_keys_carrying_escape_sequences_reach_no_terminal_raw(s3: S3Server, liar: Liar,
                                                              url: str) -> None:
    liar.mode = "listing-escape"
    proc = cli(s3, liar.endpoint, "report", url)  # (cli checks stdout and stderr)
    assert proc.returncode in (0, 1, 2)


def test_a_trickling_listing_is_bounded(s3: S3Server, liar: Liar, url: str) -> None:
    """The listing's answer comes one byte per 50 ms (~2 minutes for this folder): the
    remote timeout (0.3 s here) bounds it — one line naming the URL."""
    liar.mode = "trickle-listing"
    one_line(cli(s3, liar.endpoint, "report", url, limit="0.3"), url)


@pytest.mark.parametrize("mode", ["error"])
def test_export_of_a_bucket_that_does_not_deliver_keeps_the_previous_export(
        s3: S3Server, liar: Liar, url: str, tmp_path: Path, mode: str) -> None:
    out = tmp_path / "out"
    assert cli(s3, s3.endpoint, "export", url, str(out)).returncode == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    liar.mode = mode
    proc = cli(s3, liar.endpoint, "export", url, str(out))
    one_line(proc, url)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_diff_with_a_silent_bucket(s3: S3Server, liar: Liar, url: str, tmp_path: Path) -> None:
    local = tmp_path / "ld"
    write_reference(local)
    liar.mode = "silent"
    one_line(cli(s3, liar.endpoint, "diff", str(local), url, limit="1"), url)


def test_open_through_a_failing_server_raises_one_line(s3: S3Server, liar: Liar, url: str,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    """`tfdbg_tui.open` raises the reader's own error (one line naming the URL), never
    returns a run of nothing."""
    import tfdbg_tui
    from reader import ReaderError

    liar.mode = "error"
    monkeypatch.setenv("AWS_ENDPOINT_URL", liar.endpoint)
    monkeypatch.setenv("TFDBG_TUI_REMOTE_TIMEOUT", "2")
    with pytest.raises((ReaderError, OSError)) as caught:
        run: Any = tfdbg_tui.open(url)
        pytest.fail(f"returned {run!r}")
    message = str(caught.value)
    assert url in message and "\n" not in message, message
