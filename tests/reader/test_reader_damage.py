"""Damaged, partial and hostile logdirs: clear warnings, and everything else still loads.

Byte offsets of records come from TensorFlow's own reader (the oracle), not from ours.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from support.paths import ROOT, tf_env
from support.slowdown import guard
from support.tf_oracle import tf_oracle

from reader import LogdirError, open_logdir


@pytest.fixture(scope="module")
def source(make_tf_logdir: Callable[..., str]) -> tuple[str, dict]:
    logdir = make_tf_logdir("mixed", "FULL_HEALTH")
    return logdir, tf_oracle(logdir)


def copy(src: str, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def one(d: Path, suffix: str) -> Path:
    (path,) = d.glob(f"*.{suffix}")
    return path


def test_truncated_tail_is_not_yet_written(source: tuple[str, dict], tmp_path: Path) -> None:
    src, oracle = source
    d = copy(src, tmp_path / "ld")
    traces = one(d, "graph_execution_traces")
    last = oracle["trace_offsets"][-1]
    with open(traces, "r+b") as f:
        f.truncate(last + 7)  # the last record is cut inside its header
    logdir = open_logdir(str(d))
    assert len(logdir.traces) == oracle["counts"]["graph_traces"] - 1
    assert logdir.warnings == []  # a partial record is "not yet", not corruption
    # ... and it is picked up once the rest arrives
    shutil.copy(one(Path(src), "graph_execution_traces"), traces)
    stats = logdir.update()
    assert stats.traces == 1
    assert len(logdir.traces) == oracle["counts"]["graph_traces"]


def test_flipped_payload_byte_skips_one_record(source: tuple[str, dict], tmp_path: Path) -> None:
    src, oracle = source
    d = copy(src, tmp_path / "ld")
    execution = one(d, "execution")
    offsets = oracle["execution_offsets"]
    k = len(offsets) // 2
    data = bytearray(execution.read_bytes())
    data[offsets[k] + 12 + 5] ^= 0xFF  # inside the payload of record k
    execution.write_bytes(bytes(data))
    logdir = open_logdir(str(d))
    assert len(logdir.executions) == oracle["counts"]["executions"] - 1
    assert logdir.corrupt_records == 1
    assert any(execution.name in w and str(offsets[k]) in w for w in logdir.warnings)
    assert len(logdir.traces) == oracle["counts"]["graph_traces"]  # the rest loads


def test_bad_length_crc_stops_that_file(source: tuple[str, dict], tmp_path: Path) -> None:
    src, oracle = source
    d = copy(src, tmp_path / "ld")
    traces = one(d, "graph_execution_traces")
    offsets = oracle["trace_offsets"]
    k = len(offsets) // 3
    data = bytearray(traces.read_bytes())
    data[offsets[k] + 2] ^= 0x01  # inside the length field of record k
    traces.write_bytes(bytes(data))
    logdir = open_logdir(str(d))
    assert len(logdir.traces) == k
    assert any("length" in w and str(offsets[k]) in w for w in logdir.warnings)
    assert len(logdir.executions) == oracle["counts"]["executions"]


@pytest.mark.parametrize("suffix", ["stack_frames", "source_files", "graphs", "metadata",
                                    "execution"])
def test_missing_suffix_file(source: tuple[str, dict], tmp_path: Path, suffix: str) -> None:
    src, oracle = source
    d = copy(src, tmp_path / "ld")
    one(d, suffix).unlink()
    logdir = open_logdir(str(d))
    assert any("missing" in w and f".{suffix}" in w for w in logdir.warnings)
    if suffix != "execution":
        assert len(logdir.executions) == oracle["counts"]["executions"]
    if suffix not in ("graphs",):
        assert len(logdir.traces) == oracle["counts"]["graph_traces"]
    # the report still works and names the problem
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "report", str(d)],
                          capture_output=True, text=True, env=tf_env(), cwd=ROOT,
                          timeout=guard(120))
    assert proc.returncode in (0, 1), proc.stderr
    assert "missing" in proc.stdout and "Traceback" not in proc.stderr


def test_unresolvable_frames_when_sources_missing(source: tuple[str, dict],
                                                  tmp_path: Path) -> None:
    src, _ = source
    d = copy(src, tmp_path / "ld")
    one(d, "source_files").unlink()
    logdir = open_logdir(str(d))
    alerts = logdir.alerts()
    frames = logdir.alert_stack(int(alerts.kind[0]), int(alerts.index[0]))
    assert frames and not any(f.resolved for f in frames)
    assert logdir.user_frame(frames) is None


def run_report(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfdbg_tui", "report", *args],
                          capture_output=True, text=True, env=tf_env(), cwd=ROOT,
                          timeout=guard(120))


@pytest.mark.parametrize("case", ["nonexistent", "file", "empty", "foreign", "garbage"])
def test_bad_logdirs_give_one_line_and_status_2(tmp_path: Path, case: str) -> None:
    target = tmp_path / "x"
    if case == "file":
        target.write_text("hello")
    elif case == "empty":
        target.mkdir()
    elif case == "foreign":
        target.mkdir()
        (target / "events.out.tfevents.123.host").write_bytes(os.urandom(100))
    elif case == "garbage":
        target.mkdir()
        for suffix in ("metadata", "execution", "graphs"):
            (target / f"tfdbg_events.1.host.{suffix}").write_bytes(os.urandom(64))
    proc = run_report(str(target))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tfdbg-tui report: error:")
    if case != "garbage":
        with pytest.raises(LogdirError):
            open_logdir(str(target))


def test_bad_usage_is_status_2() -> None:
    proc = run_report("--limit", "many", "/tmp")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


NOBODY = 65534


def as_nobody(fn: Callable[[], dict]) -> dict:
    """`fn()` in a forked child without root's privileges (uid/gid nobody), so a file of mode
    0 is really unreadable; as another user, simply `fn()`. Its result comes back as JSON.

    Why fork and not a new interpreter: nobody cannot reach this Python (it lives under
    /root); the forked child already has every module the reader needs imported."""
    if os.geteuid() != 0:
        return fn()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop privileges, run, report, never return into pytest
        code = 0
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            os.write(w, json.dumps(fn()).encode())
        except BaseException as exc:  # everything goes back to the parent
            os.write(w, json.dumps({"error": repr(exc)}).encode())
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def test_unreadable_file_warns(source: tuple[str, dict]) -> None:
    """A file of the run that cannot be read (permission denied) is a warning; the rest
    loads. Run without privileges, so it runs as root too (root reads mode-0 files)."""
    src, oracle = source
    top = Path(tempfile.mkdtemp(prefix="tfdbg-unreadable-"))
    try:
        top.chmod(0o755)  # nobody may enter it (pytest's own temp folder is 0700)
        d = copy(src, top / "ld")
        for f in d.iterdir():
            f.chmod(0o644)
        open_logdir(str(d))  # every module the read needs, imported before the fork
        one(d, "execution").chmod(0)

        def read() -> dict:
            logdir = open_logdir(str(d))
            return {"warnings": logdir.warnings, "traces": len(logdir.traces),
                    "executions": len(logdir.executions)}

        out = as_nobody(read)
    finally:
        shutil.rmtree(top)
    assert "error" not in out, out
    assert any("cannot read" in w and "execution" in w for w in out["warnings"]), out
    assert out["executions"] == 0
    assert out["traces"] == oracle["counts"]["graph_traces"]


def test_two_runs_listed_newest_default_and_selectable(make_tf_logdir: Callable[..., str],
                                                       tmp_path: Path) -> None:
    a = make_tf_logdir("eager", "FULL_HEALTH")
    b = make_tf_logdir("function", "FULL_HEALTH")
    d = tmp_path / "two"
    d.mkdir()
    for k, src in enumerate((a, b)):
        for f in Path(src).iterdir():
            # two programs forked from one warm process can start within the same second:
            # their `tfdbg_events.<seconds>.<host>.*` names would collide, which two real runs
            # of one host in one folder never do — the second run's seconds moved on by one
            name = f.name
            parts = name.split(".")
            if k and len(parts) > 2 and parts[1].isdigit():
                parts[1] = str(int(parts[1]) + 1)
                name = ".".join(parts)
            shutil.copy(f, d / name)
    oa, ob = sorted((tf_oracle(a), tf_oracle(b)), key=lambda o: o["start_wall_time"])
    logdir = open_logdir(str(d))
    assert {r.run_id for r in logdir.runs} == {oa["run_id"], ob["run_id"]}
    assert logdir.run_id == ob["run_id"]  # the newest run is the default
    assert len(logdir.executions) == ob["counts"]["executions"]
    other = open_logdir(str(d), run=oa["run_id"][:6])
    assert len(other.executions) == oa["counts"]["executions"]
    with pytest.raises(LogdirError):
        open_logdir(str(d), run="no-such-run")
