"""Following a logdir being written: `ChangeWatcher.wait()` wakes on new records, through
file-system notifications and through polling, and the next `update()` shows them."""

from __future__ import annotations

import itertools
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from reader import open_logdir
from reader.io.tfrecord import ScanState, scan_records
from reader.io.watch import ChangeWatcher, fs_type

WAIT = 60.0  # a bound that fails the test, never a pace


@pytest.fixture
def half_written(make_tf_logdir: Callable[..., str], tmp_path: Path) -> tuple[Path, bytes, int]:
    """(logdir, full trace file bytes, offset of the cut): the traces file holds half."""
    d = tmp_path / "live"
    shutil.copytree(make_tf_logdir("mixed", "FULL_HEALTH"), d)
    (traces,) = d.glob("*.graph_execution_traces")
    full = traces.read_bytes()
    offsets = [off for off, _ in scan_records(full, 0, ScanState())]
    cut = offsets[len(offsets) // 2]
    traces.write_bytes(full[:cut])
    return d, full, cut


def _append(d: Path, data: bytes) -> None:
    (traces,) = d.glob("*.graph_execution_traces")
    with open(traces, "ab") as f:
        f.write(data)


@pytest.mark.parametrize("notify", [True, False], ids=["notifications", "polling"])
def test_wait_wakes_on_new_records(half_written: tuple[Path, bytes, int], notify: bool) -> None:
    d, full, cut = half_written
    logdir = open_logdir(str(d))
    n_before = len(logdir.traces)
    watcher = ChangeWatcher(str(d), notify=notify, poll_interval=0.05, safety_interval=3600)
    try:
        assert watcher.mode == ("notify" if notify else "poll")
        assert watcher.ready.wait(WAIT)
        assert not watcher.wait(0.2)  # nothing changed: it times out
        assert watcher.last_reason == "timeout"
        _append(d, full[cut:])
        assert watcher.wait(WAIT)
        assert watcher.last_reason == ("notify" if notify else "poll")
        stats = logdir.update()
        assert stats.traces == len(logdir.traces) - n_before > 0
        assert len(logdir.traces) == len(open_logdir(str(d)).traces)
    finally:
        watcher.close()


def test_writer_in_another_thread(half_written: tuple[Path, bytes, int]) -> None:
    """A follower loop sees every append a concurrent writer makes, record by record."""
    d, full, cut = half_written
    offsets = [off for off, _ in scan_records(full, 0, ScanState())] + [len(full)]
    pieces = [full[a:b] for a, b in itertools.pairwise(offsets) if a >= cut]
    logdir = open_logdir(str(d))
    watcher = ChangeWatcher(str(d), safety_interval=3600)
    seen = threading.Event()
    assert watcher.ready.wait(WAIT)

    def writer() -> None:
        for piece in pieces:
            _append(d, piece)
            assert seen.wait(WAIT)  # the follower saw it before the next one comes
            seen.clear()

    t = threading.Thread(target=writer)
    t.start()
    try:
        count = len(logdir.traces)
        for _ in pieces:
            while len(logdir.traces) == count:
                assert watcher.wait(WAIT), "no change seen"
                logdir.update()
            assert len(logdir.traces) == count + 1
            count += 1
            seen.set()
    finally:
        t.join(WAIT)
        watcher.close()
    assert len(logdir.traces) == len(open_logdir(str(d)).traces)


def test_close_wakes_a_waiter(tmp_path: Path) -> None:
    watcher = ChangeWatcher(str(tmp_path), notify=False, poll_interval=0.05)
    out: list[bool] = []
    t = threading.Thread(target=lambda: out.append(watcher.wait(3600)))
    t.start()
    watcher.close()
    t.join(WAIT)
    assert out == [False] and watcher.last_reason == "closed"


def test_network_file_systems_are_polled() -> None:
    mountinfo = [
        "22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda rw",
        "40 22 0:40 / /mnt/shared rw,relatime shared:20 - nfs4 srv:/export rw,vers=4.2",
        "41 22 0:41 / /mnt/shared\\040drive rw - cifs //srv/x rw",
    ]
    assert fs_type("/home/me/run", mountinfo) == "ext4"
    assert fs_type("/mnt/shared/run/logdir", mountinfo) == "nfs4"
    assert fs_type("/mnt/shared", mountinfo) == "nfs4"
    assert fs_type("/mnt/shared drive/x", mountinfo) == "cifs"
    assert fs_type("/mnt/sharedfoo", mountinfo) == "ext4"


def test_force_polling_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFDBG_TUI_FORCE_POLLING", "1")
    watcher = ChangeWatcher(str(tmp_path))
    try:
        assert watcher.mode == "poll"
    finally:
        watcher.close()
