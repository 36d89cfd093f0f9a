"""Proves with numpy, without tfdbg-tui, what tests/compare/test_flatten_pairing.py expects:
each program runs once (no dumping) and prints its trace; every step's loss and weights
after the update must match the numpy reference of its activation within
|a-b| <= 1e-6 + 1e-5|b|. Then, on the references: with ReLU instead of ELU the step-0
convolution output (after its activation) differs beyond that tolerance while the weights
step 0 reads are the same arrays (the first divergence is step 0's layer output).

python verify.py      (exit 0 only if every claim holds; prints each)
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from seq_data import arrays  # noqa: E402

CLAIMS = {("tf1_seq.py",): "elu", ("tf2_seq_eager.py", "elu"): "elu",
          ("tf2_seq_eager.py", "relu"): "relu"}
ACT = {"elu": (lambda a: np.where(a > 0, a, np.expm1(a)), lambda a: np.where(a > 0, 1.0,
                                                                             np.exp(a))),
       "relu": (lambda a: np.maximum(a, 0.0), lambda a: (a > 0).astype(np.float64))}


def reference(act):
    """(losses, step-0 activation output, final weights) of three SGD(0.05) steps."""
    d = {k: v.astype(np.float64) for k, v in arrays().items()}
    x, y = d["x"], d["y"]
    w = {k: d[k].copy() for k in ("conv/kernel", "conv/bias", "out/kernel", "out/bias")}
    f, df = ACT[act]
    losses, first = [], None
    for _ in range(3):
        windows = np.stack([x[:, t:t + 3, :] for t in range(8)], axis=1)  # (6, 8, 3, 2)
        a = np.einsum("btkc,kcf->btf", windows, w["conv/kernel"]) + w["conv/bias"]
        h = f(a)
        first = h if first is None else first
        flat = h.reshape(6, 24)
        out = flat @ w["out/kernel"] + w["out/bias"]
        losses.append(float(np.mean((out - y) ** 2)))
        dout = 2.0 * (out - y) / out.size
        g = {"out/kernel": flat.T @ dout, "out/bias": dout.sum(0)}
        da = (dout @ w["out/kernel"].T).reshape(6, 8, 3) * df(a)
        g["conv/kernel"] = np.einsum("btkc,btf->kcf", windows, da)
        g["conv/bias"] = da.sum((0, 1))
        for k in w:
            w[k] = w[k] - 0.05 * g[k]
    return losses, first, w


def close(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return bool(np.all(np.abs(a - b) <= 1e-6 + 1e-5 * np.abs(b)))


def main() -> int:
    failed = 0
    for args, act in CLAIMS.items():
        done = subprocess.run([sys.executable, os.path.join(HERE, args[0]), *args[1:]],
                              cwd=HERE, env={**os.environ, "SEQ_TRACE": "1"},
                              capture_output=True, text=True, check=True)
        trace = json.loads(done.stdout.split("trace ", 1)[1])
        losses, _, weights = reference(act)
        ok = close(trace["loss"], losses) and all(
            close(trace["weights"][k], weights[k]) for k in weights)
        print(("ok  " if ok else "FAIL"), " ".join(args), "matches the", act, "reference")
        failed += not ok
    differ = not close(reference("relu")[1], reference("elu")[1])
    print(("ok  " if differ else "FAIL"), "relu's step-0 convolution output differs from elu's")
    failed += not differ
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
