"""`q` ends the app whatever the network does (issue 30): on a bucket whose server stalls in
the middle of the run's biggest object, the app is open, its reading worker waits on the
socket, and `q` must end the process — long before the remote timeout (set to 10 minutes
here) would let that worker go. Before, `q` cleared the screen and the process stayed."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from support.pty_app import Terminal
from support.s3 import S3Server
from support.s3_proxy import Proxy
from support.slowdown import guard


@pytest.fixture
def stalling(s3: S3Server) -> Iterator[Proxy]:
    p = Proxy(s3, "stall", only=".graph_execution_traces")
    try:
        yield p
    finally:
        p.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux pty")
def test_q_ends_the_app_while_a_read_is_stalled(s3: S3Server, stalling: Proxy,
                                                 reference_logdir: str) -> None:
    url = s3.upload(reference_logdir, "s3://quit/run")
    env = s3.env(AWS_ENDPOINT_URL=stalling.endpoint, TFDBG_TUI_REMOTE_TIMEOUT="600",
                 TERM="xterm-256color", COLUMNS="160", LINES="45")
    env.pop("NO_COLOR", None)
    term = Terminal([url], env)
    try:
        term.wait_for("indexing")  # the app is up, its read under way (and stalled)
        term.keys(b"q")
        status = term.exit_status(within=guard(120.0))  # far less than the 600 s timeout
        assert status is not None, "q did not end the process while the read was stalled"
        assert status == 0
    finally:
        term.close()
