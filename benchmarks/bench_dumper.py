"""Benchmark of the dumper: `tfdbg-tui run` against TensorFlow's own dumping, and the writer.

`main()` returns a Markdown section. Two measurements:
1. Overhead of `tfdbg-tui run` (FULL_HEALTH, no circular buffer, periodic flushes) against a
   wrapper that calls `tf.debugging.experimental.enable_dump_debug_info` directly with the
   same settings, both running the reference example for the same number of steps; whole
   process wall time, median of `REPEATS` interleaved runs each. Bar: within 5%.
2. Throughput of the TF-free `LogdirWriter`: 1,000,000 FULL_HEALTH graph traces (bulk path,
   and the one-call-per-record path on a slice) plus 250,000 executions with 30-frame stacks.
"""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
STEPS = "4000"
REPEATS = 5
DIRECT = """
import sys, runpy, tensorflow as tf
tf.debugging.experimental.enable_dump_debug_info(
    sys.argv[1], tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
sys.argv = ["nan_mlp", "--steps", sys.argv[2]]
runpy.run_module("dumper.examples.nan_mlp", run_name="__main__")
"""


def _env() -> dict[str, str]:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    return env


def _timed(command: list[str], logdir: str) -> tuple[float, float]:
    """(whole-process seconds, training seconds: from the first step line to the last)."""
    shutil.rmtree(logdir, ignore_errors=True)
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    first = last = 0.0
    for line in proc.stdout:
        last = time.perf_counter()
        if line.startswith("step 0:"):
            first = last
    if proc.wait() != 0:
        raise RuntimeError(f"{command} failed")
    return time.perf_counter() - start, last - first


def overhead(tmp: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """Median (whole, training) seconds of direct enable_dump_debug_info and tfdbg-tui run."""
    direct_dir, run_dir = os.path.join(tmp, "direct"), os.path.join(tmp, "run")
    direct_cmd = [sys.executable, "-c", DIRECT, direct_dir, STEPS]
    run_cmd = [sys.executable, "-m", "tfdbg_tui", "run", "--logdir", run_dir, "--", "-m",
               "dumper.examples.nan_mlp", "--steps", STEPS]
    direct, ours = [], []
    for _ in range(REPEATS):
        direct.append(_timed(direct_cmd, direct_dir))
        ours.append(_timed(run_cmd, run_dir))

    def med(xs: list[tuple[float, float]]) -> tuple[float, float]:
        return statistics.median(x[0] for x in xs), statistics.median(x[1] for x in xs)

    return med(direct), med(ours)


def writer_throughput(tmp: str) -> list[tuple[str, int, float]]:
    """(what, records, seconds) for the writer's paths."""
    from dumper import LogdirWriter, health_vector

    rows = []
    with LogdirWriter(os.path.join(tmp, "synth")) as w:
        fi = w.add_source_file("/synth/train.py", [f"line {i}" for i in range(200)])
        frames = [w.add_stack_frame(fi, i, f"f{i}") for i in range(1, 31)]
        w.add_graph("outer", "")
        w.add_graph("g", "train_step", "outer")
        for i in range(100):
            w.add_op("g", "MatMul", f"op{i}", [f"op{max(i - 1, 0)}:0"] if i else [],
                     stack_frame_ids=frames)
        vec = health_vector("FULL_HEALTH", np.ones(1000, np.float32), 7, 1)
        assert vec is not None
        vectors = np.tile(vec, (10_000, 1))
        start = time.perf_counter()
        for k in range(100):
            w.add_graph_traces("g", f"op{k}", 0, "FULL_HEALTH", vectors,
                               wall_times=np.arange(10_000) * 1e-4 + k)
        rows.append(("graph traces, bulk `add_graph_traces`", 1_000_000,
                     time.perf_counter() - start))
        start = time.perf_counter()
        for i in range(200_000):
            w.add_graph_trace("g", f"op{i % 100}", 0, "FULL_HEALTH", vec)
        rows.append(("graph traces, one `add_graph_trace` call each", 200_000,
                     time.perf_counter() - start))
        start = time.perf_counter()
        for i in range(250_000):
            w.add_execution("__inference_train_step_5", "FULL_HEALTH", [vec], graph_id="g",
                            input_tensor_ids=(1, 2), output_tensor_ids=(i,),
                            stack_frame_ids=frames)
        rows.append(("executions (30-frame stacks), `add_execution`", 250_000,
                     time.perf_counter() - start))
    return rows


def main() -> str:
    """Run both measurements; returns a Markdown section for BENCHMARKS.md."""
    with tempfile.TemporaryDirectory(prefix="bench-dumper-") as tmp:
        writer_rows = writer_throughput(tmp)
        direct, ours = overhead(tmp)
    whole = ours[0] / direct[0] - 1.0
    train = ours[1] / direct[1] - 1.0
    lines = [
        "## Dumper",
        "",
        f"Recording the reference example (`dumper.examples.nan_mlp --steps {STEPS}`, "
        f"FULL_HEALTH, no circular buffer), median of {REPEATS} interleaved runs; "
        "\"training\" is the time from the first step's output line to the last one. "
        "Bar: within 5%.",
        "",
        "| how | whole process, s | training, s |",
        "|---|---:|---:|",
        f"| `enable_dump_debug_info` called directly | {direct[0]:.2f} | {direct[1]:.2f} |",
        f"| `tfdbg-tui run` (checks, flush thread, signal handling) | {ours[0]:.2f} | "
        f"{ours[1]:.2f} |",
        f"| overhead of `tfdbg-tui run` | {whole * 100:+.1f}% | {train * 100:+.1f}% |",
        "",
        "TF-free `LogdirWriter` (FULL_HEALTH records, written to a temporary directory):",
        "",
        "| what | records | seconds | records/s |",
        "|---|---:|---:|---:|",
    ]
    for what, n, seconds in writer_rows:
        lines.append(f"| {what} | {n:,} | {seconds:.2f} | {n / seconds:,.0f} |")
    total = sum(s for what, _, s in writer_rows if "one `add_graph_trace`" not in what)
    lines += [
        "",
        f"1,000,000 graph traces + 250,000 executions: {total:.1f} s.",
        "",
        f"Machine: {platform.platform()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(main())
