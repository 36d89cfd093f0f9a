"""stdout on a full disk (`> /dev/full`): one line on stderr and exit 2, never a traceback
nor exit 1 (which `report` uses for "alerts found", `diff` for "diverge")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT


@pytest.mark.parametrize("command", [["report"], ["report", "--json"], ["diff", "--json"],
                                     ["export"], ["cache"]],
                         ids=["report", "report-json", "diff-json", "export", "cache"])
def test_output_on_a_full_disk_is_one_line_exit_2(reference_logdir: str, tmp_path: Path,
                                                  command: list[str]) -> None:
    args = {"report": [reference_logdir], "diff": [reference_logdir, reference_logdir],
            "export": [reference_logdir, str(tmp_path / "out")], "cache": []}[command[0]]
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *command, *args],
                              stdout=full, stderr=subprocess.PIPE, text=True, env=child_env(),
                              cwd=str(ROOT), timeout=HANG_GUARD)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and "No space left on device" in lines[0], proc.stderr


@pytest.mark.parametrize("leave", [0, 64 << 10], ids=["full", "nearly-full"])
def test_run_on_a_full_disk_says_the_dump_is_incomplete(tmp_path: Path, leave: int) -> None:
    """TensorFlow's writer logs a failed write and goes on: before, `run` said "dump written
    (0.1 KB)" over a logdir missing everything after its first records; on a disk with no
    byte left, its refusal was followed by a traceback from its exit hook."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.decode().strip()}")
    try:
        (mount / "ld").mkdir()
        fd = os.open(mount / "filler", os.O_WRONLY | os.O_CREAT)  # every byte taken
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass
        finally:
            os.ftruncate(fd, max(0, os.fstat(fd).st_size - leave))
            os.close(fd)
        proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "run", "--logdir",
                               str(mount / "ld"), "--",
                               str(ROOT / "tests" / "programs" / "dumper_eager.py")],
                              capture_output=True, text=True, env=child_env(), cwd=str(ROOT),
                              timeout=HANG_GUARD)
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
    assert "Traceback" not in proc.stderr, proc.stderr
    ours = [ln for ln in proc.stderr.splitlines() if ln.startswith("tfdbg-tui")]
    if leave == 0:  # nothing can be written: one line, exit 2
        assert proc.returncode == 2, proc.stderr
        assert len(ours) == 1 and "the disk is full" in ours[0], ours
    else:  # the program ran; what it recorded ends early
        assert "dump (incomplete) written" in proc.stderr, proc.stderr
        assert "is full" in proc.stderr and "record again" in proc.stderr, proc.stderr


def test_index_on_a_full_disk_names_the_shard(reference_logdir: str, tmp_path: Path) -> None:
    """A shard that cannot be written (a 16 KiB tmpfs): the file set's line names where it
    was going (before: 'None: No space left on device'), exit 1."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", str(mount)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.decode().strip()}")
    try:
        proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "index", reference_logdir,
                               "--out", str(mount / "shards")], capture_output=True, text=True,
                              env=child_env(), cwd=str(ROOT), timeout=HANG_GUARD)
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    (line,) = proc.stderr.strip().splitlines()
    assert "No space left on device" in line and "None" not in line, line
    assert str(mount / "shards") in line, line
