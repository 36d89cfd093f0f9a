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
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # the corpus, tests/programs
from common import L2, reference  # noqa: E402
from trace_proof import check_traces, close  # noqa: E402

# program arguments -> (delta, l2) of the reference it must equal
CLAIMS = {
    ("tf1_huber.py",): (1.0, 0.0),
    ("keras_huber.py", "eager", "same"): (1.0, 0.0),
    ("keras_huber.py", "eager", "identity"): (1.0, 0.0),
    ("keras_huber.py", "function", "delta"): (0.5, 0.0),
    ("keras_huber.py", "fit", "penalty"): (1.0, L2),
}


def main() -> int:
    fails = check_traces(HERE, CLAIMS, lambda v: reference(*v))
    base, half, pen = reference(), reference(0.5), reference(1.0, L2)
    if close(base[0]["loss"], half[0]["loss"])[0]:
        fails += 1
        print("FAIL Huber(delta=0.5) is not told apart at step 0")
    if close(base[0]["loss"], pen[0]["loss"])[0]:
        fails += 1
        print("FAIL the penalty is not told apart at step 0")
    print(f"step 0 loss: delta 1 {base[0]['loss']:.6f}, delta 0.5 {half[0]['loss']:.6f}, "
          f"with the penalty {pen[0]['loss']:.6f}")
    print(f"{fails} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
