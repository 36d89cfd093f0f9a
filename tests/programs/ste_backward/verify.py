"""Proves with numpy, without tfdbg-tui, what tests/compare/test_backward_lines.py expects:
each program runs once (no dumping) and prints its trace; every step's loss and weights
after the update must match the numpy reference of its straight-through estimator within
|a-b| <= 1e-6 + 1e-5|b|. Then, on the references: all three estimators give the same step-0
loss (the forward agrees), and the 'paren' and 'clipped' ones a step-0 gradient of w1 and b1
beyond that tolerance from the identity's (the first divergence is step 0's gradient).

python verify.py      (exit 0 only if every claim holds; prints each)
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ste_data import arrays  # noqa: E402

CLAIMS = {"tf1_ste.py": "identity", "tf2_ste_fn.py": "identity",
          "tf2_ste_paren_fn.py": "paren", "tf2_ste_clipped_eager.py": "clipped"}


def reference(estimator):
    """(losses, step-0 gradients, final weights) of three SGD(0.1) steps in float64."""
    d = {k: v.astype(np.float64) for k, v in arrays().items()}
    x, y = d["x"], d["y"]
    w = {k: d[k].copy() for k in ("w1", "b1", "w2", "b2")}
    losses, grads0 = [], None
    for _ in range(3):
        h = x @ w["w1"] + w["b1"]
        q = np.round(h * 2.0) / 2.0
        out = q @ w["w2"] + w["b2"]
        losses.append(float(np.mean((out - y) ** 2)))
        dout = 2.0 * (out - y) / out.size
        g = {"w2": q.T @ dout, "b2": dout.sum(0)}
        dq = dout @ w["w2"].T
        dh = {"identity": dq, "paren": dq * 0.0,
              "clipped": dq * (np.abs(h) <= 1.0)}[estimator]
        g["w1"], g["b1"] = x.T @ dh, dh.sum(0)
        grads0 = grads0 or g
        for k in w:
            w[k] = w[k] - 0.1 * g[k]
    return losses, grads0, w


def close(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return bool(np.all(np.abs(a - b) <= 1e-6 + 1e-5 * np.abs(b)))


def main() -> int:
    failed = 0
    for program, estimator in CLAIMS.items():
        done = subprocess.run([sys.executable, os.path.join(HERE, program)], cwd=HERE,
                              env={**os.environ, "STE_TRACE": "1"}, capture_output=True,
                              text=True, check=True)
        trace = json.loads(done.stdout.split("trace ", 1)[1])
        losses, _, weights = reference(estimator)
        ok = close(trace["loss"], losses) and all(close(trace["weights"][k], weights[k])
                                                  for k in weights)
        print(("ok  " if ok else "FAIL"), program, "matches the", estimator, "reference")
        failed += not ok
    ref = {e: reference(e) for e in ("identity", "paren", "clipped")}
    for e in ("paren", "clipped"):
        same_loss = close(ref[e][0][0], ref["identity"][0][0])
        differ = all(not close(ref[e][1][k], ref["identity"][1][k]) for k in ("w1", "b1"))
        head_same = all(close(ref[e][1][k], ref["identity"][1][k]) for k in ("w2", "b2"))
        ok = same_loss and differ and head_same
        print(("ok  " if ok else "FAIL"), e, ": step-0 loss equal, w1/b1 gradients differ, "
              "w2/b2 equal")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
