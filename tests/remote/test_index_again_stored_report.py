"""`tfdbg-tui index` run again after one host's object changed: the report it stores beside
the shards is made from the shards as they are now, and `report` then uses it.

Why (issue 32's held-out check): `index` is one look at the bucket (`reader.one_pass`): the
listing of the shard folder made before the workers ran answered the stored report's `stat`
of each shard afterwards. A shard the workers had just replaced was taken at its old size
and ETag: one that grew was read short ("no report stored: …parquet: not a Parquet file"),
and one that did not was named in the stored report by its old identity, so the next
`report` dropped it ("stored report not used: the shard … changed since it was made").

The run: two hosts in the local S3 server, indexed (local engine, one worker); then host 1
records more steps (its objects grow, and so does its shard) and `index` runs again.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT
from support.s3 import S3Server

from dumper.writer import LogdirWriter

T0 = 1_700_000_000.0
STATUS_ALERTS = 1  # report's status when it found alerts


def write_host(d: Path, k: int, steps: int) -> None:
    with LogdirWriter(d, run_id="again", hostname=f"h{k}", file_timestamp=int(T0) + k,
                      overwrite=True) as w:
        w.add_graph("g", "step")
        w.add_op("g", "Log", "log", [])
        for step in range(steps):
            bad = step >= 2
            w.add_graph_trace("g", "log", 0, "FULL_HEALTH",
                              [1, 1, 1, 1, 4, 1 if bad else 0, 0, 0, 3 if bad else 4, 0, 0],
                              wall_time=T0 + step + k * 0.01)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_index_again_stores_the_report_of_the_new_shards(
        s3: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", "")
    monkeypatch.delenv("TFDBG_TUI_SHARDS", raising=False)
    run = tmp_path / "run"
    for k in range(2):
        write_host(run, k, 4)
    url = s3.upload(run, "s3://again/run")
    first = cli("index", url, "--workers", "1")
    assert first.returncode == 0, first.stderr
    assert "2 indexed" in first.stdout and "report stored beside the shards" in first.stdout
    shard = "again/run/.tfdbg-index/tfdbg_events.1700000001.h1.parquet"
    before = s3.fs().info(shard)["size"]

    write_host(run, 1, 40)  # host 1 goes on: its objects (and its shard) grow
    s3.upload(run, url)
    again = cli("index", url, "--workers", "1")
    assert again.returncode == 0, again.stderr
    assert "1 indexed, 1 up to date" in again.stdout
    assert s3.fs().info(shard)["size"] > before
    assert "report stored beside the shards" in again.stdout, again.stdout

    stored = cli("report", url, "--json")
    assert stored.returncode == STATUS_ALERTS
    assert stored.stderr == ""  # the stored report is current: used, no warning
    direct = subprocess.run(
        [sys.executable, "-m", "tfdbg_tui", "report", url, "--json"], capture_output=True,
        text=True, cwd=ROOT, timeout=300,
        env={**os.environ, "TFDBG_TUI_SHARDS": str(tmp_path / "none")})
    assert direct.returncode == STATUS_ALERTS and direct.stderr == ""
    assert stored.stdout == direct.stdout
