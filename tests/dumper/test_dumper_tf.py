"""The dumper with real TensorFlow: library and `run`, every mode, signals, stop at NaN, demo.

Every logdir is written by a child process of its own (most forked from one that imported
TensorFlow: support.tf_fork). The children of one session run a few at a time (`runs`, one
session fixture); the ones that get a signal wait for a line the child prints mid-training,
never for a fixed time. TensorFlow's own `DebugDataReader` (through
tests/support/tf_oracle.py) is the judge of what was written; our reader must count the same.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.paths import PROGRAMS, ROOT, tf_env
from support.slowdown import guard
from support.tf_fork import run_forked
from support.tf_oracle import tf_oracle

pytestmark = pytest.mark.tf
pytest.importorskip("tensorflow")

MODES = ["NO_TENSOR", "CURT_HEALTH", "CONCISE_HEALTH", "FULL_HEALTH", "SHAPE", "FULL_TENSOR"]
RUN = [sys.executable, "-m", "tfdbg_tui", "run"]
MLP = ["-m", "dumper.examples.nan_mlp"]
LONG = [*MLP, "--steps", "1000000"]


@dataclass
class Done:
    """A finished child: its status, output and logdir."""

    status: int
    out: str
    err: str
    logdir: str


def _jobs(tmp: Path) -> dict[str, tuple[list[str], tuple[str, int] | None, dict[str, str]]]:
    """name → (command with {L} for the logdir, (line to wait for, signal) or None, env)."""
    cache = {"XDG_CACHE_HOME": str(tmp / "cache")}
    jobs: dict[str, tuple[list[str], tuple[str, int] | None, dict[str, str]]] = {
        f"mode-{m}": ([sys.executable, str(PROGRAMS / "dumper_mixed.py"), "{L}", m], None, {})
        for m in MODES
    }
    jobs.update({
        "mlp": ([*RUN, "--logdir", "{L}", "--", "python", *MLP, "--steps", "5"], None, {}),
        "stop": ([*RUN, "--logdir", "{L}", "--stop-at-nan", "--",
                  str(ROOT / "dumper" / "examples" / "nan_mlp.py"), "--steps", "20"], None, {}),
        "eager": ([*RUN, "--mode", "CONCISE_HEALTH", "--logdir", "{L}", "--",
                   str(PROGRAMS / "dumper_eager.py")], None, {}),
        "keras": ([*RUN, "--logdir", "{L}", "--", str(PROGRAMS / "dumper_keras.py")], None, {}),
        "crash": ([*RUN, "--buffer", "100", "--logdir", "{L}", "--",
                   str(PROGRAMS / "dumper_crash.py")], None, {}),
        "sigterm": ([*RUN, "--logdir", "{L}", "--", *LONG], ("step 30:", signal.SIGTERM), {}),
        "sigint": ([*RUN, "--logdir", "{L}", "--", *LONG], ("step 30:", signal.SIGINT), {}),
        "demo": ([sys.executable, "-m", "tfdbg_tui", "demo", "--no-open"], None, cache),
    })
    return jobs


# Children that need nothing of a process started afresh: forked from one that imported
# TensorFlow already (support.tf_fork, ~3.5 s of CPU less each; `python -m tfdbg_tui run` so
# forked records the stacks a fresh process does). The ones signalled mid-training and the
# demo (which checks what a user's first `tfdbg-tui demo` does) start from scratch.
FRESH = {"sigterm", "sigint", "demo"}


def _run_forked(command: list[str], logdir: str) -> Done:
    assert command[0] == sys.executable
    done = run_forked([c.replace("{L}", logdir) for c in command[1:]], cwd=ROOT)
    return Done(done.status, done.out, done.err, logdir)


def _run_one(command: list[str], trigger: tuple[str, int] | None, env: dict[str, str],
             logdir: str) -> Done:
    proc = subprocess.Popen(
        [c.replace("{L}", logdir) for c in command], cwd=ROOT, env={**tf_env(), **env},
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    out_lines: list[str] = []
    if trigger is not None:
        assert proc.stdout is not None
        for line in proc.stdout:
            out_lines.append(line)
            if line.startswith(trigger[0]):
                proc.send_signal(trigger[1])
                break
    try:
        out, err = proc.communicate(timeout=guard(300))
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return Done(proc.returncode, "".join(out_lines) + out, err, logdir)


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Done]:
    """All the recordings of this file, made once, three children at a time."""
    tmp = tmp_path_factory.mktemp("dumper")
    jobs = _jobs(tmp)
    # Tests started in the background of a non-interactive shell (`make test &`) run with
    # SIGINT ignored (POSIX); children inherit that, Python then raises no KeyboardInterrupt,
    # and the "sigint" child would train on until killed. A handler, unlike SIG_IGN, is reset
    # to the default action at exec, so catching SIGINT here gives the children Python's
    # usual Ctrl-C, as a user's terminal does.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with ThreadPoolExecutor(max_workers=3) as pool:
            futures = {
                name: (pool.submit(_run_one, cmd, trigger, env, str(tmp / name))
                       if name in FRESH else pool.submit(_run_forked, cmd, str(tmp / name)))
                for name, (cmd, trigger, env) in jobs.items()
            }
            return {name: f.result() for name, f in futures.items()}
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _ours(logdir: str) -> tuple[int, int]:
    from reader.index.logdir import DebugLogdir

    d = DebugLogdir(logdir)
    d.update()
    return len(d.executions), len(d.traces)


def _check_loads(done: Done) -> dict[str, Any]:
    """The logdir loads in TensorFlow's reader and ours, with equal counts."""
    our_code = [str(ROOT / "tfdbg_tui"), str(ROOT / "dumper" / "core.py"), "reader/"]
    assert not any(f'File "{p}' in done.err for p in our_code), done.err[-2000:]
    oracle = tf_oracle(done.logdir)
    counts = oracle["counts"]
    assert _ours(done.logdir) == (counts["executions"], counts["graph_traces"])
    return oracle


@pytest.mark.parametrize("mode", MODES)
def test_enable_every_mode(runs: dict[str, Done], mode: str) -> None:
    done = runs[f"mode-{mode}"]
    assert done.status == 0, done.err[-3000:]
    assert done.out.strip() == "done"
    oracle = _check_loads(done)
    counts = oracle["counts"]
    assert counts["executions"] >= 4  # Log and three calls of outer
    assert counts["graph_traces"] >= 3 * 4  # Placeholder, Sqrt, mul, … per call
    assert counts["graphs"] >= 3  # outer's and inner's FuncGraphs, nested, and the outermost
    assert oracle["modes"] == [MODES.index(mode) + 1 if mode != "FULL_TENSOR" else 7]
    if mode in ("NO_TENSOR", "SHAPE"):
        assert oracle["alerts_total"] == 0
    else:
        first = oracle["first"]
        assert first["kind"] == "eager" and first["op_type"] == "Log"


def test_nested_graphs_recorded(runs: dict[str, Done]) -> None:
    from tensorflow.python.debug.lib import debug_events_reader

    with debug_events_reader.DebugDataReader(runs["mode-FULL_HEALTH"].logdir) as r:
        r.update()
        sqrt = [t for t in r.graph_execution_traces() if t.op_type == "Sqrt"]
        assert len(sqrt) == 3
        inner = r.graph_by_id(sqrt[0].graph_id)
        assert inner.name == "inner"
        assert r.graph_by_id(inner.outer_graph_id).name == "outer"


def test_run_reference_example(runs: dict[str, Done]) -> None:
    done = runs["mlp"]
    assert done.status == 0, done.err[-3000:]
    assert [line.split(":")[0] for line in done.out.splitlines()] == [f"step {i}" for i in range(5)]
    assert f"open it with: tfdbg-tui {done.logdir}" in done.err
    assert "frozen runpy" not in done.err  # no TensorFlow warning about our frames
    oracle = _check_loads(done)
    first = oracle["first"]
    assert (first["kind"], first["op_type"], first["size"], first["neg_inf"]) == (
        "graph", "Log", 1000, 1)
    user = [f for f in first["stack"] if f["file"].endswith("nan_mlp.py")]
    assert user and user[-1]["function"] == "cross_entropy"
    source = Path(user[-1]["file"]).read_text().splitlines()[user[-1]["line"] - 1]
    assert "tf.math.log(probs)" in source


def test_stop_at_nan(runs: dict[str, Done]) -> None:
    done = runs["stop"]
    assert done.status == 3, done.err[-3000:]
    assert done.out.splitlines() == ["step 0: loss 5.5620", "step 1: loss 5.8140"]
    assert ("stopped at the first NaN/∞: Log op 'Log' in tf.function graph 'cross_entropy' "
            "produced −∞ in 1 of 1000 elements") in done.err
    assert "Traceback" not in done.err
    oracle = _check_loads(done)
    assert oracle["first"]["op_type"] == "Log"
    full = tf_oracle(runs["mlp"].logdir)["counts"]
    assert oracle["counts"]["executions"] < full["executions"]  # it really stopped


def test_eager_only(runs: dict[str, Done]) -> None:
    done = runs["eager"]
    assert done.status == 0, done.err[-3000:]
    oracle = _check_loads(done)
    assert oracle["counts"]["graph_traces"] == 0
    assert oracle["counts"]["executions"] >= 9
    assert oracle["first"]["kind"] == "eager" and oracle["first"]["op_type"] == "Log"


def test_keras_fit(runs: dict[str, Done]) -> None:
    done = runs["keras"]
    assert done.status == 0, done.err[-3000:]
    oracle = _check_loads(done)
    assert oracle["counts"]["graph_traces"] > 0 and oracle["counts"]["executions"] > 0


def test_uncaught_exception_keeps_buffered_data(runs: dict[str, Done]) -> None:
    done = runs["crash"]
    assert done.status == 1
    assert "RuntimeError: crash after 50 steps" in done.err
    assert 'dumper_crash.py", line' in done.err and "run_cmd.py" not in done.err
    oracle = _check_loads(done)
    # a circular buffer of 100: only its content, flushed at the exception
    assert 0 < oracle["counts"]["executions"] <= 100
    assert 50 < oracle["counts"]["graph_traces"] <= 100


@pytest.mark.parametrize(("name", "signum"), [("sigterm", signal.SIGTERM),
                                              ("sigint", signal.SIGINT)])
def test_signal_mid_training(runs: dict[str, Done], name: str, signum: int) -> None:
    done = runs[name]
    assert done.status == -signum, done.err[-3000:]  # died of the signal, as without us
    assert "open it with: tfdbg-tui" in done.err
    if signum == signal.SIGINT:
        assert "KeyboardInterrupt" in done.err
    oracle = _check_loads(done)
    assert oracle["counts"]["executions"] >= 30
    assert oracle["counts"]["graph_traces"] >= 30 * 50
    assert oracle["first"]["op_type"] == "Log"


def test_demo_records_once(runs: dict[str, Done], tmp_path_factory: pytest.TempPathFactory
                           ) -> None:
    done = runs["demo"]
    assert done.status == 0, done.err[-3000:]
    logdir = done.out.strip().splitlines()[-1]
    assert logdir.endswith(os.path.join("tfdbg-tui", "demo"))
    oracle = tf_oracle(logdir)
    assert oracle["first"]["op_type"] == "Log"
    before = sorted(os.listdir(logdir))
    again = subprocess.run(
        [sys.executable, "-m", "tfdbg_tui", "demo", "--no-open"], cwd=ROOT, capture_output=True,
        text=True, env={**tf_env(), "XDG_CACHE_HOME": str(Path(logdir).parent.parent)},
        timeout=guard(120),
    )
    assert again.returncode == 0 and again.stdout.strip() == logdir
    assert "recording" not in again.stderr and sorted(os.listdir(logdir)) == before


def _records(path: Path) -> int:
    from reader.io.tfrecord import ScanState, scan_records

    data = path.read_bytes() if path.exists() else b""
    return sum(1 for _ in scan_records(data, 0, ScanState()))


@pytest.fixture
def hung_child(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    proc = subprocess.Popen(
        [sys.executable, str(PROGRAMS / "dumper_hang.py"), str(tmp_path)], cwd=ROOT,
        env=tf_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        yield proc, tmp_path
    finally:
        proc.kill()
        proc.wait()


def test_periodic_flush_survives_sigkill(hung_child: tuple[subprocess.Popen[str], Path]
                                         ) -> None:
    """With no circular buffer, records reach the disk while the program still runs."""
    proc, logdir = hung_child
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    # The child is blocked; only the flush thread can move its records to disk. Poll the
    # files (a condition with a deadline, not a timed wait for the child).
    deadline = time.monotonic() + 30
    while True:
        traces = list(logdir.glob("*.graph_execution_traces"))
        execs = list(logdir.glob("*.execution"))
        if traces and execs and _records(traces[0]) >= 6 and _records(execs[0]) >= 3:
            break
        assert time.monotonic() < deadline, "records never reached the disk"
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    oracle = tf_oracle(str(logdir))
    assert oracle["counts"]["graph_traces"] >= 6
    assert oracle["first"]["op_type"] == "Log"
