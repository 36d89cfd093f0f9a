"""A listing the reader cannot parse is said to be malformed, not "cannot reach it": the
server was reached, and what it answered is what is wrong (the user looks at the server or
the proxy in front of it, not at the network). Through `support.s3_proxy` in front of the
tests' S3 server; the http:// case in tests/hostile/test_attack_urls.py."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from support.paths import ROOT
from support.s3 import S3Server
from support.s3_proxy import Proxy

SLOW = float(os.environ.get("TFDBG_TUI_TEST_SLOWDOWN", "1") or 1)


@pytest.fixture
def proxy(s3: S3Server) -> Iterator[Proxy]:
    p = Proxy(s3)
    try:
        yield p
    finally:
        p.close()


@pytest.mark.parametrize("mode", ["broken-listing", "garbage-listing"])
def test_a_malformed_listing_is_said_as_such(s3: S3Server, proxy: Proxy,
                                             reference_logdir: str, mode: str) -> None:
    url = s3.upload(reference_logdir, f"s3://malformed/{mode}")
    proxy.mode = mode
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "report", url],
                          capture_output=True, text=True, cwd=ROOT, timeout=300 * SLOW,
                          env=s3.env(AWS_ENDPOINT_URL=proxy.endpoint,
                                     TFDBG_TUI_REMOTE_TIMEOUT="5"))
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert url in line, line
    assert "listing" in line and "malformed" in line, line
    assert "cannot reach" not in line, line
