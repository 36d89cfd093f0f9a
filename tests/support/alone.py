"""Tests of code that forks: run them where a fork is allowed."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest


def alone(request: pytest.FixtureRequest) -> bool:
    """Whether this process can fork (no other thread); if not — an earlier test of this
    pytest worker left a thread running, e.g. fsspec's event loop — this test is run again
    by itself in a new pytest process, and passes only if it passes there."""
    if threading.active_count() == 1 or os.environ.get("TFDBG_TEST_ALONE"):
        return True
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", request.node.nodeid],
                          cwd=request.config.rootpath, capture_output=True, text=True,
                          env=dict(os.environ, TFDBG_TEST_ALONE="1"), timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    return False
