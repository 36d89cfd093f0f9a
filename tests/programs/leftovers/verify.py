"""Proves with numpy, without tfdbg-tui, what tests/compare/test_leftovers.py expects of each
program: each runs once (no dumping) and prints its trace; every step's loss, weights after
the update and moving averages must match common.reference within |a-b| <= 1e-6 + 1e-5|b|.
So two programs proven against the same reference are equivalent, and `momentum_slow`
(proven against the rate 0.05) differs from TF1's 0.1 from step 0's learning rate on;
`adam_slow` (proven against Adam at 0.01) from TF1's Adam at 0.05 from step 0's update on.

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

# program arguments -> (optimizer, rate or None for common.RATES, averages kept)
CLAIMS = {
    ("tf1_leftover.py", "adamax", "none"): ("adamax", None, False),
    ("tf1_leftover.py", "momentum", "none"): ("momentum", None, False),
    ("tf1_leftover.py", "adam", "none"): ("adam", None, False),
    ("keras_leftover.py", "adam", "eager", "none"): ("adam", None, False),
    ("keras_leftover.py", "adam_slow", "eager", "none"): ("adam", 0.01, False),
    ("tf1_leftover.py", "nesterov", "none"): ("nesterov", None, False),
    ("keras_leftover.py", "nesterov", "eager", "none"): ("nesterov", None, False),
    ("tf1_leftover.py", "sgd", "ema"): ("sgd", None, True),
    ("tf1_leftover.py", "sgd", "none"): ("sgd", None, False),
    ("keras_leftover.py", "adamax", "eager", "none"): ("adamax", None, False),
    ("keras_leftover.py", "momentum", "eager", "none"): ("momentum", None, False),
    ("keras_leftover.py", "momentum_slow", "eager", "none"): ("momentum", 0.05, False),
    ("keras_leftover.py", "sgd", "eager", "assign"): ("sgd", None, True),
    ("keras_leftover.py", "sgd", "function", "assign"): ("sgd", None, True),
    ("keras_leftover.py", "sgd", "eager", "none"): ("sgd", None, False),
}


def main() -> int:
    fails = 0
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    for args, (opt, rate, avg) in CLAIMS.items():
        p = subprocess.run([sys.executable, os.path.join(HERE, args[0]), *args[1:]],
                           capture_output=True, text=True, env=env, timeout=600)
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("trace ")]
        if p.returncode or len(lines) != 1:
            print("FAIL", args, "exit", p.returncode, p.stderr[-500:])
            fails += 1
            continue
        got, want = json.loads(lines[0][6:]), reference(opt, rate=rate)
        worst = 0.0
        for g, w in zip(got, want, strict=True):
            pairs = [(g["loss"], w["loss"]), *zip(g["weights"], w["weights"], strict=True)]
            if avg:
                pairs += list(zip(g["averages"], w["averages"], strict=True))
            elif g["averages"] is not None:
                pairs.append((1.0, 0.0))  # averages kept where none should be
            for a, b in pairs:
                a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
                err = np.abs(a - b) - (1e-6 + 1e-5 * np.abs(b))
                worst = max(worst, float(np.abs(a - b).max()))
                if (err > 0).any():
                    fails += 1
                    print("FAIL", args, "differs from numpy", opt, rate, a, b)
        print(" ".join(args), f"vs numpy {opt} rate {rate} averages {avg}: max |a-b| "
              f"{worst:.2g}")
    print(f"{fails} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
