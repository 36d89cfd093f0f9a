"""Held-out cases, round 5 (issue 30's acceptance: "others like them"): what `tfdbg-tui
index --engine dask=ADDRESS` is given that is not a scheduler's address, and a connection
time limit that is not a duration.

Expected, written before the run: one line on stderr naming what was wrong, exit 2, nothing
indexed — never a traceback. Before: `dask=foo://x:1` and `dask=tcp://[::1` ended in
Dask's ValueError traceback (an unknown scheme, an unclosed bracket), and
`TFDBG_TUI_DASK_TIMEOUT=abc` in a KeyError traceback of Dask's duration parser (`1e400`: an
OverflowError).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT
from support.tui import write_reference

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("attack-engine") / "ld"
    write_reference(d)
    return d


def index(ref: Path, engine: str, **env: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "index", str(ref), "--engine",
                           engine], capture_output=True, text=True, cwd=ROOT,
                          env={**child_env(), **env}, timeout=HANG_GUARD)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert not (ref / ".tfdbg-index").exists()
    return proc


@pytest.mark.parametrize("address", ["foo://x:1", "tcp://[::1"])
def test_an_address_that_is_no_address_is_one_line(ref: Path, address: str) -> None:
    proc = index(ref, f"dask={address}")
    assert f"cannot reach the Dask scheduler at {address}" in proc.stderr, proc.stderr


@pytest.mark.parametrize("value", ["abc", "1e400", "0", "-5s"])
def test_a_connect_timeout_that_is_no_duration_is_one_line(ref: Path, value: str) -> None:
    """Refused before anything is read or connected to (port 1: nothing listens there)."""
    proc = index(ref, "dask=tcp://127.0.0.1:1", TFDBG_TUI_DASK_TIMEOUT=value)
    assert "TFDBG_TUI_DASK_TIMEOUT" in proc.stderr and repr(value) in proc.stderr, proc.stderr
