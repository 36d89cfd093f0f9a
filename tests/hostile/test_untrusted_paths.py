"""Output paths through shared folders: a symlink another user planted is never followed, and
`run` writes no run where others could plant links at TensorFlow's predictable file names
(issue 30, round 4; `reader/io/linkguard.py`).

The other user is real to the kernel: the planted symlink is given to uid 12345 (`lchown`,
which needs root; the tests that need it are skipped without). Every test looks at the file
system afterwards: the victim outside is untouched and nothing was created through the link.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT

OTHER = 12345  # a user that is not us


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                          text=True, cwd=cwd or ROOT, env=child_env(), timeout=HANG_GUARD)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
            for p in sorted(folder.rglob("*"))}


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """A folder like /tmp: everyone may create names in it (sticky)."""
    d = tmp_path / "shared"
    d.mkdir()
    d.chmod(0o1777)
    return d


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """Where the planted links lead: a folder of ours, with a file in it."""
    v = tmp_path / "victim"
    v.mkdir()
    (v / "report.json").write_text("mine\n")
    (v / "x.csv").write_text("mine\n")
    return v


def plant(link: Path, target: Path) -> None:
    """A symlink at `link`, made (as far as the kernel knows) by another user."""
    link.symlink_to(target)
    try:
        os.lchown(link, OTHER, OTHER)
    except PermissionError:
        pytest.skip("giving a symlink to another user needs root")


CASES = {
    "export OUT_DIR": lambda ref, s: ["export", ref, str(s / "out")],
    "export OUT_DIR below": lambda ref, s: ["export", ref, str(s / "out" / "today")],
    "diff --csv": lambda ref, s: ["diff", ref, ref, "--csv", str(s / "out" / "x.csv")],
    "index --out": lambda ref, s: ["index", ref, "--out", str(s / "out" / "shards")],
    "run --logdir": lambda ref, s: ["run", "--logdir", str(s / "out" / "run"), "--",
                                    str(ROOT / "tests" / "programs" / "dumper_eager.py")],
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_symlink_another_user_planted_is_not_followed(
        reference_logdir: str, shared: Path, victim: Path, case: str) -> None:
    plant(shared / "out", victim)
    before = snapshot(victim)
    proc = cli(*CASES[case](reference_logdir, shared))
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{shared / 'out'} is a symlink made by another user" in lines[0]
    assert snapshot(victim) == before  # nothing written, nothing made through the link


def test_a_symlink_of_your_own_is_followed(reference_logdir: str, shared: Path,
                                           victim: Path) -> None:
    (shared / "out").symlink_to(victim)  # ours: `out -> /big/disk` as users make them
    proc = cli("export", reference_logdir, str(shared / "out" / "today"))
    assert proc.returncode == 0, proc.stderr
    assert (victim / "today" / "report.json").is_file()


def test_run_refuses_a_logdir_everyone_can_write(tmp_path: Path) -> None:
    """TensorFlow opens `tfdbg_events.<seconds>.<host>.<kind>` with plain `open`: in a
    folder everyone can write, links planted at the next minute's names would be written
    through (the victim's bytes replaced by records)."""
    logdir = tmp_path / "ld"
    logdir.mkdir()
    logdir.chmod(0o777)
    victim = tmp_path / "victim"
    victim.write_text("mine\n")
    host = os.uname().nodename
    now = int(time.time())
    for stamp in range(now, now + 120):
        for kind in ("metadata", "execution", "graph_execution_traces", "graphs",
                     "source_files", "stack_frames"):
            (logdir / f"tfdbg_events.{stamp}.{host}.{kind}").symlink_to(victim)
    proc = cli("run", "--overwrite", "--logdir", str(logdir), "--",
               str(ROOT / "tests" / "programs" / "dumper_eager.py"))
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "can be written by every user" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert victim.read_text() == "mine\n"


def test_run_refuses_a_logdir_of_another_user(tmp_path: Path) -> None:
    logdir = tmp_path / "theirs"
    logdir.mkdir()
    try:
        os.chown(logdir, OTHER, OTHER)
    except PermissionError:
        pytest.skip("giving a folder to another user needs root")
    proc = cli("run", "--logdir", str(logdir), "--",
               str(ROOT / "tests" / "programs" / "dumper_eager.py"))
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert f"belongs to another user (uid {OTHER})" in proc.stderr
    assert list(logdir.iterdir()) == []
