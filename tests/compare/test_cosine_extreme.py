"""The steps table's cosine similarity on values near the float64 limit: a run whose weights,
activations and loss are ±1.7e308 against itself is a cosine of exactly 1 at every compared
quantity — a norm or dot product of such values overflows (inf/inf = NaN), which showed as a
missing cosine and numpy overflow warnings.

The run is a forged eager training loop (the TensorFlow-free writer, as in
test_compare_plot_forged.py), in float64: read w, y = x @ w, loss = Σy, a gradient, w -= lr·g.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from compare.pairs_support import run_diff

from dumper.writer import LogdirWriter

BIG = 1.7e308


def _run(path: Path) -> str:
    w = np.array([[BIG, -0.5 * BIG], [0.5 * BIG, 1.0]], np.float64)  # finite after 3 steps
    x = np.eye(2)
    with LogdirWriter(path, overwrite=True, run_id="cos00001", file_timestamp=1) as wr:
        f = wr.add_source_file("/site-packages/tensorflow/python/eager/backprop.py", ["pass"])
        backward = [wr.add_stack_frame(f, 1, "gradient")]
        o = wr.add_source_file("/site-packages/keras/src/optimizers/sgd.py", ["pass"])
        optimizer = [wr.add_stack_frame(o, 1, "update_step")]
        clock = iter(range(1_000, 2_000))
        tid = 100

        def ex(op: str, tensors: list[np.ndarray], **kw: object) -> None:
            wr.add_execution(op, "FULL_TENSOR", tensors, wall_time=float(next(clock)), **kw)

        for _ in range(3):
            ex("ReadVariableOp", [w.copy()], input_tensor_ids=[7], output_tensor_ids=[tid])
            ex("MatMul", [x @ w], input_tensor_ids=[50, tid], output_tensor_ids=[tid + 1])
            ex("Sum", [np.array(BIG)], input_tensor_ids=[tid + 1, 51],
               output_tensor_ids=[tid + 2])
            g = np.full((2, 2), 0.25 * BIG)
            ex("MatMul", [g], input_tensor_ids=[50, 53], output_tensor_ids=[tid + 3],
               stack_frame_ids=backward)
            lr = np.array(0.5)
            ex("Identity", [lr], input_tensor_ids=[54], output_tensor_ids=[tid + 4])
            ex("Mul", [lr * g], input_tensor_ids=[tid + 3, tid + 4],
               output_tensor_ids=[tid + 5], stack_frame_ids=optimizer)
            ex("AssignSubVariableOp", [], input_tensor_ids=[7, tid + 5], output_tensor_ids=[],
               stack_frame_ids=optimizer)
            w = w - lr * g
            tid += 10
    return str(path)


def test_extreme_values_against_themselves_have_a_cosine_of_one(tmp_path: Path) -> None:
    a, b = _run(tmp_path / "a"), _run(tmp_path / "b")
    code, out, err = run_diff("--json", a, b)
    assert code == 0 and not err, err  # equivalent, no overflow warning
    result = json.loads(out)
    cosines = {(s["step"], q): v["cosine"] for s in result["steps"]
               for q, v in s["quantities"].items()}
    assert {q for _, q in cosines} >= {"variable", "loss", "gradient"}, json.dumps(
        result["steps"])[:2000]
    assert all(v is not None and abs(v - 1.0) < 1e-12 for v in cosines.values()), sorted(
        cosines.items())
