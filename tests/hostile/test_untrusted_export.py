"""`export` writes only its own files in OUT_DIR, all or nothing (issue 30, point 1).

OUT_DIR may be a shared folder where someone planted symlinks: at the names a writer uses for
its temporaries (the old fixed `report.json.partial`, `<table>.parquet.partial`), at the
final names, or — the name being random — at exactly the temporary names the writer will
pick (the random source is made predictable here, as an attacker who could guess it would
have it). Each test looks at the file system afterwards: the file outside is untouched, the
tables are regular files a second reader (pyarrow) reads, and nothing is left behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from support.guess import GUESSED, predictable_tokens
from support.paths import ROOT

from tfdbg_tui.commands.export import main as export_main
from tfdbg_tui.commands.export.tables import TABLES

FILES = [f"{t}.parquet" for t in TABLES] + ["report.json"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=600)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture
def guessable_names(monkeypatch: pytest.MonkeyPatch) -> None:
    predictable_tokens(monkeypatch)


def plant(folder: Path, names: list[str], victim: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).symlink_to(victim)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name not in FILES)


def test_symlinks_at_the_old_temporary_and_final_names_are_not_written_through(
        reference_logdir: str, tmp_path: Path) -> None:
    out, victim = tmp_path / "out", tmp_path / "victim.txt"
    victim.write_text("keep")
    planted = [f"{n}.partial" for n in FILES] + FILES
    plant(out, planted, victim)
    proc = cli("export", reference_logdir, str(out))
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "keep"
    for name in FILES:
        assert (out / name).is_file() and not (out / name).is_symlink(), name
    assert pq.read_table(out / "graph_traces.parquet").num_rows > 0
    assert json.loads((out / "report.json").read_text())["alerts"]["total"] > 0
    # the planted `.partial` links stay as they were (not ours to remove), nothing else
    assert leftovers(out) == sorted(f"{n}.partial" for n in FILES)


def test_symlinks_at_the_temporary_names_picked_are_passed_over(
        reference_logdir: str, tmp_path: Path, guessable_names: None,
        capsys: pytest.CaptureFixture[str]) -> None:
    out, victim = tmp_path / "out", tmp_path / "victim.txt"
    victim.write_text("keep")
    planted = [f".{n}.tmp-{GUESSED}" for n in FILES]
    plant(out, planted, victim)
    assert export_main([reference_logdir, str(out)]) == 0, capsys.readouterr().err
    assert victim.read_text() == "keep"
    for name in FILES:
        assert (out / name).is_file() and not (out / name).is_symlink(), name
    assert pq.read_table(out / "alerts.parquet").num_rows > 0
    assert leftovers(out) == sorted(planted)  # each tried, passed over, left as it was


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MiB tmpfs (needs root to mount)."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path, leave: int) -> None:
    """Take every free byte of `disk` but `leave`."""
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.ftruncate(fd, max(0, os.fstat(fd).st_size - leave))
        os.close(fd)


def test_an_export_on_a_full_disk_keeps_the_previous_one(
        reference_logdir: str, make_tf_logdir: Callable[..., str], small_disk: Path) -> None:
    """Room for some tables of another run's export but not all: not one file changes."""
    out = small_disk / "out"
    assert cli("export", make_tf_logdir("eager"), str(out)).returncode == 0
    before = {n: (out / n).read_bytes() for n in FILES}
    fill(small_disk, leave=64 << 10)  # the reference run's tables and report: ~140 KB
    proc = cli("export", reference_logdir, str(out))
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "No space left" in proc.stderr
    assert {n: (out / n).read_bytes() for n in FILES} == before
    assert leftovers(out) == []


def test_two_exports_into_one_folder_leave_one_whole_set(
        reference_logdir: str, make_tf_logdir: Callable[..., str], tmp_path: Path) -> None:
    """Two exports of different runs into one OUT_DIR at once: both succeed, every table is
    whole, and the set is one export's (its report.json counts its tables' rows)."""
    other = make_tf_logdir("eager")
    out = tmp_path / "out"
    procs = [subprocess.Popen([sys.executable, "-m", "tfdbg_tui", "export", src, str(out)],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
             for src in (reference_logdir, other)]
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    report = json.loads((out / "report.json").read_text())
    traces = pq.read_table(out / "graph_traces.parquet").num_rows
    executions = pq.read_table(out / "executions.parquet").num_rows
    counts = report["counts"]
    assert (traces, executions) == (counts["graph_traces"], counts["executions"]), counts
    assert leftovers(out) == []


def test_out_dir_in_a_bucket_is_refused(reference_logdir: str, tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "export", reference_logdir,
                           "s3://bucket/x"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "s3://bucket/x" in proc.stderr
    assert "local folder" in proc.stderr
    assert list(tmp_path.iterdir()) == []  # no ./s3:/bucket/x
