"""`tfdbg-tui index` on this machine (the local engine) over a run of two hosts whose records a
real TensorFlow program wrote (the reference NaN run, its file set copied under two host
names): `report`, `export` and `tfdbg_tui.open` opened from the shards say exactly what a
direct read says; a task that fails is one line naming its file set while the other lands;
a shard another user could have written, or a symlink, is never trusted.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from support.paths import ROOT

import tfdbg_tui
from tfdbg_tui.commands.export.tables import TABLES

pytest.importorskip("pyarrow")


def cli(*args: str, shards: bool = True) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if not shards:  # a direct read: the shard folder pointed at one that does not exist
        env["TFDBG_TUI_SHARDS"] = str(ROOT / "no-such-shard-folder")
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=600)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def report(path: Path, shards: bool = True) -> dict[str, Any]:
    proc = cli("report", "--json", "--limit", "50", str(path), shards=shards)
    assert proc.returncode in (0, 1), proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


@pytest.fixture
def two_hosts(reference_logdir: str, tmp_path: Path) -> Path:
    """The reference run's file set as two hosts of one run (real records; the second host
    starts a second later by its file name, its records at the same wall times)."""
    d = tmp_path / "run"
    d.mkdir()
    for f in Path(reference_logdir).iterdir():
        if not f.name.startswith("tfdbg_events."):
            continue
        _, stamp, rest = f.name.split(".", 2)
        suffix = rest.rsplit(".", 1)[1]
        for i, host in enumerate(("alpha", "beta")):
            shutil.copyfile(f, d / f"tfdbg_events.{int(stamp) + i}.{host}.{suffix}")
    return d


def shard_files(run: Path) -> list[Path]:
    return sorted(p for p in (run / ".tfdbg-index").glob("*.parquet") if p.is_file())


def test_report_export_and_open_from_shards_are_a_direct_reads(two_hosts: Path,
                                                               tmp_path: Path) -> None:
    proc = cli("index", str(two_hosts))
    assert proc.returncode == 0, proc.stderr
    assert "2 file sets: 2 indexed, 0 up to date, 0 failed" in proc.stdout
    assert len(shard_files(two_hosts)) == 2
    # the wall times split by byte, offsets by their differences (shards ~6x smaller, half
    # the CPU time to decode: parquet_shards.ENCODINGS), and read back as they were
    md = pq.ParquetFile(shard_files(two_hosts)[0]).metadata
    names = [md.schema.column(i).path for i in range(md.num_columns)]
    encodings = {n: md.row_group(0).column(i).encodings for i, n in enumerate(names)}
    assert "BYTE_STREAM_SPLIT" in encodings["traces.wall_time"]
    assert "DELTA_BINARY_PACKED" in encodings["executions.offset"]
    direct = report(two_hosts, shards=False)
    assert direct["alerts"]["total"] > 0
    assert report(two_hosts) == direct

    for shards, out in ((False, tmp_path / "direct"), (True, tmp_path / "shards")):
        proc = cli("export", str(two_hosts), str(out), shards=shards)
        assert proc.returncode in (0, 1), proc.stderr
    for name in TABLES:
        a = pq.read_table(tmp_path / "direct" / f"{name}.parquet")
        b = pq.read_table(tmp_path / "shards" / f"{name}.parquet")
        assert a.equals(b), name

    run = tfdbg_tui.open(str(two_hosts))
    assert run.logdir.num_alerts == direct["alerts"]["total"]
    assert run.graph_traces.equals(pq.read_table(tmp_path / "direct" / "graph_traces.parquet"))

    # nothing changed: nothing is indexed again; a host's file touched: that host only
    proc = cli("index", str(two_hosts))
    assert "2 file sets: 0 indexed, 2 up to date" in proc.stdout, proc.stdout
    beta = next(two_hosts.glob("*.beta.execution"))
    os.utime(beta, (1, 1))
    proc = cli("index", str(two_hosts))
    assert "2 file sets: 1 indexed, 1 up to date" in proc.stdout, proc.stdout


def test_a_failing_task_names_its_file_set_and_the_other_lands(two_hosts: Path) -> None:
    beta = next(two_hosts.glob("*.beta.metadata")).name[: -len(".metadata")]
    (two_hosts / ".tfdbg-index" / f"{beta}.parquet").mkdir(parents=True)  # in the way
    proc = cli("index", str(two_hosts))
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and beta in lines[0] and "not indexed" in lines[0], proc.stderr
    assert [p.name for p in shard_files(two_hosts)] == [
        next(two_hosts.glob("*.alpha.metadata")).name.replace(".metadata", ".parquet")]
    assert "2 file sets: 1 indexed, 0 up to date, 1 failed" in proc.stdout
    # the run opens from alpha's shard with beta read directly: the same report
    (two_hosts / ".tfdbg-index" / f"{beta}.parquet").rmdir()
    assert report(two_hosts) == report(two_hosts, shards=False)


@pytest.mark.parametrize("how", ["writable by others", "symlink"])
def test_a_shard_others_could_write_is_not_trusted(two_hosts: Path, tmp_path: Path,
                                                   how: str) -> None:
    assert cli("index", str(two_hosts)).returncode == 0
    direct = report(two_hosts, shards=False)
    victim = shard_files(two_hosts)[0]
    if how == "writable by others":
        victim.chmod(0o666)
    else:
        moved = tmp_path / "elsewhere.parquet"
        victim.rename(moved)
        victim.symlink_to(moved)
    got = report(two_hosts)
    warned = [w for w in got["warnings"] if ".tfdbg-index" in w]
    assert len(warned) == 1 and victim.name in warned[0], got["warnings"]
    got["warnings"] = [w for w in got["warnings"] if w not in warned]
    assert got == direct
