"""Proves with numpy, without tfdbg-tui, what tests/compare/test_loss_lines.py expects of each
program: each runs once (no dumping) and prints its trace; every step's loss, and the weights
after the last update (TF1's after every update), must match common.reference within
|a-b| <= 1e-6 + 1e-5|b|. So tf1_huber.py and keras_huber.py FORM `same` and `identity` are
equivalent (both the delta-1 reference), `delta` follows the delta-0.5 reference and
`penalty` the one with
0.05·Σw² on the output kernel — and both references differ from TF1's at step 0 (the loss;
the penalised total) while the data loss of `penalty` equals TF1's at step 0.

python verify.py      (exit 0 only if every claim holds; prints each with its error)
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import L2, reference  # noqa: E402

# program arguments -> (delta, l2) of the reference it must equal
CLAIMS = {
    ("tf1_huber.py",): (1.0, 0.0),
    ("keras_huber.py", "eager", "same"): (1.0, 0.0),
    ("keras_huber.py", "eager", "identity"): (1.0, 0.0),
    ("keras_huber.py", "function", "delta"): (0.5, 0.0),
    ("keras_huber.py", "fit", "penalty"): (1.0, L2),
}


def _close(a: object, b: object) -> tuple[bool, float]:
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return bool((np.abs(x - y) <= 1e-6 + 1e-5 * np.abs(y)).all()), float(np.abs(x - y).max())


def main() -> int:
    fails = 0
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    for args, (delta, l2) in CLAIMS.items():
        p = subprocess.run([sys.executable, os.path.join(HERE, args[0]), *args[1:]],
                           capture_output=True, text=True, env=env, timeout=600)
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("trace ")]
        if p.returncode or len(lines) != 1:
            print("FAIL", args, "exit", p.returncode, p.stderr[-500:])
            fails += 1
            continue
        got, want = json.loads(lines[0][6:]), reference(delta, l2)
        worst = 0.0
        for g, w in zip(got, want, strict=True):
            pairs = [(g["loss"], w["loss"])]
            if "weights" in g:
                pairs += list(zip(g["weights"], w["weights"], strict=True))
            for a, b in pairs:
                ok, err = _close(a, b)
                worst = max(worst, err)
                if not ok:
                    fails += 1
                    print("FAIL", args, "differs from numpy", (delta, l2), a, b)
        print(" ".join(args), f"vs numpy delta={delta} l2={l2}: max |a-b| {worst:.2g}")
    base, half, pen = reference(), reference(0.5), reference(1.0, L2)
    if _close(base[0]["loss"], half[0]["loss"])[0]:
        fails += 1
        print("FAIL Huber(delta=0.5) is not told apart at step 0")
    if _close(base[0]["loss"], pen[0]["loss"])[0]:
        fails += 1
        print("FAIL the penalty is not told apart at step 0")
    print(f"step 0 loss: delta 1 {base[0]['loss']:.6f}, delta 0.5 {half[0]['loss']:.6f}, "
          f"with the penalty {pen[0]['loss']:.6f}")
    print(f"{fails} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
