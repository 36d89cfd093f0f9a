"""Proves with numpy, without tfdbg-tui, what tests/compare/test_fixed_mixing.py expects of
each program: each runs once (no dumping) and prints its trace; every step's loss and the
weights after the update (TF1's after every update, the rewrites' after the last) must match
common.reference within |a-b| <= 1e-6 + 1e-5|b|. So each `same` rewrite is the TF1 program's
equivalent, and for each mistake: at step 0 the projection is TF1's (one set of initial
weights) and the smoothed rows, the hidden activations and the loss are not (told apart by
more than 100x the tolerance).

python verify.py      (exit 0 only if every claim holds; prints each with its error)
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # the corpus, tests/programs
from trace_proof import check_traces, close  # noqa: E402

from common import INIT, X, reference  # noqa: E402

CLAIMS = {
    ("tf1_mix.py",): "same",
    ("tf2_mix.py", "eager", "same"): "same",
    ("tf2_mix.py", "function", "same"): "same",
    ("tf2_mix.py", "fit", "same"): "same",
    ("tf2_mix.py", "function", "transposed"): "transposed",
    ("tf2_mix.py", "eager", "unnormalized"): "unnormalized",
}


def main() -> int:
    fails = check_traces(HERE, CLAIMS, reference, sys.argv[1:])
    a = reference("same")[0]
    for bug in ("transposed", "unnormalized"):
        b = reference(bug)[0]
        for key in ("mixed", "hidden", "loss"):
            x, y = np.asarray(b[key]), np.asarray(a[key])
            margin = float(np.abs(x - y).max()) / (1e-6 + 1e-5 * float(np.abs(y).max()))
            if margin < 100 or close(b[key], a[key])[0]:
                fails += 1
                print("FAIL", bug, key, "not told apart at step 0")
            print(f"{bug}: step 0 {key} differs by {margin:.3g}x the tolerance")
    z = X.astype(np.float64) @ INIT[0].astype(np.float64)
    print(f"the projection, one for every variant: |z| up to {np.abs(z).max():.3f}")
    print(f"{fails} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
