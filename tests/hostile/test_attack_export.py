"""Held-out cases, round 5 (issue 30's acceptance: "others like them"): `export` into an
OUT_DIR whose lock another process holds (anyone who can read a shared folder can take it:
`flock /tmp/exports sleep infinity`), and an export ended by SIGTERM or SIGHUP (`kill`,
`timeout`, a closed terminal) while its tables are written.

Expected, written before the run: a held lock is waited for, said once on stderr, and the
export completes when it is let go — or, held longer than the export waits, one line and
nothing replaced; a signalled export leaves OUT_DIR exactly as it was (no `.NAME.tmp-…`
file) and ends with the status a shell shows for that signal (128 + its number).

Found broken: the export waited on the lock for ever, silently; killed meanwhile (SIGTERM,
SIGHUP), it left its six temporaries in OUT_DIR.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT
from support.tui import write_reference

from tfdbg_tui.commands import export
from tfdbg_tui.commands.export import out


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("attack-export") / "ld"
    write_reference(d)
    return d


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """OUT_DIR's lock, held by this process (as another user's `flock` would)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def start(ref: Path, folder: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "tfdbg_tui", "export", str(ref),
                             str(folder)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=ROOT, env=child_env())


def wait_for_line(proc: subprocess.Popen[bytes], words: str) -> str:
    """The first stderr line holding `words` (the test fails if none comes in the guard)."""
    assert proc.stderr is not None
    deadline = time.monotonic() + HANG_GUARD
    got = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], 1.0)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 1 << 16)
            if not chunk:
                break
            got += chunk
            for line in got.decode("utf-8", "replace").splitlines():
                if words in line:
                    return line
    proc.kill()
    proc.wait()
    pytest.fail(f"no stderr line with {words!r}; got {got[-2000:]!r}")


def test_a_held_lock_is_waited_for_and_said(ref: Path, tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    with locked(folder):
        proc = start(ref, folder)
        line = wait_for_line(proc, "waiting for")
        assert str(folder) in line and "lock" in line, line
        assert not any(p.name.endswith(".parquet") for p in folder.iterdir())  # not before
    _, err = proc.communicate(timeout=HANG_GUARD)
    assert proc.returncode == 0, err
    assert {"report.json", "executions.parquet", "alerts.parquet"} <= set(files(folder))
    assert not [p for p in folder.iterdir() if ".tmp-" in p.name]


def test_a_lock_held_too_long_is_one_line_and_replaces_nothing(
        ref: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """In this process, the wait made 0 s (not 120): the line names OUT_DIR, exit 2, the
    previous export as it was."""
    folder = tmp_path / "out"
    assert export.main([str(ref), str(folder)]) == 0
    before = files(folder)
    capsys.readouterr()
    monkeypatch.setattr(out, "LOCK_WAIT", 0.0)
    with locked(folder):
        assert export.main([str(ref), str(folder)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "waiting for" in err[0], err
    assert str(folder) in err[1] and "held its lock" in err[1], err
    assert files(folder) == before


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signalled_export_leaves_out_dir_as_it_was(ref: Path, tmp_path: Path,
                                                     sig: signal.Signals) -> None:
    """Signalled while its tables are written and waiting to replace the previous export
    (the lock held here is what keeps it there): OUT_DIR holds the previous export only."""
    folder = tmp_path / "out"
    first = start(ref, folder)
    first.communicate(timeout=HANG_GUARD)
    assert first.returncode == 0
    before = files(folder)
    with locked(folder):
        proc = start(ref, folder)
        wait_for_line(proc, "waiting for")
        assert [p for p in folder.iterdir() if ".tmp-" in p.name]  # its temporaries
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=HANG_GUARD)
    assert proc.returncode == 128 + sig, (proc.returncode, err)
    assert b"Traceback" not in err, err
    assert files(folder) == before
