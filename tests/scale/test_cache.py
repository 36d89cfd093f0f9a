"""The persistent index cache: hits, invalidation, growth, concurrent opens, damage, eviction.

Every reopened index is compared in full with a fresh read of the same files, and whether the
big files were read again is seen from `UpdateStats.bytes_read` (0 on a hit).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from scale_support import assert_same, snapshot
from support.paths import ROOT
from support.slowdown import guard

from reader import open_logdir
from reader.cache.store import Store

BIG = ("graph_execution_traces", "execution")


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(d))
    monkeypatch.setenv("TFDBG_TUI_CACHE_MIN_BYTES", "0")
    return d


@pytest.fixture
def logdir(make_tf_logdir: Callable[..., str], tmp_path: Path) -> Path:
    """A real run whose big files hold the run's records four times over."""
    d = tmp_path / "ld"
    shutil.copytree(make_tf_logdir("mixed", "FULL_HEALTH"), d)
    for suffix in BIG:
        path = one(d, suffix)
        path.write_bytes(path.read_bytes() * 4)
    return d


def one(d: Path, suffix: str) -> Path:
    (path,) = d.glob(f"*.{suffix}")
    return path


def big_bytes(d: Path) -> int:
    """The bytes of the big files a fresh read consumes (all but damage and partial tails)."""
    logdir = open_logdir(str(d))
    return sum(logdir.file_cursor(0, s).offset for s in BIG)


def reopen(d: Path) -> tuple[dict, int]:
    """(snapshot, big-file bytes read) of opening `d` with the cache."""
    from reader import DebugLogdir

    logdir = DebugLogdir(str(d), cache=True)
    stats = logdir.update()
    return snapshot(logdir), stats.bytes_read


def fresh(d: Path) -> dict:
    return snapshot(open_logdir(str(d)))


def entries(cache_dir: Path) -> list[Path]:
    return sorted((cache_dir / "v1").glob("*.json"))


def test_reopen_unchanged_reads_nothing(cache_dir: Path, logdir: Path) -> None:
    first, read1 = reopen(logdir)
    assert read1 == big_bytes(logdir)
    assert len(entries(cache_dir)) == 1
    second, read2 = reopen(logdir)
    assert read2 == 0  # everything came from the cache
    assert_same(second, fresh(logdir))
    assert_same(second, first)


def test_small_logdirs_are_not_cached(logdir: Path, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("TFDBG_TUI_CACHE_MIN_BYTES", str(big_bytes(logdir) + 1))
    reopen(logdir)
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("change", ["rewritten", "shrunk", "replaced", "first_record"])
def test_changed_file_is_read_again(cache_dir: Path, logdir: Path, change: str) -> None:
    reopen(logdir)
    path = one(logdir, "graph_execution_traces")
    data = bytearray(path.read_bytes())
    if change == "rewritten":  # same size, one payload byte different, new mtime
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))
        os.utime(path, ns=(1, 1))
    elif change == "shrunk":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif change == "replaced":  # same bytes, another file
        path.unlink()
        path.write_bytes(bytes(data))
    else:  # the start changed and the file grew: not an append
        data[20] ^= 0x01
        path.write_bytes(bytes(data) + bytes(data[:100]))
    again, read = reopen(logdir)
    assert read == big_bytes(logdir)  # nothing reused
    assert_same(again, fresh(logdir))
    # ... and the entry now describes the new files
    assert reopen(logdir)[1] == 0


def test_grown_logdir_reads_only_new_bytes(cache_dir: Path, logdir: Path) -> None:
    full = {s: one(logdir, s).read_bytes() for s in BIG}
    cut = {s: len(b) // 2 + 7 for s, b in full.items()}  # mid-record
    for s in BIG:
        one(logdir, s).write_bytes(full[s][: cut[s]])
    _, read = reopen(logdir)
    consumed_before = read
    for s in BIG:
        one(logdir, s).write_bytes(full[s])
    grown, read = reopen(logdir)
    assert read == big_bytes(logdir) - consumed_before  # only what was not read before
    assert_same(grown, fresh(logdir))


def test_concurrent_opens(cache_dir: Path, logdir: Path) -> None:
    """Two processes opening the same logdir at once both get the full index; the cache
    ends with one usable entry."""
    script = (
        "import sys, json\n"
        "from reader import DebugLogdir\n"
        "sys.stdin.readline()\n"  # both wait here until the test says go
        "d = DebugLogdir(sys.argv[1], cache=True); s = d.update()\n"
        "print(json.dumps([len(d.traces), len(d.executions), d.num_alerts,"
        " float(d.traces.wall_time.sum())]))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [subprocess.Popen([sys.executable, "-c", script, str(logdir)], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    outs = [p.communicate(timeout=guard(120))[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    expected = fresh(logdir)
    for out in outs:
        n_traces, n_exec, n_alerts, walls = json.loads(out)
        assert (n_traces, n_exec) == (len(expected["traces.offset"]),
                                      len(expected["executions.offset"]))
        assert n_alerts == len(expected["alerts.kind"])
        assert walls == pytest.approx(float(expected["traces.wall_time"].sum()))
    assert len(entries(cache_dir)) == 1
    again, read = reopen(logdir)
    assert read == 0
    assert_same(again, expected)


def _entry_folder(cache_dir: Path) -> Path:
    (desc,) = entries(cache_dir)
    return cache_dir / "v1" / json.loads(desc.read_text())["folder"]


def _damage(cache_dir: Path, how: str) -> None:
    folder = _entry_folder(cache_dir)
    npy = folder / "traces.kinds.op_name.npy"
    (desc_path,) = entries(cache_dir)
    if how == "truncated_column":
        npy.write_bytes(npy.read_bytes()[:-3])
    elif how == "wrong_dtype":
        a = np.load(npy)
        np.save(npy, a.astype("<i8"))
    elif how == "out_of_range_id":
        a = np.load(npy)
        a[len(a) // 2] = 10**6
        np.save(npy, a)
    elif how == "negative_output":
        a = np.load(folder / "executions.first_output.npy")
        a[-1] = -5
        np.save(folder / "executions.first_output.npy", a)
    elif how == "pickled_column":
        np.save(npy, np.array([object()] * 3), allow_pickle=True)
    elif how == "garbage_column":
        npy.write_bytes(b"\x93NUMPY garbage" * 10)
    elif how == "column_is_fifo":
        npy.unlink()
        os.mkfifo(npy)
    elif how == "column_is_symlink":
        npy.unlink()
        npy.symlink_to("/dev/zero")
    elif how == "missing_folder":
        shutil.rmtree(folder)
    elif how == "bad_json":
        desc_path.write_text("{not json")
    elif how == "json_wrong_types":
        desc = json.loads(desc_path.read_text())
        desc["rows"] = "many"
        desc["strings"] = {"a": 1}
        desc_path.write_text(json.dumps(desc))
    elif how == "folder_escape":
        desc = json.loads(desc_path.read_text())
        desc["folder"] = "../../etc"
        desc_path.write_text(json.dumps(desc))
    elif how == "wrong_row_count":
        desc = json.loads(desc_path.read_text())
        desc["rows"]["traces"] += 1
        desc_path.write_text(json.dumps(desc))
    elif how == "other_code_version":  # written before a fix to how records are read
        desc = json.loads(desc_path.read_text())
        desc["code"] = "0" * 16
        desc_path.write_text(json.dumps(desc))


@pytest.mark.parametrize("how", ["truncated_column", "wrong_dtype", "out_of_range_id",
                                 "negative_output", "pickled_column", "garbage_column",
                                 "column_is_fifo", "column_is_symlink", "missing_folder",
                                 "bad_json", "json_wrong_types", "folder_escape",
                                 "wrong_row_count", "other_code_version"])
def test_damaged_cache_is_read_again(cache_dir: Path, logdir: Path, how: str) -> None:
    reopen(logdir)
    _damage(cache_dir, how)
    again, read = reopen(logdir)
    assert read == big_bytes(logdir)
    assert_same(again, fresh(logdir))
    assert reopen(logdir)[1] == 0  # a good entry replaced the damaged one


def test_least_recently_used_entries_are_evicted(cache_dir: Path, logdir: Path,
                                                 tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "other"
    shutil.copytree(logdir, other)
    reopen(logdir)
    (desc,) = entries(cache_dir)
    size = json.loads(desc.read_text())["size"]
    monkeypatch.setenv("TFDBG_TUI_CACHE_MAX_BYTES", str(int(size * 1.5)))
    reopen(other)  # does not fit beside the first: the first goes
    infos = Store(cache_dir).info()
    assert [i.logdir for i in infos] == [str(other)]
    assert reopen(logdir)[1] == big_bytes(logdir)  # evicted: read again, and cached again
    assert [i.logdir for i in Store(cache_dir).info()] == [str(logdir)]


def test_cache_bigger_than_the_cap_is_not_written(cache_dir: Path, logdir: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFDBG_TUI_CACHE_MAX_BYTES", "1000")
    reopen(logdir)
    assert entries(cache_dir) == []
    assert reopen(logdir)[1] == big_bytes(logdir)
