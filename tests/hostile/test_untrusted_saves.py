"""`w` and `s` write only inside their folder, replace nothing, and leave nothing half-written
(issue 21, points 2, 5 and 10).

The save folder may hold things someone else planted (a shared working directory, a
colleague's `tfdbg-sources/`), and the names come from an untrusted logdir. Each test plants
what an attacker or an unlucky day would, calls the real save functions, and looks at the
file system afterwards: the file outside is untouched, nothing was created outside, the user's
edited copy is still there, and a full disk (a real 64 KiB tmpfs) leaves no file behind.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from support.guess import GUESSED, predictable_tokens

from reader.values.save import save_npy
from tfdbg_tui.core.editor import save_source, snapshot_path

SOURCE = ["import tensorflow as tf", "x = tf.math.log(tf.zeros([3]))"]


def test_a_symlink_planted_at_a_temporary_name_is_not_written_through(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base, outside = tmp_path / "saved", tmp_path / "victim.txt"
    outside.write_text("keep")
    target = Path(snapshot_path("/p/train.py", str(base)))
    target.parent.mkdir(parents=True)
    # the names a writer might pick for its temporary: the old `<name>.tmp-<pid>`, a few
    # others, and the very name it picks first (its random token made known: `support.guess`)
    predictable_tokens(monkeypatch)
    picked = f".{target.name}.tmp-{GUESSED}"
    for name in (f"{target.name}.tmp-{os.getpid()}", f".{target.name}.tmp", "train.py.tmp",
                 picked):
        (target.parent / name).symlink_to(outside)
    saved = save_source("/p/train.py", SOURCE, str(base))
    assert outside.read_text() == "keep"
    assert Path(saved.path).read_text().splitlines() == SOURCE
    assert not Path(saved.path).is_symlink()
    assert (target.parent / picked).is_symlink()  # tried, passed over, left as it was


def test_a_symlinked_folder_does_not_lead_outside(tmp_path: Path) -> None:
    base, outside = tmp_path / "saved", tmp_path / "elsewhere"
    base.mkdir()
    outside.mkdir()
    (base / "home").symlink_to(outside)  # planted: `/home/...` would be created in `elsewhere`
    with pytest.raises(OSError) as caught:
        save_source("/home/user/project/train.py", SOURCE, str(base))
    assert "\n" not in str(caught.value)
    assert list(outside.iterdir()) == [], "a folder was created outside the save folder"


def test_an_edited_copy_is_never_replaced(tmp_path: Path) -> None:
    base = tmp_path / "saved"
    first = save_source("/p/train.py", SOURCE, str(base))
    Path(first.path).write_text("# my fix\n")  # the user edits the saved copy
    again = save_source("/p/train.py", [*SOURCE, "print(x)"], str(base))
    assert Path(first.path).read_text() == "# my fix\n"
    assert again.path != first.path and again.beside == first.path
    assert Path(again.path).read_text().splitlines() == [*SOURCE, "print(x)"]
    same = save_source("/p/train.py", [*SOURCE, "print(x)"], str(base))
    assert same.already and same.path == again.path  # saving twice writes no third copy


@pytest.mark.parametrize("a, b", [("/p/模型.py", "/p/数据.py"),
                                  ("/p/train (1).py", "/p/train [1].py"),
                                  ("/p/a?.py", "/p/a*.py"), ("/p/.env.py", "/p/_.env.py"),
                                  ("/p/" + "x" * 300 + "1.py", "/p/" + "x" * 300 + "2.py")])
def test_distinct_paths_get_distinct_copies(tmp_path: Path, a: str, b: str) -> None:
    base = tmp_path / "saved"
    one = save_source(a, ["# a"], str(base))
    two = save_source(b, ["# b"], str(base))
    assert one.path != two.path
    assert Path(one.path).read_text() == "# a\n" and Path(two.path).read_text() == "# b\n"
    assert one.beside is None and two.beside is None  # apart by name, not by the fallback
    for p in (one.path, two.path):
        assert Path(p).resolve().is_relative_to(base.resolve())


def test_a_save_folder_through_another_users_symlink_is_refused(tmp_path: Path) -> None:
    """TFDBG_TUI_SAVE_DIR=/tmp/saves, where another user planted `saves` -> a folder of
    theirs (to read what you save, or to put files where they chose): nothing is written."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (shared / "saves").symlink_to(theirs)
    try:
        os.lchown(shared / "saves", 12345, 12345)
    except PermissionError:
        pytest.skip("giving a symlink to another user needs root")
    with pytest.raises(OSError, match="symlink made by another user"):
        save_source("/p/train.py", SOURCE, str(shared / "saves"))
    with pytest.raises(OSError, match="symlink made by another user"):
        save_npy(np.arange(4.0), "Log:0", str(shared / "saves"))
    assert list(theirs.iterdir()) == []


def test_s_never_writes_through_a_planted_symlink(tmp_path: Path) -> None:
    base, outside = tmp_path / "saved", tmp_path / "victim.npy"
    base.mkdir()
    outside.write_bytes(b"keep")
    (base / "Log_0.npy").symlink_to(outside)
    path = save_npy(np.arange(4.0), "Log:0", str(base))
    assert outside.read_bytes() == b"keep"
    assert np.load(path).tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 64 KiB tmpfs: writes past it fail with ENOSPC, as on a full disk."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if not p.is_dir())


def test_w_on_a_full_disk_leaves_no_partial_file(full_disk: Path) -> None:
    big = ["x = 1  # " + "y" * 90] * 2000  # 200 KB: more than the disk holds
    with pytest.raises(OSError):
        save_source("/p/train.py", big, str(full_disk))
    assert _files(full_disk) == []


def test_s_on_a_full_disk_leaves_no_truncated_npy(full_disk: Path) -> None:
    with pytest.raises(OSError):
        save_npy(np.zeros(50_000), "Log:0", str(full_disk))
    assert _files(full_disk) == []
    small = save_npy(np.zeros(10), "Log:0", str(full_disk))  # the disk still works
    assert _files(full_disk) == [Path(small).name]


def test_a_planted_default_folder_symlink_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a shared working directory, `./tfdbg-sources` may be someone else's symlink; the
    folder the user chose (`TFDBG_TUI_SAVE_DIR`) may be a symlink of their own."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (work / "tfdbg-sources").symlink_to(outside)
    monkeypatch.chdir(work)
    monkeypatch.delenv("TFDBG_TUI_SAVE_DIR", raising=False)
    with pytest.raises(OSError, match="TFDBG_TUI_SAVE_DIR"):
        save_source("/p/train.py", SOURCE)
    assert list(outside.iterdir()) == []
    monkeypatch.setenv("TFDBG_TUI_SAVE_DIR", str(work / "tfdbg-sources"))
    saved = save_source("/p/train.py", SOURCE)
    assert (outside / "p" / "train.py").read_text().splitlines() == SOURCE
    assert saved.path == str(work / "tfdbg-sources" / "p" / "train.py")
