"""`gs://` logdirs for real: a GCS emulator (`gcp-storage-emulator`, tests/support/gcs.py) on
127.0.0.1, reached over HTTP as a bucket is, through gcsfs. The runs are the reference NaN
case a real TensorFlow program wrote, so what a `gs://` logdir says must be exactly what its
local copy says; `tfdbg-tui index` writes its shards into the bucket (or `--out gs://…`) and
every open then starts from them, as for `s3://` (tests/remote/test_index_cluster.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.paths import ROOT
from support.slowdown import guard

pytest.importorskip("gcsfs")
pytest.importorskip("gcp_storage_emulator")
pytest.importorskip("pyarrow")

from support.gcs import GCSServer

from reader import DebugLogdir, one_pass
from reader.io.remote import filesystem

BIG = (".graph_execution_traces", ".execution")


def cli(gcs: GCSServer, *args: str, shards: str | None = None
        ) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it (`shards`: `$TFDBG_TUI_SHARDS`)."""
    env = gcs.env()
    env.pop("TFDBG_TUI_SHARDS", None)
    if shards is not None:
        env["TFDBG_TUI_SHARDS"] = shards
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=guard(300))
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def report(gcs: GCSServer, target: str, shards: str | None = None) -> dict[str, Any]:
    proc = cli(gcs, "report", "--json", "--limit", "50", target, shards=shards)
    assert proc.returncode in (0, 1), proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    out.pop("logdir")
    return out


DIRECT = str(ROOT / "no-such-shard-folder")  # `$TFDBG_TUI_SHARDS` for a direct read


def two_hosts(reference_logdir: str, d: Path) -> Path:
    """The reference run's file set as two hosts of one run (real records)."""
    d.mkdir()
    for f in Path(reference_logdir).iterdir():
        if not f.name.startswith("tfdbg_events."):
            continue
        _, stamp, rest = f.name.split(".", 2)
        suffix = rest.rsplit(".", 1)[1]
        for i, host in enumerate(("alpha", "beta")):
            shutil.copyfile(f, d / f"tfdbg_events.{int(stamp) + i}.{host}.{suffix}")
    return d


def downloads(gcs: GCSServer, since: int) -> list[str]:
    """Names of the objects whose bytes were downloaded since the mark."""
    prefix = "/download/storage/v1/b/"
    return [p[len(prefix):] for m, p, _ in gcs.requests(since)
            if m == "GET" and p.startswith(prefix)]


@pytest.mark.parametrize("tail", [b"\r", b"\n", b"\r\n", b"\n\r", b"\r\r", b"x"],
                         ids=["cr", "lf", "crlf", "lfcr", "crcr", "x"])
def test_an_object_reads_back_as_uploaded_whatever_its_last_byte(gcs: GCSServer,
                                                                 tail: bytes) -> None:
    """The harness itself: an object is stored byte for byte. A record's last byte is its
    CRC's, 0x0D once in 256 files; the emulator's own multipart parser dropped it (gcsfs
    ends the content with a bare `\\n` before the boundary, read as one `\\r\\n`), so the
    bucket tests below failed in the runs whose fresh reference logdir ended a file in
    `\\r` (support/gcs_emulator.py). Read back by the tests' client and by the reader's."""
    data = bytes(range(256)) * 3 + tail
    if not gcs.fs().exists("bytes"):
        gcs.fs().mkdir("bytes")
    name = f"bytes/{tail.hex()}"
    gcs.fs().pipe(name, data)
    assert gcs.fs().cat(name) == data
    fs, path = filesystem(f"gs://{name}")
    assert fs.cat_file(path) == data
    assert fs.cat_file(path, start=len(data) - 2, end=len(data)) == data[-2:]


def test_report_of_a_gs_logdir_says_what_the_local_report_says(
        gcs: GCSServer, reference_logdir: str) -> None:
    """Read through gcsfs's JSON API only: gcsfs's default filesystem first probed each
    bucket's layout over gRPC at the emulator's address (a TLS handshake the HTTP server
    answers 400), 30 s a probe, on every operation."""
    url = gcs.upload(reference_logdir, "gs://runs/mlp")
    since = gcs.mark()
    remote = report(gcs, url + "/")
    assert remote == report(gcs, reference_logdir)
    assert remote["first_alerts"][0]["op_type"] == "Log"  # the reference bug: log(0) = −∞
    seen = gcs.requests(since)
    assert seen and all(status < 400 for _, _, status in seen), seen
    assert {p.rsplit(".", 1)[-1] for p in downloads(gcs, since)} >= {
        "graph_execution_traces", "execution"}


def test_index_writes_shards_into_the_bucket_and_opens_start_from_them(
        gcs: GCSServer, reference_logdir: str, tmp_path: Path) -> None:
    local = two_hosts(reference_logdir, tmp_path / "run")
    url = gcs.upload(local, "gs://runs/two")
    direct = report(gcs, url, shards=DIRECT)
    assert direct == report(gcs, str(local), shards=DIRECT)

    proc = cli(gcs, "index", url)
    assert proc.returncode == 0, proc.stderr
    assert "2 file sets: 2 indexed" in proc.stdout
    names = sorted(p.rsplit("/", 1)[1] for p in gcs.fs().ls("runs/two/.tfdbg-index"))
    sets = sorted({p.name.rsplit(".", 1)[0] for p in local.iterdir()})
    stored = [n for n in names if n.startswith("report-")]  # the run's report, made once
    assert len(stored) == 1 and "report stored" in proc.stdout, proc.stdout
    assert [n for n in names if n not in stored] == [f"{s}.parquet" for s in sets]

    assert report(gcs, url) == direct  # from the shards
    since = gcs.mark()
    with one_pass():  # the open alone: each shard read once, no big object at all (the
        DebugLogdir(url).update()  # report's diagnosis then re-reads its records by range)
    got = downloads(gcs, since)
    assert sum(p.endswith(".parquet") for p in got) == 2
    assert not [p for p in got if p.endswith(BIG)]

    # one host's `.execution` replaced (its last record cut): its shard is stale, dropped
    # with a warning naming it, the host read from the bucket; the rest as a direct read
    execution = next(p for p in sorted(local.iterdir()) if p.name.endswith("beta.execution"))
    data = execution.read_bytes()
    gcs.fs().pipe(f"runs/two/{execution.name}", data[: len(data) // 2])
    direct = report(gcs, url, shards=DIRECT)
    tampered = report(gcs, url)
    warned = [w for w in tampered["warnings"] if ".tfdbg-index" in w]
    assert len(warned) == 1 and "beta.parquet" in warned[0] and "stale" in warned[0], warned
    tampered["warnings"] = [w for w in tampered["warnings"] if w not in warned]
    assert tampered == direct

    proc = cli(gcs, "index", url)  # again: only the changed host
    assert proc.returncode == 0, proc.stderr
    assert "2 file sets: 1 indexed, 1 up to date, 0 failed" in proc.stdout
    assert report(gcs, url) == direct


def test_index_of_a_local_run_out_to_a_bucket(gcs: GCSServer, reference_logdir: str,
                                              tmp_path: Path) -> None:
    """`--out gs://…`: the shards of a local logdir in a bucket, read from there by the
    next open that `$TFDBG_TUI_SHARDS` points at it."""
    local = two_hosts(reference_logdir, tmp_path / "run")
    gcs.fs().mkdir("shards")
    out = "gs://shards/two"
    proc = cli(gcs, "index", str(local), "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert len(gcs.fs().ls("shards/two")) == 3  # two shards and the run's stored report
    since = gcs.mark()
    assert report(gcs, str(local), shards=out) == report(gcs, str(local), shards=DIRECT)
    assert sum(p.endswith(".parquet") for p in downloads(gcs, since)) == 2
    assert not os.path.exists(local / ".tfdbg-index")
