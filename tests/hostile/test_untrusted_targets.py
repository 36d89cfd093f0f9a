"""Files the user names for input or output that are not plain files: a FIFO nobody reads or
writes, a device, a folder, a symlink to nothing — one line and exit 2, never a hang nor a
silent cut; pipes (`--map <(…)`, `--csv >(…)`) still work (issue 30, round 4)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile.checks import assert_no_raw_controls, child_env
from support.paths import ROOT
from support.slowdown import guard

# each of these ends in about a second; a FIFO opened blocking would wait forever
WAIT = guard(120)


def cli(*args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    try:
        proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], text=True,
                              cwd=ROOT, env=child_env(), timeout=WAIT,
                              **{"capture_output": True, **kw})  # type: ignore[call-overload]
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args[:1]} {args[-2:]} hung (a blocking open?)")
    assert "Traceback" not in (proc.stderr or ""), proc.stderr
    return proc


def one_line(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def test_map_from_a_fifo_nobody_writes_to(reference_logdir: str, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "map")
    one_line(cli("diff", reference_logdir, reference_logdir, "--map", str(tmp_path / "map")),
             "--map", "nothing writes to")


@pytest.mark.parametrize("target", ["/dev/zero", "folder"])
def test_map_from_a_device_or_folder(reference_logdir: str, tmp_path: Path,
                                     target: str) -> None:
    path = str(tmp_path) if target == "folder" else target
    one_line(cli("diff", reference_logdir, reference_logdir, "--map", path), "--map", path)


def test_a_map_over_its_limit_is_refused_not_cut(reference_logdir: str, tmp_path: Path) -> None:
    """Before: the first MiB was read and the rest dropped without a word."""
    m = tmp_path / "big.map"
    m.write_text("nothing_matches_this = nor_this\n" * 40_000)  # 1.3 MB of valid lines
    one_line(cli("diff", reference_logdir, reference_logdir, "--map", str(m)), "KiB")


def test_map_and_csv_through_pipes(reference_logdir: str, tmp_path: Path) -> None:
    """`--map <(…)` and `--csv >(…)`: the pipes a shell hands over still work."""
    map_r, map_w = os.pipe()
    csv_r, csv_w = os.pipe()
    os.write(map_w, b"# a map from a pipe\n")
    os.close(map_w)
    with open(tmp_path / "csv", "wb") as sink:
        reader = subprocess.Popen(["cat"], stdin=csv_r, stdout=sink)
        os.close(csv_r)
        proc = cli("diff", reference_logdir, reference_logdir, "--map", f"/dev/fd/{map_r}",
                   "--csv", f"/dev/fd/{csv_w}", pass_fds=(map_r, csv_w))
        os.close(csv_w)
        os.close(map_r)
        reader.wait(timeout=WAIT)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "csv").read_text().startswith("step,quantity")


def test_csv_to_a_fifo_nobody_reads(reference_logdir: str, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "out.csv")
    one_line(cli("diff", reference_logdir, reference_logdir, "--csv",
                 str(tmp_path / "out.csv")), "--csv", "no process reads")


def test_csv_to_a_folder(reference_logdir: str, tmp_path: Path) -> None:
    one_line(cli("diff", reference_logdir, reference_logdir, "--csv", str(tmp_path)),
             "is a folder")


@pytest.mark.parametrize("kind", ["fifo", "file", "device", "dangling"])
def test_out_dir_that_is_not_a_folder(reference_logdir: str, tmp_path: Path,
                                      kind: str) -> None:
    out = tmp_path / "out"
    if kind == "fifo":
        os.mkfifo(out)
    elif kind == "file":
        out.write_text("mine\n")
    elif kind == "dangling":
        out.symlink_to(tmp_path / "nowhere")
    path = "/dev/null" if kind == "device" else str(out)
    line = one_line(cli("export", reference_logdir, path), path)
    assert ("symlink to nothing" if kind == "dangling" else "not a folder") in line
    assert sorted(p.name for p in tmp_path.iterdir()) == (["out"] if kind != "device" else [])


def test_an_export_error_names_the_file_not_a_temporary(reference_logdir: str,
                                                        tmp_path: Path) -> None:
    (tmp_path / "report.json").mkdir()  # report.json cannot take its place
    line = one_line(cli("export", reference_logdir, str(tmp_path)))
    assert f"{tmp_path / 'report.json'}: " in line and ".tmp-" not in line


def test_export_shows_out_dir_escaped(reference_logdir: str, tmp_path: Path) -> None:
    out = tmp_path / "out\x1b]0;pwned\x07\x1b[2J"
    proc = cli("export", reference_logdir, str(out))
    assert proc.returncode == 0, proc.stderr
    assert_no_raw_controls(proc.stdout, "export's list of files")
    assert "\\x1b]0;pwned" in proc.stdout


@pytest.mark.parametrize("args", [["--help"], ["-V"], ["report", "--help"], ["run", "--help"]],
                         ids=["help", "version", "report-help", "run-help"])
def test_help_on_a_full_disk_is_one_line(args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        proc = cli(*args, stdout=full, stderr=subprocess.PIPE, capture_output=False)
    one_line(proc, "No space left on device")


def test_errors_with_stderr_on_a_full_disk_still_exit_2(tmp_path: Path) -> None:
    """Before: the error line could not be written, a traceback neither, and the status was
    1 — `report`'s "alerts found"."""
    with open("/dev/full", "w") as full:
        proc = cli("report", str(tmp_path / "missing"), stderr=full, stdout=subprocess.PIPE,
                   capture_output=False)
    assert proc.returncode == 2
