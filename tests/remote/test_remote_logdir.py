"""Logdirs in a bucket: `report`, `diff` and following, against a real S3 server (moto's
stand-alone server on 127.0.0.1, tests/support/s3.py), reached over HTTP exactly as a bucket.

The run in the bucket is the reference NaN case a real TensorFlow program wrote
(`reference_logdir`), so a remote report must say exactly what the local one says.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.paths import ROOT
from support.s3 import S3Server
from support.slowdown import WAIT, guard

from dumper.writer import LogdirWriter
from reader import DebugLogdir
from reader.io.cursors import CHUNK
from reader.io.tfrecord import masked_crc32c
from reader.io.watch import ChangeWatcher


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=guard(300))
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def one_line_error(proc: subprocess.CompletedProcess[str], url: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert url in lines[0]
    return lines[0]


def report_json(target: str) -> tuple[int, dict[str, Any]]:
    proc = cli("report", "--json", target)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_report_of_a_bucket_says_what_the_local_report_says(s3: S3Server,
                                                            reference_logdir: str) -> None:
    url = s3.upload(reference_logdir, "s3://runs/mlp")
    local_status, local = report_json(reference_logdir)
    status, remote = report_json(url + "/")  # a trailing slash is the same logdir
    assert local_status == status == 1  # the reference run has alerts
    assert remote.pop("logdir") == url
    local.pop("logdir")
    assert remote == local
    assert remote["first_alerts"][0]["op_type"] == "Log"  # the reference bug: log(0) = −∞


def test_diff_of_a_local_and_a_remote_copy_of_one_run(s3: S3Server,
                                                      reference_logdir: str) -> None:
    url = s3.upload(reference_logdir, "s3://runs/diff")
    proc = cli("diff", "--json", reference_logdir, url)
    assert proc.returncode == 0, proc.stderr  # the same run: equivalent
    out = json.loads(proc.stdout)
    assert out["equivalent"] is True and out["compared"] > 0
    assert out["unmatched_a"] == out["unmatched_b"] == 0


def _put(s3: S3Server, url: str, data: bytes) -> None:
    s3.fs().pipe(url[len("s3://"):], data)


def test_follow_a_run_whose_objects_are_replaced_whole(s3: S3Server, reference_logdir: str,
                                                       tmp_path: Path) -> None:
    """A job uploading its growing logdir replaces each object by a longer one: the follower
    reads on from where it stopped (a record cut by the first upload is completed), and a
    version whose bytes already read changed is another run's, never mixed in."""
    full = DebugLogdir(reference_logdir)
    full.update()
    src = Path(reference_logdir)
    url = "s3://runs/live"
    s3.upload(src, url)
    traces = next(src.glob("*.graph_execution_traces"))
    data = traces.read_bytes()
    cut = len(data) * 2 // 5 + 3  # most likely inside a record
    _put(s3, f"{url}/{traces.name}", data[:cut])

    logdir = DebugLogdir(url)
    logdir.update()
    first = len(logdir.traces)
    assert 0 < first < len(full.traces)
    watcher = ChangeWatcher(url, poll_interval=0.05)
    try:
        _put(s3, f"{url}/{traces.name}", data)  # the object replaced by its longer version
        assert watcher.wait(WAIT), "the poll never saw the new version"
        assert watcher.mode == "poll"
    finally:
        watcher.close()
    logdir.update()
    assert len(logdir.traces) == len(full.traces)
    assert logdir.num_alerts == full.num_alerts
    assert np.array_equal(logdir.traces.wall_time, full.traces.wall_time)
    assert not any("rewritten" in w for w in logdir.warnings), logdir.warnings

    # now a version that changed a byte just before where reading stopped (past the first
    # 256 bytes that were the only check on local files) and grew: another run's data
    cursor = logdir.file_cursor(0, "graph_execution_traces").offset
    assert cursor == len(data)
    changed = bytearray(data)
    changed[cursor - 5] ^= 0xFF
    _put(s3, f"{url}/{traces.name}", bytes(changed) + data[:200])
    logdir.update()
    assert len(logdir.traces) == len(full.traces)
    assert any(traces.name in w and "rewritten" in w for w in logdir.warnings), logdir.warnings


def test_a_longer_version_changed_in_the_middle_is_not_read_on(s3: S3Server,
                                                              reference_logdir: str) -> None:
    """Followed live, an object replaced by a longer version whose bytes already read
    changed between its first and last 256 (the only ones compared before): every byte read
    is compared (SECURITY.md), so it is another run's data — a warning, no row of it."""
    src = Path(reference_logdir)
    url = "s3://runs/middle"
    s3.upload(src, url)
    traces = next(src.glob("*.graph_execution_traces"))
    data = traces.read_bytes()
    logdir = DebugLogdir(url)
    logdir.update()
    rows = len(logdir.traces)
    assert logdir.file_cursor(0, "graph_execution_traces").offset == len(data)
    changed = bytearray(data)
    changed[len(data) // 2] ^= 0xFF  # a payload byte: its record would fail its CRC
    _put(s3, f"{url}/{traces.name}", bytes(changed) + data)  # and whole records after it
    logdir.update()
    assert len(logdir.traces) == rows, "rows read on from a version whose middle changed"
    assert any(traces.name in w and "rewritten" in w for w in logdir.warnings), logdir.warnings


def test_missing_bucket_is_one_line_naming_it(s3: S3Server) -> None:
    line = one_line_error(cli("report", "s3://no-such-bucket/run"), "s3://no-such-bucket/run")
    assert "no such bucket" in line


def test_wrong_credentials_are_one_line_naming_the_url(s3: S3Server,
                                                       reference_logdir: str) -> None:
    url = s3.upload(reference_logdir, "s3://runs/creds")
    line = one_line_error(cli("report", url, env=s3.env(AWS_SECRET_ACCESS_KEY="wrong")), url)
    assert "access denied" in line and "credentials" in line
    # the right key reads it (the refusal was the key's, not the bucket's)
    assert cli("report", url, env=s3.env()).returncode == 1


def test_unreachable_server_is_one_line_naming_the_url(s3: S3Server) -> None:
    with __import__("socket").socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = "s3://runs/mlp"
    proc = cli("report", url, env=s3.env(AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}"))
    assert "cannot reach" in one_line_error(proc, url)


def test_missing_extra_names_the_pip_install(s3: S3Server) -> None:
    code = ("import sys; sys.modules['s3fs'] = None\n"  # as if s3fs were not installed
            "from tfdbg_tui.cli import main; sys.exit(main(['report', 's3://runs/mlp']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=guard(120))
    assert "Traceback" not in proc.stderr
    assert "pip install 'tfdbg-tui[s3]'" in one_line_error(proc, "s3://runs/mlp")


def _big_run(d: Path, n: int) -> None:
    """A run with `n` FULL_HEALTH graph traces (over one 8 MB chunk), NaN in trace 10."""
    with LogdirWriter(d, run_id="big", hostname="h0", file_timestamp=1000) as w:
        f = w.add_source_file("/job/train.py", ["x = data()", "y = tf.math.log(x)"])
        frame = w.add_stack_frame(f, 2, "step")
        w.add_graph("g", "train_step")
        w.add_op("g", "Log", "log", [], stack_frame_ids=[frame])
        vectors = np.zeros((n, 11))
        vectors[:, 2] = 1  # dtype float32 ...
        vectors[:, 3] = 1  # ... rank 1
        vectors[:, 4] = 8  # 8 elements
        vectors[:, 10] = 8  # all positive
        vectors[10, 7], vectors[10, 10] = 1, 7  # one NaN in trace 10
        w.add_graph_traces("g", "log", 0, "FULL_HEALTH", vectors,
                           wall_times=1000 + np.arange(n) * 1e-3)


def test_object_deleted_mid_read(s3: S3Server, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    d = tmp_path / "big"
    n = 320_000
    _big_run(d, n)
    traces = next(d.glob("*.graph_execution_traces"))
    # A GET under way when the object is deleted still gives the version it began with (as
    # S3 does), so the object is read in GETs of 1 MB: the stream reads at most
    # (remote_stream.AHEAD + 2) MB ahead of the index, and the GETs after that fail
    monkeypatch.setenv("TFDBG_TUI_REMOTE_SPAN", str(1 << 20))
    assert traces.stat().st_size > CHUNK * 3
    url = s3.upload(d, "s3://runs/deleted")
    logdir = DebugLogdir(url)
    gone: list[int] = []

    def progress(done: int, _total: int) -> None:
        if done >= CHUNK // 2 and not gone:  # the first chunk of the traces was read
            s3.fs().rm(f"runs/deleted/{traces.name}")
            gone.append(done)

    logdir.update(progress)  # must not raise
    assert gone
    assert 0 < len(logdir.traces) < n  # what was read before is kept
    assert logdir.num_alerts == 1  # the NaN of trace 10 was in the first chunk
    warning = [w for w in logdir.warnings if "reading stopped" in w]
    assert len(warning) == 1 and f"{url}/{traces.name}" in warning[0], logdir.warnings
    assert "\n" not in warning[0]
    logdir.update()  # the object is gone: nothing more, no second warning, no error
    assert len([w for w in logdir.warnings if "reading stopped" in w]) == 1


def test_hostile_length_in_an_object_allocates_nothing(s3: S3Server, tmp_path: Path) -> None:
    """A record claiming 1.5 GB in a small object: waited for as a record still being
    written, never allocated (the size is checked against the object's listed size)."""
    d = tmp_path / "hostile"
    _big_run(d, 20)
    traces = next(d.glob("*.graph_execution_traces"))
    length = 1_500_000_000
    raw = length.to_bytes(8, "little")
    with open(traces, "ab") as f:
        f.write(raw + masked_crc32c(raw).to_bytes(4, "little") + bytes(64))
    url = s3.upload(d, "s3://runs/hostile")
    tracemalloc.start()
    try:
        logdir = DebugLogdir(url)
        logdir.update()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(logdir.traces) == 20
    assert peak < 100 << 20, peak
    assert logdir.file_cursor(0, "graph_execution_traces").need > 0  # waiting for it


def test_open_and_diff_name_a_missing_bucket_in_one_line(s3: S3Server,
                                                         reference_logdir: str) -> None:
    url = "s3://no-such-bucket/run"
    assert "no such bucket" in one_line_error(cli(url), url)  # the TUI: before any screen
    assert "no such bucket" in one_line_error(cli("diff", reference_logdir, url), url)
    assert "no such bucket" in one_line_error(cli("export", url, "/nonexistent/out"), url)
