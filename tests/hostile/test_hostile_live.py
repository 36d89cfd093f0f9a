"""A logdir that changes under the reader: rewritten, replaced, truncated, joined by odd file
sets — and an app whose follow worker meets an error it did not expect.

Following must never mix two runs' records, must say what happened (a warning naming the
file), and must never die silently: an unexpected error is shown and makes the exit status
non-zero.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hostile.checks import assert_no_raw_controls
from support.slowdown import WAIT
from support.tui import (
    add_step,
    record_notifications,
    start_reference,
    sync,
    write_reference,
)

from reader import DebugLogdir, open_logdir

# Behaviours that are still wrong, with the reason (see the findings notes).
XFAIL: dict[str, str] = {}


def xfail(name: str) -> Any:
    if name in XFAIL:
        return pytest.mark.xfail(strict=True, reason=XFAIL[name])
    return lambda fn: fn


def traces_file(d: Path) -> Path:
    (path,) = d.glob("*.graph_execution_traces")
    return path


def other_run(d: Path, steps: int) -> bytes:
    """The traces file of a different, longer run (its first record differs)."""
    ref = start_reference(d)
    ref.wall += 500.0
    for step in range(steps):
        add_step(ref, step, bad=True)
    ref.writer.close()
    return traces_file(d).read_bytes()


@xfail("rewritten_in_place")
def test_file_rewritten_in_place_and_longer_is_not_mixed(tmp_path: Path) -> None:
    write_reference(tmp_path / "ld")
    logdir = open_logdir(str(tmp_path / "ld"))
    before = len(logdir.traces)
    path = traces_file(tmp_path / "ld")
    new = other_run(tmp_path / "other", steps=4)
    assert len(new) > path.stat().st_size
    with open(path, "r+b") as f:  # same inode, new content, longer
        f.write(new)
    logdir.update()
    assert len(logdir.traces) == before  # nothing of the other run is mixed in
    assert any(path.name in w and "rewritten" in w for w in logdir.warnings), logdir.warnings


@xfail("replaced_by_rename")
def test_file_replaced_by_rename_is_not_mixed(tmp_path: Path) -> None:
    write_reference(tmp_path / "ld")
    logdir = open_logdir(str(tmp_path / "ld"))
    before = len(logdir.traces)
    path = traces_file(tmp_path / "ld")
    fresh = tmp_path / "fresh"
    fresh.write_bytes(other_run(tmp_path / "other", steps=4))
    os.replace(fresh, path)  # a new inode under the old name
    logdir.update()
    assert len(logdir.traces) == before
    assert any(path.name in w and ("replaced" in w or "rewritten" in w)
               for w in logdir.warnings), logdir.warnings


def test_truncated_file_is_reported(tmp_path: Path) -> None:
    write_reference(tmp_path / "ld")
    logdir = open_logdir(str(tmp_path / "ld"))
    path = traces_file(tmp_path / "ld")
    with open(path, "r+b") as f:
        f.truncate(10)
    logdir.update()
    assert any(path.name in w for w in logdir.warnings), logdir.warnings


@xfail("unicode_digit_live")
def test_odd_file_set_appearing_live_does_not_stop_following(tmp_path: Path) -> None:
    d = tmp_path / "ld"
    ref = start_reference(d)
    add_step(ref, 0, bad=False)
    logdir = open_logdir(str(d))
    (meta,) = d.glob("*.metadata")
    shutil.copy(meta, d / "tfdbg_events.\u00b2.host.metadata")
    (d / "tfdbg_events.\u00b2.host.execution").write_bytes(b"")
    logdir.update()  # must not raise
    add_step(ref, 1, bad=True)
    ref.writer.close()
    logdir.update()
    assert len(logdir.traces) == 10


# --------------------------------------------------------------------- the app
async def until(pilot: Any, cond: Callable[[], bool], timeout: float = WAIT) -> None:
    """Let the app run until `cond()` holds (looked at every 50 ms); fail after `timeout`
    seconds, a hang guard."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            pytest.fail("condition not reached in time")
        await pilot.pause(0.05)


@pytest.mark.parametrize("notify", [True, False], ids=["notifications", "polling"])
@sync
async def test_app_shows_truncation_while_following(tmp_path: Path, notify: bool) -> None:
    from tfdbg_tui.ui.app import TfdbgApp

    d = tmp_path / "ld"
    write_reference(d)
    path = traces_file(d)
    app = TfdbgApp(DebugLogdir(str(d)), follow=True, poll_interval=0.05, notify=notify)
    said = record_notifications(app)
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await asyncio.wait_for(app.indexed.wait(), WAIT)
        await pilot.pause()
        assert not any(path.name in m for m in said)  # a clean logdir
        with open(path, "r+b") as f:
            f.truncate(10)
        await until(pilot, lambda: any(path.name in m for m in said))
        for m in said:
            assert_no_raw_controls(m, "notification")
        app.exit()
    assert app.return_code in (None, 0)


@xfail("tui_unicode_digit_live")
@sync
async def test_app_keeps_following_past_an_odd_file_set(tmp_path: Path) -> None:
    from tfdbg_tui.ui.app import TfdbgApp

    d = tmp_path / "ld"
    ref = start_reference(d)
    add_step(ref, 0, bad=False)
    app = TfdbgApp(DebugLogdir(str(d)), follow=True, poll_interval=0.05)
    try:
        async with app.run_test(size=(160, 48), notifications=True):
            await app.wait_for_data(lambda s: not s.indexing, timeout=WAIT)
            (meta,) = d.glob("*.metadata")
            shutil.copy(meta, d / "tfdbg_events.\u00b2.host.metadata")
            add_step(ref, 1, bad=True)
            await app.wait_for_data(lambda s: s.traces == 10, timeout=WAIT)
            app.exit()
    finally:
        ref.writer.close()


class _FailingLogdir(DebugLogdir):
    """Fault injection: the second `update()` fails with an error the reader never raises."""

    calls = 0

    def update(self, progress: Any = None) -> Any:
        self.calls += 1
        if self.calls == 2:
            raise RuntimeError("injected failure")
        return super().update(progress)


@sync
async def test_unexpected_follow_error_is_shown_and_exit_status_nonzero(tmp_path: Path) -> None:
    from tfdbg_tui.ui.app import TfdbgApp

    d = tmp_path / "ld"
    write_reference(d)
    app = TfdbgApp(_FailingLogdir(str(d)), follow=True, poll_interval=0.05)
    said = record_notifications(app)
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await asyncio.wait_for(app.indexed.wait(), WAIT)
        await until(pilot, lambda: any("injected failure" in m for m in said))
        header = str(app.main.query_one("#header-line").render())  # type: ignore[union-attr]
        assert "● live" not in header and "reading stopped" in header, header
        await pilot.press("q")
    assert app.return_code not in (None, 0)

