"""The index cache in a folder others can write, or one the user already had (issue 21,
points 3, 6 and 7): it deletes only what it made, trusts only what this user wrote, checks a
file rewritten in place, and shrugs off junk descriptions.

The planted files are what another user would leave: the tests run as root, so "another
user's file" is a real file `os.chown`ed to another uid (`OTHER`), not a pretence; as a
non-root user the chown is impossible and those tests skip. The logdir is a real TensorFlow
run (four times its records, as in test_cache.py); every reopened index is compared with a
fresh read.
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

from reader import DebugLogdir, open_logdir

BIG = ("graph_execution_traces", "execution")
OTHER = 54321  # a uid that is not ours
OLD = 1_600_000_000  # a modification time far in the past (older than any grace period)


@pytest.fixture
def logdir(make_tf_logdir: Callable[..., str], tmp_path: Path) -> Path:
    d = tmp_path / "ld"
    shutil.copytree(make_tf_logdir("mixed", "FULL_HEALTH"), d)
    for suffix in BIG:
        (path,) = d.glob(f"*.{suffix}")
        path.write_bytes(path.read_bytes() * 4)
    return d


def use_cache(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(root))
    monkeypatch.setenv("TFDBG_TUI_CACHE_MIN_BYTES", "0")


def reopen(d: Path) -> tuple[dict, int]:
    logdir = DebugLogdir(str(d), cache=True)
    stats = logdir.update()
    return snapshot(logdir), stats.bytes_read


def big_bytes(d: Path) -> int:
    logdir = open_logdir(str(d))
    return sum(logdir.file_cursor(0, s).offset for s in BIG)


def needs_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("planting another user's files needs root (os.chown)")


def tree(d: Path) -> dict[str, bytes | str]:
    """Everything under `d`: file contents, symlink targets, folders."""
    out: dict[str, bytes | str] = {}
    for p in sorted(d.rglob("*")):
        key = str(p.relative_to(d))
        out[key] = (f"-> {os.readlink(p)}" if p.is_symlink() else "dir" if p.is_dir()
                    else p.read_bytes())
    return out


def age(d: Path) -> None:
    for p in [d, *d.rglob("*")]:
        os.utime(p, (OLD, OLD), follow_symlinks=False)


# ---------------------------------------------------------------- point 3: deletes only its own
def test_a_planted_v1_symlink_in_a_shared_folder_deletes_nothing(
        tmp_path: Path, logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    needs_root()
    shared, victim = tmp_path / "shared", tmp_path / "victim" / "x"
    shared.mkdir()
    shared.chmod(0o1777)
    for sub in ("thesis", "photos"):
        (victim / sub).mkdir(parents=True)
        (victim / sub / "keep.txt").write_text(sub)
    age(victim)
    before = tree(victim)
    (shared / "v1").symlink_to(victim)
    os.lchown(shared / "v1", OTHER, OTHER)  # another user planted it
    use_cache(monkeypatch, shared)
    again, read = reopen(logdir)  # the save that used to rmtree the "orphans"
    assert tree(victim) == before
    assert read == big_bytes(logdir)
    assert_same(again, snapshot(open_logdir(str(logdir))))


def test_a_users_own_v1_folder_keeps_its_content(
        tmp_path: Path, logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "projects"
    (root / "v1" / "notes").mkdir(parents=True)
    (root / "v1" / "notes" / "a.md").write_text("mine")
    (root / "v1" / "draft.json").write_text("{}")
    age(root)
    before = tree(root)
    use_cache(monkeypatch, root)
    from reader.cache.store import Store

    reopen(logdir)
    reopen(logdir)
    Store().clear()  # `tfdbg-tui cache clear` too
    assert tree(root) == before
    store = Store()
    store.info()
    assert store.problem is not None and "did not write" in store.problem


def test_clear_leaves_what_it_did_not_make_in_a_folder_named_like_its_own(
        tmp_path: Path, logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reader.cache.store import Store

    root = tmp_path / "cache"
    use_cache(monkeypatch, root)
    reopen(logdir)
    (folder,) = [p for p in (root / "v1").iterdir() if p.is_dir()]
    (folder / "mine.txt").write_text("keep")  # not a column: the folder is not all ours
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.npy").write_bytes(b"keep")
    (folder / "link.npy").symlink_to(outside / "keep.npy")
    Store().clear()
    assert (folder / "mine.txt").read_text() == "keep"
    assert (outside / "keep.npy").read_bytes() == b"keep"
    assert not list(folder.glob("traces.*.npy"))  # its own columns went


# ---------------------------------------------------------------- point 6: trusts only its own
def _plant_no_alerts(root: Path) -> None:
    """Rewrite the entry so it says the run has no alerts (what a planter wants CI to see)."""
    (desc_path,) = (root / "v1").glob("*.json")
    desc = json.loads(desc_path.read_text())
    desc["rows"]["alerts"] = 0
    desc_path.write_text(json.dumps(desc))
    for npy in (root / "v1" / desc["folder"]).glob("alerts.*.npy"):
        np.save(npy, np.load(npy)[:0])


def _chown_tree(d: Path, mode: int | None = None) -> None:
    for p in [d, *d.rglob("*")]:
        os.lchown(p, OTHER, OTHER)
        if mode is not None and p.is_dir():
            p.chmod(mode)


def test_an_entry_written_by_another_user_is_not_trusted(
        tmp_path: Path, logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    needs_root()
    root = tmp_path / "cache"
    use_cache(monkeypatch, root)
    reopen(logdir)
    _plant_no_alerts(root)
    for p in (root / "v1").rglob("*"):
        if p.name != "CACHEDIR.TAG":
            os.lchown(p, OTHER, OTHER)
    again, read = reopen(logdir)
    fresh = snapshot(open_logdir(str(logdir)))
    assert read == big_bytes(logdir)
    assert_same(again, fresh)
    assert len(fresh["alerts.kind"]), "the run has alerts: the check above must be able to fail"


def test_a_v1_folder_of_another_user_is_not_used(
        tmp_path: Path, logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    needs_root()
    mine, shared = tmp_path / "mine", tmp_path / "shared"
    use_cache(monkeypatch, mine)
    reopen(logdir)
    _plant_no_alerts(mine)
    shared.mkdir()
    shared.chmod(0o1777)
    shutil.copytree(mine / "v1", shared / "v1")
    _chown_tree(shared / "v1", 0o777)  # another user's folder, open to all
    age(shared / "v1")
    before = tree(shared / "v1")
    use_cache(monkeypatch, shared)
    again, read = reopen(logdir)
    assert read == big_bytes(logdir)
    assert_same(again, snapshot(open_logdir(str(logdir))))
    assert tree(shared / "v1") == before  # neither used nor deleted nor written


@pytest.mark.parametrize("how", ["same_size_mtime_restored", "rewritten_and_grown"])
def test_a_file_rewritten_in_place_is_not_served_stale(
        tmp_path: Path, logdir: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    use_cache(monkeypatch, tmp_path / "cache")
    reopen(logdir)
    (path,) = logdir.glob("*.graph_execution_traces")
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01  # neither the first nor the last 4 KiB
    with open(path, "r+b") as f:  # in place: same inode
        f.write(bytes(data))
        if how == "rewritten_and_grown":
            f.write(bytes(data[: len(data) // 4]))
    if how == "same_size_mtime_restored":
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_ino == st.st_ino
    again, read = reopen(logdir)
    assert read == big_bytes(logdir)  # nothing reused
    assert_same(again, snapshot(open_logdir(str(logdir))))


# ---------------------------------------------------------------- point 7: junk is ignored
JUNK = {"size_text": b'{"size": "abc", "folder": "x"}', "huge_number": b"1e999",
        "list": b"[1]", "deep": b"[" * 100_000, "size_inf": b'{"size": 1e999}',
        "not_utf8": b"\xff\xfe{", "nested_rows": b'{"rows": {"total": 1e999}, "size": -5}'}


def tfdbg(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_junk_descriptions_are_ignored_and_replaced(
        tmp_path: Path, logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "cache"
    use_cache(monkeypatch, root)
    reopen(logdir)
    (desc_path,) = (root / "v1").glob("*.json")
    key = desc_path.stem
    os.utime(desc_path, (1e17, 1e17))  # a last use in the year 3 billion
    for i, body in enumerate(JUNK.values()):
        (root / "v1" / f"{i:032x}.json").write_bytes(body)
    huge = root / "v1" / f"{99:032x}.json"
    with open(huge, "wb") as f:  # 120 MB, sparse: over the size cap, no disk used
        f.truncate(120 << 20)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    shown = tfdbg(env, "cache")
    assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
    assert len(shown.stderr.splitlines()) <= 1
    for body in JUNK.values():  # each in turn as the logdir's own entry
        desc_path.write_bytes(body)
        again, read = reopen(logdir)
        assert read == big_bytes(logdir)
        assert_same(again, snapshot(open_logdir(str(logdir))))
        assert json.loads((root / "v1" / f"{key}.json").read_bytes())["logdir"] == str(logdir)
    report = tfdbg(env, "report", str(logdir))
    assert report.returncode == 1 and "Traceback" not in report.stderr  # alerts found
    assert not huge.exists()  # junk goes with the next save: counted and evicted
    assert not list((root / "v1").glob(f"{0:032x}.json"))


def test_the_cache_works_under_a_group_writable_umask(
        tmp_path: Path, logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """umask 002 (user private groups) must not make the cache's own files look foreign."""
    use_cache(monkeypatch, tmp_path / "cache")
    old = os.umask(0o002)
    try:
        reopen(logdir)
        assert reopen(logdir)[1] == 0  # the second open came from the cache
    finally:
        os.umask(old)
