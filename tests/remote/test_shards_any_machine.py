"""Shards written on one machine are used by an open on another (docs/scale-out.md: "every
later open on any machine starts from them"), as long as it reaches the same endpoint.

The shell that opens a run is rarely the one that indexed it: a laptop has a GCS project
variable or `AWS_REGION` where a cluster's workers have `AWS_DEFAULT_REGION`, and neither
changes which server the bytes come from. Before, a shard's identity held those variables'
values, so every shard of an `s3://` run was dropped as "read from another endpoint" when a
variable of Google Cloud was set in one shell and not the other. Another endpoint (the same
server by another name, as a test server copying names and ETags would be) still drops them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.paths import ROOT
from support.s3 import S3Server
from support.slowdown import guard

from dumper.writer import LogdirWriter
from reader import DebugLogdir, one_pass

pytest.importorskip("pyarrow")

T0 = 1_700_000_000.0
BIG = (".graph_execution_traces", ".execution")


def write_hosts(d: Path, hosts: int) -> None:
    """`hosts` workers of one job, three steps each; host 1's Log goes -inf at step 2."""
    for k in range(hosts):
        with LogdirWriter(d, run_id="anywhere", hostname=f"h{k}",
                          file_timestamp=int(T0) + k) as w:
            f = w.add_source_file("/job/train.py", ["x = batch()", "y = tf.math.log(x)"])
            frame = w.add_stack_frame(f, 2, "train_step")
            w.add_graph("g", "train_step")
            w.add_op("g", "Placeholder", "x", [], stack_frame_ids=[frame])
            w.add_op("g", "Log", "log", ["x:0"], stack_frame_ids=[frame])
            for step in range(3):
                bad = k == 1 and step == 2
                w.add_graph_trace("g", "x", 0, "FULL_HEALTH",
                                  [1, 1, 1, 1, 4, 0, 0, 0, 0, 0, 4],
                                  wall_time=T0 + step + k * 0.01)
                w.add_graph_trace("g", "log", 0, "FULL_HEALTH",
                                  [1, 1, 1, 1, 4, int(bad), 0, 0, 0, 0, 4 - int(bad)],
                                  wall_time=T0 + step + k * 0.01 + 0.001)


def cli(s3: S3Server, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The command in a shell set up for the bucket, plus `env` (a variable "" is unset)."""
    full = s3.env()
    full.pop("TFDBG_TUI_SHARDS", None)
    for name, value in env.items():
        if value:
            full[name] = value
        else:
            full.pop(name, None)
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                          text=True, cwd=ROOT, env=full, timeout=guard(300))
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def report(s3: S3Server, url: str, *args: str, **env: str) -> tuple[dict[str, Any], list[str]]:
    """`report --json` in that shell, and the objects whose bytes it asked the server for."""
    with s3.recording() as requests:
        proc = cli(s3, "report", "--json", *args, url, **env)
    assert proc.returncode in (0, 1), proc.stderr
    got = [r["path"] for r in requests if r["method"] == "GET"]
    out: dict[str, Any] = json.loads(proc.stdout)
    return out, got


NOWHERE = str(ROOT / "no-such-shard-folder")  # `$TFDBG_TUI_SHARDS` for a direct read
_DIRECT: dict[tuple[str, ...], dict[str, Any]] = {}


def direct_report(s3: S3Server, url: str, *args: str) -> dict[str, Any]:
    """`report --json ARGS URL` read directly (no shard, no stored report), once per module:
    the objects under `indexed` never change here, and a shell's other variables (what the
    tests vary) are not set for it."""
    key = (url, *args)
    if key not in _DIRECT:
        _DIRECT[key] = report(s3, url, *args, TFDBG_TUI_SHARDS=NOWHERE)[0]
    return _DIRECT[key]


@pytest.fixture(scope="module")
def indexed(s3: S3Server, tmp_path_factory: pytest.TempPathFactory) -> str:
    """Three hosts in the bucket, indexed from a shell with no region or GCS variable but
    AWS_DEFAULT_REGION (as the cluster's workers have)."""
    local = tmp_path_factory.mktemp("anywhere") / "run"
    write_hosts(local, 3)
    url = s3.upload(local, "s3://anywhere/run")
    proc = cli(s3, "index", url, GOOGLE_CLOUD_PROJECT="", STORAGE_EMULATOR_HOST="",
               AWS_REGION="")
    assert proc.returncode == 0, proc.stderr
    assert "3 file sets: 3 indexed" in proc.stdout, proc.stdout
    return url


@pytest.mark.parametrize("env", [
    {"GOOGLE_CLOUD_PROJECT": "my-gcp-project"},
    {"STORAGE_EMULATOR_HOST": "http://127.0.0.1:9"},
    {"AWS_REGION": "us-east-1"},  # the region the workers had, set by another name
], ids=["gcp-project", "gcs-emulator", "aws-region"])
def test_a_shell_with_other_settings_for_the_same_endpoint_uses_the_shards(
        s3: S3Server, indexed: str, env: dict[str, str]) -> None:
    # --limit 5: not the report `index` stored (made for --limit 10): merged from the shards
    direct = direct_report(s3, indexed, "--limit", "5")
    opened, got = report(s3, indexed, "--limit", "5", **env)
    assert not [w for w in opened["warnings"] if ".tfdbg-index" in w], opened["warnings"]
    assert sum(p.endswith(".parquet") for p in got) == 3  # opened from the shards
    assert opened == direct
    # the report `index` stored beside them is used as well: nothing else is read
    direct = direct_report(s3, indexed)
    opened, got = report(s3, indexed, **env)
    assert sum(p.rsplit("/", 1)[1].startswith("report-") for p in got) == 1, got
    assert not [p for p in got if p.endswith((".parquet", *BIG))], got
    assert opened == direct
    proc = cli(s3, "index", indexed, **env)  # and index from there finds them current
    assert "3 file sets: 0 indexed, 3 up to date" in proc.stdout, (proc.stdout, proc.stderr)


def test_another_endpoint_still_drops_them(s3: S3Server, indexed: str) -> None:
    """The same server by another name is another endpoint: nothing of the shards is used."""
    other = s3.endpoint.replace("127.0.0.1", "localhost")
    opened, _ = report(s3, indexed, AWS_ENDPOINT_URL=other)
    warned = [w for w in opened["warnings"] if ".tfdbg-index" in w]
    assert len(warned) == 3 and all("another endpoint" in w for w in warned), warned


def test_a_bucket_indexed_into_a_local_folder_opens_from_it(s3: S3Server, indexed: str,
                                                            tmp_path: Path) -> None:
    """`index s3://… --out FOLDER` on this machine, then `TFDBG_TUI_SHARDS=FOLDER`: the
    shards are this user's, in a folder of this user's. Before, every one was dropped as
    "its folder is writable by others or not ours" (a remote logdir's shards were checked
    against no owner at all)."""
    out = tmp_path / "shards"
    proc = cli(s3, "index", indexed, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"TFDBG_TUI_SHARDS={out}" in proc.stdout, proc.stdout
    assert len(list(out.glob("*.parquet"))) == 3
    direct = direct_report(s3, indexed)
    opened, got = report(s3, indexed, TFDBG_TUI_SHARDS=str(out))
    assert not [w for w in opened["warnings"] if "shard" in w], opened["warnings"]
    assert not [p for p in got if p.endswith(".parquet")]  # none from the bucket's index
    assert opened == direct
    with pytest.MonkeyPatch.context() as mp, s3.recording() as requests, one_pass():
        mp.setenv("TFDBG_TUI_SHARDS", str(out))
        logdir = DebugLogdir(indexed)
        logdir.update()  # the big objects are not read: the local shards stand for them
    assert not [r for r in requests if r["method"] == "GET" and r["path"].endswith(BIG)]
    assert logdir.num_alerts == 1 and not logdir.warnings, logdir.warnings


def test_a_shard_whose_object_is_gone_says_so(s3: S3Server, tmp_path: Path) -> None:
    """A host's `.execution` object deleted after `index`: its shard is dropped with a
    warning that says the object is gone (before: "changed since it was indexed", as if it
    were still there), and the report is the direct read's."""
    local = tmp_path / "run"
    write_hosts(local, 3)
    url = s3.upload(local, "s3://anywhere/gone")
    assert cli(s3, "index", url).returncode == 0
    name = sorted(local.glob("*.execution"))[2].name
    s3.fs().rm(f"anywhere/gone/{name}")
    direct, _ = report(s3, url, TFDBG_TUI_SHARDS=NOWHERE)
    opened, _ = report(s3, url)
    warned = [w for w in opened["warnings"] if ".tfdbg-index" in w]
    assert len(warned) == 1 and f"{name} is gone since it was indexed" in warned[0], warned
    opened["warnings"] = [w for w in opened["warnings"] if w not in warned]
    assert opened == direct


def test_shards_into_a_bucket_that_does_not_exist_is_one_line(s3: S3Server,
                                                              indexed: str) -> None:
    """`--out` naming a bucket that does not exist: one line before any task runs, exit 2
    (before: one 'not indexed: … The specified bucket does not exist' line per file set —
    a thousand for a job of a thousand hosts — and exit 1)."""
    proc = cli(s3, "index", indexed, "--out", "s3://no-such-bucket-here/shards")
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "s3://no-such-bucket-here/shards" in lines[0] and "no such bucket" in lines[0]
