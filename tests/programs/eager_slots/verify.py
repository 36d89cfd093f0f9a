"""Proves with numpy, without tfdbg-tui, what tests/compare/test_eager_slots.py expects of each
program: each runs once (no dumping) and prints its trace; every step's loss, and the weights
after the last update, must match common.reference within |a-b| <= 1e-6 + 1e-5|b|. So
keras_momentum.py and hand_momentum.py `same` are equivalent (both the mu-0.8 reference) and
`mu` follows the mu-0.9 one, whose step-0 loss and step-1 loss equal the 0.8 one's (the
velocity is -0.05 g0 either way at step 0) and whose step-1 update is not: the claims below
check both references part there, at step 1's update, by far more than the tolerance.

python verify.py      (exit 0 only if every claim holds; prints each with its error)
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import INIT, reference  # noqa: E402

CLAIMS = {("keras_momentum.py",): 0.8, ("hand_momentum.py", "same"): 0.8,
          ("hand_momentum.py", "mu"): 0.9}


def _excess(a: object, b: object) -> float:
    """max |a-b| / (1e-6 + 1e-5|b|): <= 1 within the tolerance."""
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float((np.abs(x - y) / (1e-6 + 1e-5 * np.abs(y))).max())


def main() -> int:
    fails = 0
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    for args, mu in CLAIMS.items():
        p = subprocess.run([sys.executable, os.path.join(HERE, args[0]), *args[1:]],
                           capture_output=True, text=True, env=env, timeout=600)
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("trace ")]
        if p.returncode or len(lines) != 1:
            print("FAIL", args, "exit", p.returncode, p.stderr[-500:])
            fails += 1
            continue
        got, want = json.loads(lines[0][6:]), reference(mu)
        worst = max([_excess(g["loss"], w["loss"]) for g, w in zip(got, want, strict=True)]
                    + [_excess(a, b) for a, b in zip(got[-1]["weights"], want[-1]["weights"],
                                                     strict=True)])
        ok = worst <= 0.1
        fails += not ok
        print("ok  " if ok else "FAIL", args,
              f"matches numpy mu={mu}: worst {worst:.3g} of the tolerance")
    # the buggy pair: step 0 and step 1's loss agree, step 1's update does not
    same, bug = reference(0.8), reference(0.9)
    w0 = [np.asarray(a, np.float64) for a in INIT]
    for k in range(2):
        e = _excess(same[k]["loss"], bug[k]["loss"])
        fails += e > 0.1
        print("ok  " if e <= 0.1 else "FAIL", f"step {k} loss equal for mu 0.8 / 0.9: {e:.3g}")
    upd = [max(_excess(np.subtract(a1, a0), np.subtract(b1, b0)) for a1, a0, b1, b0 in zip(
        r[1]["weights"], r[0]["weights"], q[1]["weights"], q[0]["weights"], strict=True))
        for r, q in ((same, bug),)]
    step0 = max(_excess(np.subtract(a, i), np.subtract(b, i)) for a, b, i in zip(
        same[0]["weights"], bug[0]["weights"], w0, strict=True))
    fails += step0 > 0.1 or upd[0] < 100
    print("ok  " if step0 <= 0.1 else "FAIL", f"step 0 update equal: {step0:.3g}")
    print("ok  " if upd[0] >= 100 else "FAIL",
          f"step 1 update differs: {upd[0]:.3g}x the tolerance")
    print(f"{fails} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
