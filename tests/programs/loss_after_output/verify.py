"""Proves with numpy, without tfdbg-tui, what tests/compare/test_loss_after_output.py expects
of each program: each runs once (no dumping) and prints its trace; every step's loss, and the
weights after the last update (TF1's after every update), must match common.reference within
|a-b| <= 1e-6 + 1e-5|b|. So tf1_huber_exp.py, tf2_huber_fn.py same and
tf2_huber_hand_eager.py same are equivalent (the `same` reference), and `delta`, `nohalf` and
tf2_huber_linear_fit.py follow references whose step-0 loss differs from it — while the
layers before the loss (the tanh, the last layer's linear output) agree at step 0 in all of
them (one set of initial weights).

python verify.py      (exit 0 only if every claim holds; prints each with its error)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # the corpus, tests/programs
from trace_proof import check_traces, close  # noqa: E402

from common import reference  # noqa: E402

# program arguments -> the reference variant it must equal
CLAIMS = {
    ("tf1_huber_exp.py",): "same",
    ("tf2_huber_fn.py", "same"): "same",
    ("tf2_huber_fn.py", "delta"): "delta",
    ("tf2_huber_hand_eager.py", "same"): "same",
    ("tf2_huber_hand_eager.py", "nohalf"): "nohalf",
    ("tf2_huber_linear_fit.py",): "linear",
}


def main() -> int:
    fails = check_traces(HERE, CLAIMS, reference)
    base = reference()[0]["loss"]
    for variant in ("delta", "nohalf", "linear"):
        other = reference(variant)[0]["loss"]
        if close(base, other)[0]:
            fails += 1
            print("FAIL", variant, "is not told apart at step 0")
        print(f"step 0 loss: same {base:.6f}, {variant} {other:.6f} "
              f"({abs(base - other) / (1e-6 + 1e-5 * abs(other)):.2g}x the tolerance)")
    print(f"{fails} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
