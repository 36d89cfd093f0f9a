"""A run written by several hosts at once, with the TF-free writer (tests of the merge of
hosts into one timeline: tests/reader/test_reader_many_hosts.py, tests/tui/test_tui_hosts.py).

Four workers of one job (one file set each, as TensorFlow writes them) call `train_step` in
lock-step; worker k runs each step 10·k ms after worker 0, so their records interleave in
time. Worker 2's data goes bad at step 3: its Log produces −∞ there.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dumper.writer import LogdirWriter

HOSTS = 4
STEPS = 6
T0 = 1_700_000_000.0


def when(host: int, step: int, op: int) -> float:
    return T0 + step + host * 0.01 + op * 0.001


def health(size: int, *, ninf: int = 0, pos: int = 0, neg: int = 0) -> list[float]:
    return [1, 1, 1, 1, size, ninf, 0, 0, neg, 0, pos]


def write_job(d: Path) -> None:
    for k in range(HOSTS):
        with LogdirWriter(d, run_id="job-7", hostname=f"worker-{k}",
                          file_timestamp=int(T0) + k) as w:
            f = w.add_source_file("/job/train.py", ["x = batch()", "y = tf.math.log(x)"])
            frame = w.add_stack_frame(f, 2, "train_step")
            w.add_graph("g", "train_step")
            w.add_op("g", "Placeholder", "x", [], stack_frame_ids=[frame])
            w.add_op("g", "Log", "log", ["x:0"], stack_frame_ids=[frame])
            for step in range(STEPS):
                bad = k == 2 and step >= 3  # the line that goes wrong: worker 2, step 3
                w.add_graph_trace("g", "x", 0, "FULL_HEALTH",
                                  health(4, pos=3 if bad else 4, neg=0),
                                  wall_time=when(k, step, 0))
                w.add_graph_trace("g", "log", 0, "FULL_HEALTH",
                                  health(4, ninf=1, neg=3) if bad else health(4, neg=4),
                                  wall_time=when(k, step, 1))
                w.add_execution("__inference_train_step_1", "FULL_HEALTH",
                                [health(1, ninf=1) if bad else health(1, neg=1)],
                                graph_id="g", output_tensor_ids=[100 + step],
                                stack_frame_ids=[frame], wall_time=when(k, step, 2))


def host_of_time(t: np.ndarray) -> np.ndarray:
    """Which worker wrote a record, from its wall time (see `when`)."""
    return np.round(((t - T0) % 1.0) * 100).astype(int) // 1
