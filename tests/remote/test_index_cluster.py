"""`tfdbg-tui index` on a real Dask cluster (a LocalCluster of two worker processes) over a
run of 100 hosts in the local S3 server, and every command opened from the shards it wrote:
what they say must be exactly what a direct read of the bucket says. A worker killed while
indexing loses nothing; a stale, a forged and a damaged shard, and a shard whose source object
is gone, are each dropped with a warning and their hosts read from the bucket.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.paths import ROOT
from support.s3 import S3Server

from dumper.writer import LogdirWriter
from reader import DebugLogdir, one_pass
from tfdbg_tui.commands.report import _finite, build_report

HOSTS = 100
T0 = 1_700_000_000.0
BIG = (".graph_execution_traces", ".execution")

pytest.importorskip("dask.distributed")


def write_hosts(d: Path, hosts: int, bad: bool = True) -> None:
    """`hosts` workers of one job, three steps each; every 17th host's Log goes -inf at its
    second step (so the run's first alerts interleave hosts by wall time); none with
    `bad` False."""
    for k in range(hosts):
        with LogdirWriter(d, run_id="big-job", hostname=f"h{k:03d}",
                          file_timestamp=int(T0) + k) as w:
            bad_host = bad and k % 17 == 3
            f = w.add_source_file("/job/train.py", ["x = batch()", "y = tf.math.log(x)"])
            frame = w.add_stack_frame(f, 2, "train_step")
            w.add_graph("g", "train_step")
            w.add_op("g", "Placeholder", "x", [], stack_frame_ids=[frame])
            w.add_op("g", "Log", "log", ["x:0"], stack_frame_ids=[frame])
            for step in range(3):
                t = T0 + step + k * 0.001
                nan = bad_host and step >= 1
                w.add_graph_trace("g", "x", 0, "FULL_HEALTH",
                                  [1, 1, 1, 1, 4, 0, 0, 0, 0, 0, 4], wall_time=t)
                w.add_graph_trace("g", "log", 0, "FULL_HEALTH",
                                  [1, 1, 1, 1, 4, 1 if nan else 0, 0, 0, 3 if nan else 4, 0, 0],
                                  wall_time=t + 0.0001)
                w.add_execution("__inference_train_step_1", "FULL_HEALTH",
                                [[1, 1, 1, 1, 1, 1 if nan else 0, 0, 0, 0 if nan else 1, 0, 0]],
                                graph_id="g", output_tensor_ids=[100 + step],
                                stack_frame_ids=[frame], wall_time=t + 0.0002)


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=600)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def report(url: str, shards: bool) -> dict[str, Any]:
    """What `report --json --limit 200` says of the bucket (in this process): from its
    shards, or read directly (the shard folder pointed at one that does not exist)."""
    with pytest.MonkeyPatch.context() as mp:
        if not shards:
            mp.setenv("TFDBG_TUI_SHARDS", str(ROOT / "no-such-shard-folder"))
        with one_pass():
            logdir = DebugLogdir(url)
            logdir.update()
            out: dict[str, Any] = json.loads(json.dumps(_finite(build_report(logdir, 200)),
                                                        default=str))
    return out


def report_cli(url: str) -> dict[str, Any]:
    proc = cli("report", "--json", "--limit", "200", url)
    assert proc.returncode in (0, 1), proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def without_shard_warnings(rep: dict[str, Any]) -> dict[str, Any]:
    rep = dict(rep)
    rep["warnings"] = [w for w in rep.get("warnings", []) if ".tfdbg-index" not in w]
    return rep


@pytest.fixture(scope="module")
def big_run(s3: S3Server, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The 100-host run in the bucket, and its local copy."""
    local = tmp_path_factory.mktemp("hosts") / "run"
    write_hosts(local, HOSTS)
    return s3.upload(local, "s3://cluster/big"), local


@pytest.fixture(scope="module")
def client(s3: S3Server) -> Iterator[Any]:
    """A Dask LocalCluster of two worker processes (they inherit the S3 settings)."""
    import logging

    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.CRITICAL) as cluster, \
            Client(cluster) as c:
        yield c


def test_a_cluster_indexes_100_hosts_and_reports_from_shards(
        s3: S3Server, big_run: tuple[str, Path], client: Any) -> None:
    from tfdbg_tui.commands.index import index_logdir

    url, local = big_run
    killed: list[int] = []

    def kill_a_worker(result: Any, done: int, total: int) -> None:
        """After the first shard lands, one worker process is killed (SIGKILL): the tasks it
        held are run again on the other (and on the one its nanny starts)."""
        if killed:
            return
        pids = client.run(os.getpid)
        pid = sorted(pids.values())[0]
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    results, where, _ = index_logdir(url, client=client, on_result=kill_a_worker)
    assert killed
    assert sorted(r.status for r in results) == ["indexed"] * HOSTS, \
        [(r.name, r.error) for r in results if r.status != "indexed"]
    assert where == f"{url}/.tfdbg-index"
    assert len(s3.fs().ls(where[len("s3://"):])) == HOSTS

    # opened from the shards: each shard read once and no big object at all; and the
    # report of it is a direct read's (of the same bytes, here the local copy: the report
    # of a bucket is its local copy's, tests/remote/test_remote_logdir.py)
    with s3.recording() as requests, one_pass():
        opened = DebugLogdir(url)
        opened.update()
    got = [r["path"] for r in requests if r["method"] == "GET"]
    assert sum(p.endswith(".parquet") for p in got) == HOSTS
    assert not [p for p in got if p.endswith(BIG)]
    direct = DebugLogdir(str(local))
    direct.update()
    assert opened.num_alerts == direct.num_alerts == len(range(3, HOSTS, 17)) * 2 * 2
    with one_pass():
        from_shards = build_report(opened, 200)
    plain = build_report(direct, 200)
    assert from_shards.pop("logdir") == url and plain.pop("logdir") == str(local)
    assert json.dumps(from_shards, default=str) == json.dumps(plain, default=str)


def test_stale_forged_damaged_and_missing(s3: S3Server, tmp_path: Path, client: Any) -> None:
    """Ten hosts indexed by the command on the cluster's scheduler address (`--engine
    dask=ADDRESS`); then one host's object is replaced (stale), one shard is another host's
    (forged), one has a kind id out of range under its own intact metadata (damaged), one
    host's `.execution` object is deleted: each is dropped with a warning, its host read
    from the bucket, and the report is the direct read's; `index` again (the local engine)
    writes exactly those four."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    local = tmp_path / "run"
    write_hosts(local, 10)
    url = s3.upload(local, "s3://cluster/tampered")
    proc = cli("index", url, "--engine", f"dask={client.scheduler.address}")
    assert proc.returncode == 0, proc.stderr
    assert "10 file sets: 10 indexed" in proc.stdout
    fs = s3.fs()
    key = url[len("s3://"):]
    names = sorted(p.name for p in local.iterdir() if p.suffix == ".execution")
    sets = [n[: -len(".execution")] for n in names]
    shard = {i: f"{key}/.tfdbg-index/{sets[i]}.parquet" for i in range(10)}

    # stale: host 3's traces object replaced by a clean host 3's (a new ETag, a changed
    # report: its alerts are gone)
    clean = tmp_path / "clean"
    write_hosts(clean, 4, bad=False)
    fs.pipe(f"{key}/{sets[3]}.graph_execution_traces",
            (clean / f"{sets[3]}.graph_execution_traces").read_bytes())
    # forged: host 2's shard is host 5's bytes
    fs.pipe(shard[2], fs.cat(shard[5]))
    # damaged: host 6's shard with a trace kind out of range, its metadata intact
    table = pq.read_table(io.BytesIO(fs.cat(shard[6])))
    kinds = table.column("traces.kind").to_pylist()
    kinds[0] = 9999
    i = table.schema.get_field_index("traces.kind")
    table = table.set_column(i, table.schema.field(i), pa.array(kinds, pa.int32()))
    sink = io.BytesIO()
    pq.write_table(table, sink)
    fs.pipe(shard[6], sink.getvalue())
    # missing: host 8's `.execution` object is gone
    fs.rm(f"{key}/{sets[8]}.execution")

    direct = report(url, shards=False)
    tampered = report(url, shards=True)
    warned = [w for w in tampered["warnings"] if ".tfdbg-index" in w]
    assert len(warned) == 1 and "4 shards not used" in warned[0], warned
    assert without_shard_warnings(tampered) == direct
    assert direct["alerts"]["total"] == 2  # host 3's traces are clean now: its 2 eager alerts

    proc = cli("index", url)
    assert proc.returncode == 0, proc.stderr
    assert "10 file sets: 4 indexed, 6 up to date, 0 failed" in proc.stdout
    again = report_cli(url)  # the command, as a user runs it
    assert again == direct
    assert not [w for w in again["warnings"] if ".tfdbg-index" in w]
