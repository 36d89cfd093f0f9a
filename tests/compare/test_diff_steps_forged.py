"""The training-step model on forged logdirs (the TensorFlow-free writer): hand-written
training loops it must model, and self-contradicting graphs it must survive (issue 18).

A forged "training step" is the smallest thing the model recognises: a variable read
(`ReadVariableOp`) feeding a forward op (`MatMul`), and an update of that variable
(`AssignSubVariableOp`) with a float value — in eager executions linked by tensor ids, or in
a graph traced once per step.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from compare.pairs_support import diff_json, run_diff

from dumper.writer import LogdirWriter

HANDLE = 7  # the eager tensor id of the variable's handle (created before the recording)


def _eager_run(path: Path, steps: int, scale: float) -> str:
    """`steps` eager steps: read w, y = x @ w, loss = Σy, g = xᵀ·1 (made inside the tape's
    `gradient`, as its stack says), lr, w -= lr·g·scale."""
    w = np.full((2, 2), 0.5, np.float32)
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    with LogdirWriter(path, overwrite=True) as wr:
        f = wr.add_source_file("/site-packages/tensorflow/python/eager/backprop.py", ["pass"])
        backward = [wr.add_stack_frame(f, 1, "gradient")]
        o = wr.add_source_file("/site-packages/keras/src/optimizers/sgd.py", ["pass"])
        optimizer = [wr.add_stack_frame(o, 1, "update_step")]
        tid = 100
        for _ in range(steps):
            wr.add_execution("ReadVariableOp", "FULL_TENSOR", [w.copy()],
                             input_tensor_ids=[HANDLE], output_tensor_ids=[tid])
            y = x @ w
            wr.add_execution("MatMul", "FULL_TENSOR", [y], input_tensor_ids=[50, tid],
                             output_tensor_ids=[tid + 1])
            wr.add_execution("Sum", "FULL_TENSOR", [np.array(y.sum(), np.float32)],
                             input_tensor_ids=[tid + 1, 51], output_tensor_ids=[tid + 2])
            g = (x.T @ np.ones((2, 2), np.float32)).astype(np.float32)
            wr.add_execution("MatMul", "FULL_TENSOR", [g], input_tensor_ids=[50, 53],
                             output_tensor_ids=[tid + 3], stack_frame_ids=backward)
            lr = np.array(0.1, np.float32)
            wr.add_execution("Identity", "FULL_TENSOR", [lr], input_tensor_ids=[54],
                             output_tensor_ids=[tid + 4])
            delta = (lr * g * scale).astype(np.float32)
            wr.add_execution("Mul", "FULL_TENSOR", [delta], input_tensor_ids=[tid + 3, tid + 4],
                             output_tensor_ids=[tid + 5], stack_frame_ids=optimizer)
            wr.add_execution("AssignSubVariableOp", "FULL_TENSOR", [],
                             input_tensor_ids=[HANDLE, tid + 5], output_tensor_ids=[],
                             stack_frame_ids=optimizer)
            w = w - delta
            tid += 10
    return str(path)


def test_forged_eager_steps_pair_and_a_changed_update_diverges_at_its_step(
        tmp_path: Path) -> None:
    """Same loop, same numbers: equivalent over its steps. A different update size changes
    nothing at step 0 but the variable read at step 1: the divergence is step 0's update
    (the optimizer's own product, which differs first in time, ranks after it)."""
    a = _eager_run(tmp_path / "a", 3, 1.0)
    code, r = diff_json(a, _eager_run(tmp_path / "same", 3, 1.0))
    assert (code, r["verdict"]) == (0, "equivalent"), r["verdict_text"]
    assert r["training"]["steps_a"] == r["training"]["steps_b"] == 3
    code, r = diff_json(a, _eager_run(tmp_path / "b", 3, 2.0))
    assert (code, r["verdict"]) == (1, "diverge")
    first = r["first_divergence"]
    assert (first["step"], first["quantity"]) == (0, "update")


def test_self_contradicting_graph_is_survived(tmp_path: Path) -> None:
    """A graph whose ops read themselves, an update of a variable nothing creates, inputs
    naming missing ops: one line at most, never a traceback, and a verdict exit status."""
    paths = []
    for name in ("a", "b"):
        with LogdirWriter(tmp_path / name, overwrite=True) as wr:
            wr.add_graph("g1", "train_step")
            wr.add_op("g1", "ReadVariableOp", "read", ["read:0"])  # its own input
            wr.add_op("g1", "MatMul", "mm", ["read:0", "missing:3"])
            wr.add_op("g1", "AssignSubVariableOp", "upd", ["nowhere:0", "mm:0"], 0)
            wr.add_op("g1", "ResourceApplyGradientDescent", "apply", ["read:0"], 0)
            for step in range(2):
                for op in ("read", "mm"):
                    wr.add_graph_trace("g1", op, 0, "FULL_TENSOR",
                                       np.full((2, 2), float(step), np.float32))
        paths.append(str(tmp_path / name))
    code, out, err = run_diff("--json", *paths)
    assert code in (0, 1, 3), err
    assert "Traceback" not in err and out.strip().startswith("{")
