"""Held-out cases, round 5 (issue 30's acceptance: "others like them"): a logdir file that is
a FIFO — standing for anything whose mere opening does something (a tape device rewinds on
open, a watchdog device arms, a FIFO lets its writer through) — met by the code that hashes
files (the index cache's and the shards' identities) and re-reads records by offset.

Expected, written before the run: such a file is never opened at all — `stat` first, as
`reader.io.regular` promises ("opens a file only after stat says it is regular") — and the
command goes on without it (exit 0/1, no traceback). The kernel says whether anything opened
it: an inotify watch on the FIFO (IN_OPEN is queued by every open, blocking or not).

Found broken: `report` of a logdir big enough to be cached (here the cache's floor set to 0)
and `tfdbg-tui index` opened each such file (non-blocking, then found it was not regular):
the index cache's and the shards' identities (`reader/cache/identity.py`) opened before
they looked.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT
from support.tui import write_reference

IN_OPEN = 0x20

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")


@contextmanager
def opens_of(path: Path) -> Iterator[list[bool]]:
    """Whether anything opened `path` during the block (the list's one item, set after)."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    assert fd >= 0, os.strerror(ctypes.get_errno())
    got = [False]
    try:
        assert libc.inotify_add_watch(fd, os.fsencode(path), IN_OPEN) >= 0
        yield got
        try:
            got[0] = bool(os.read(fd, 1 << 16))
        except BlockingIOError:
            got[0] = False
    finally:
        os.close(fd)


@pytest.mark.parametrize("suffix", ["execution", "source_files", "graph_execution_traces"])
@pytest.mark.parametrize("command", ["report-cached", "index"])
def test_a_fifo_in_the_logdir_is_never_opened(tmp_path: Path, suffix: str,
                                              command: str) -> None:
    d = tmp_path / "ld"
    write_reference(d)
    (victim,) = d.glob(f"*.{suffix}")
    victim.unlink()
    os.mkfifo(victim)
    args = (["report", str(d)] if command == "report-cached"
            else ["index", str(d), "--workers", "1", "--out", str(tmp_path / "shards")])
    env = {**child_env(), "TFDBG_TUI_CACHE_MIN_BYTES": "0",
           "TFDBG_TUI_CACHE_DIR": str(tmp_path / "cache")}
    with opens_of(victim) as opened:
        proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                              text=True, cwd=ROOT, env=env, timeout=HANG_GUARD)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode in (0, 1), (proc.returncode, proc.stderr)
    assert not opened[0], f"{command} opened the FIFO {victim.name}"
