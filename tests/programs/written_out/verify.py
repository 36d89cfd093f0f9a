"""Proves with numpy, without tfdbg-tui, what tests/compare/test_written_out.py expects of each
program: each runs once (no dumping) and prints its trace; every step's loss and weights after
the update must match common.reference within |a-b| <= 1e-6 + 1e-5|b|. So tf1_written.py and
keras_written.py `tanh` (both proven against the tanh reference) are equivalent, and
keras_written.py `sigmoid` (proven against the sigmoid reference) differs from step 0's hidden
layer on.

python verify.py      (exit 0 only if every claim holds; prints each with its error)
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import reference  # noqa: E402

# program arguments -> the hidden activation of the reference it must equal
CLAIMS = {
    ("tf1_written.py",): "tanh",
    ("keras_written.py", "eager", "tanh"): "tanh",
    ("keras_written.py", "function", "tanh"): "tanh",
    ("keras_written.py", "function", "sigmoid"): "sigmoid",
}


def main() -> int:
    fails = 0
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    for args, activation in CLAIMS.items():
        p = subprocess.run([sys.executable, os.path.join(HERE, args[0]), *args[1:]],
                           capture_output=True, text=True, env=env, timeout=600)
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("trace ")]
        if p.returncode or len(lines) != 1:
            print("FAIL", args, "exit", p.returncode, p.stderr[-500:])
            fails += 1
            continue
        got, want = json.loads(lines[0][6:]), reference(activation)
        worst = 0.0
        for g, w in zip(got, want, strict=True):
            for a, b in [(g["loss"], w["loss"]), *zip(g["weights"], w["weights"], strict=True)]:
                a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
                worst = max(worst, float(np.abs(a - b).max()))
                if (np.abs(a - b) > 1e-6 + 1e-5 * np.abs(b)).any():
                    fails += 1
                    print("FAIL", args, "differs from numpy", activation, a, b)
        print(" ".join(args), f"vs numpy {activation}: max |a-b| {worst:.2g}")
    # the mistake shows: the two references differ from step 0's loss on
    if abs(reference("tanh")[0]["loss"] - reference("sigmoid")[0]["loss"]) < 1e-3:
        fails += 1
        print("FAIL the sigmoid rewrite is not told apart at step 0")
    print(f"{fails} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
