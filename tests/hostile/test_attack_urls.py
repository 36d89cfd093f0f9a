"""Held-out cases, round 5 (issue 30's acceptance: "others like them"): logdir URLs of the
other fsspec backends — a web server's folder (`http://`), `ftp://`, fsspec's `generic://`.

Expected, written before the run: a logdir served over HTTP reads as the same folder read
locally (a web server's index page gives no sizes; Python's own `http.server` ignores
`Range`), with the time and memory bounds a bucket has (a server that stalls mid-body, or
sends a body that never ends: one line, the body read no further than asked); a URL that
cannot be read is one line naming it, exit 2 — never a traceback.

Found broken: every HTTP logdir was "nothing readable …: empty, no metadata record" (the
listing's sizes, absent, taken for 0) — and once sized, fsspec's HTTP reads had no time
limit, read an endless body into memory (the process was killed) and took a server ignoring
`Range` as the bytes at the offset asked for; `ftp://HOST/…` printed fsspec's "Exception
ignored … AttributeError" traceback under its line (its client was made without its host);
`generic://…` ended in a RecursionError traceback with exit status 1 ("alerts found").
"""

from __future__ import annotations

import functools
import json
import socket
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hostile.checks import HANG_GUARD, assert_no_raw_controls, child_env
from support.paths import ROOT
from support.tui import write_reference

CAP = 256 << 20  # bytes of the never-ending body, at most (the test must end, fixed or not)


class Site:
    """Python's `http.server` on a folder (it ignores `Range`, as many do), in a thread;
    `mode` "stall" sends a file's headers, then nothing, "endless" a body without end,
    "garbage" answers a folder's index page with bytes that are no page at all. `requests`
    counts what it was asked, by method."""

    def __init__(self, root: Path) -> None:
        self.mode = "serve"
        self.sent: list[int] = []
        self.stop = threading.Event()
        self.requests: Counter[str] = Counter()
        owner = self

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                owner.requests["GET"] += 1
                if owner.mode == "garbage" and self.path.rstrip("/").endswith("/ref"):
                    owner.garbage(self)
                elif owner.mode in ("stall", "endless") and "/tfdbg_events." in self.path:
                    owner.misbehave(self)
                else:
                    super().do_GET()

            def do_HEAD(self) -> None:
                owner.requests["HEAD"] += 1
                super().do_HEAD()

        handler = functools.partial(Handler, directory=str(root))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def misbehave(self, h: SimpleHTTPRequestHandler) -> None:
        h.send_response(200)
        if self.mode == "stall":
            h.send_header("Content-Length", "100000")
            h.end_headers()  # and not a byte of the body
            h.wfile.flush()
            self.stop.wait()
            return
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        chunk, sent = b"\0" * (1 << 16), 0
        try:
            while sent < CAP and not self.stop.is_set():
                h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
            h.wfile.write(b"0\r\n\r\n")
        except OSError:  # the reader let go
            pass
        self.sent.append(sent)
        h.close_connection = True

    @staticmethod
    def garbage(h: SimpleHTTPRequestHandler) -> None:
        body = bytes(range(128, 256)) * 8 + b'<a href="tfdbg_events.\xff">'
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    def close(self) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("attack-urls")
    write_reference(root / "ref")
    return root


@pytest.fixture
def site(served: Path) -> Iterator[Site]:
    s = Site(served)
    try:
        yield s
    finally:
        s.close()


def cli(*args: str, limit: str = "2") -> subprocess.CompletedProcess[str]:
    env = {**child_env(), "TFDBG_TUI_REMOTE_TIMEOUT": limit,
           "TFDBG_TUI_SHARDS": str(ROOT / "no-such-shard-folder")}
    try:
        proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                              text=True, cwd=ROOT, env=env, timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args} hung")
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, (
        proc.stderr[-3000:])
    assert_no_raw_controls(proc.stdout + proc.stderr, "output")
    assert all(line.startswith("tfdbg-tui") for line in proc.stderr.splitlines()), proc.stderr
    return proc


def one_line(proc: subprocess.CompletedProcess[str], url: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-1000:], proc.stderr)
    (line,) = proc.stderr.strip().splitlines()
    assert url in line, line
    return line


def _without_paths(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k != "logdir"}


def test_a_logdir_served_over_http_reads_as_the_folder(site: Site, served: Path) -> None:
    """Its alerts, counts and diagnosis are the local folder's; `--values` re-reads records
    at their offsets from a server that ignores `Range`: no warning, no wrong bytes."""
    here = cli("report", "--json", "--values", str(served / "ref"))
    there = cli("report", "--json", "--values", f"{site.url}/ref")
    assert there.returncode == here.returncode == 1, there.stderr
    assert _without_paths(json.loads(there.stdout)) == _without_paths(json.loads(here.stdout))


def test_an_index_page_that_is_garbage_is_a_malformed_listing(site: Site) -> None:
    """The folder's page is bytes that are no page (not UTF-8, no link one can read): the
    server was reached and answered — its listing is what is wrong, not the network (before:
    "cannot reach it (UnicodeDecodeError …)")."""
    site.mode = "garbage"
    line = one_line(cli("report", f"{site.url}/ref"), f"{site.url}/ref")
    assert "listing" in line and "malformed" in line and "cannot reach" not in line, line


def test_an_http_body_that_stalls_is_one_line(site: Site) -> None:
    site.mode = "stall"
    line = one_line(cli("report", f"{site.url}/ref", limit="1"), f"{site.url}/ref")
    assert "no answer within 1 s" in line, line


def test_an_http_body_that_never_ends_is_read_no_further(site: Site) -> None:
    """Zeros without end (up to `CAP`) for every file: each read lets go after what it
    asked for (a few socket buffers written, never the `CAP`); a long remote timeout, so no
    time limit decides it."""
    site.mode = "endless"
    one_line(cli("report", f"{site.url}/ref", limit="600"), f"{site.url}/ref")
    assert site.sent and max(site.sent) < 64 << 20, site.sent


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# the port is drawn in the test, not at collection: pytest-xdist's workers collect apart and
# must see the same test ids ("Different tests were collected between gw1 and gw0")
@pytest.mark.parametrize("url", ["ftp://127.0.0.1:{port}/ld", "generic://x/ld"])
def test_urls_of_other_backends_that_cannot_be_read(url: str) -> None:
    url = url.format(port=_closed_port())
    line = one_line(cli("report", url), url)
    assert "cannot reach it" in line, line
