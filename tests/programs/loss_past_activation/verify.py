"""Proves with numpy, without tfdbg-tui, what tests/compare/test_loss_past_activation.py
expects of each program: each runs once (no dumping) and prints its trace; every step's
loss, and the weights after the last update (TF1's after every update), must match
common.reference within |a-b| <= 1e-6 + 1e-5|b|. So each TF1 program and its `same` rewrite
are equivalent, and each buggy variant follows a reference whose step-0 loss is told apart
from the TF1 program's — while the layers before the loss (the tanh, the logits) agree at
step 0 (one set of initial weights).

python verify.py      (exit 0 only if every claim holds; prints each with its error)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # the corpus, tests/programs
from trace_proof import check_traces, close  # noqa: E402

from common import reference  # noqa: E402

# program arguments -> the reference (model, variant) it must equal
CLAIMS = {
    ("tf1_penalty.py",): ("penalty", "same"),
    ("tf2_penalty_eager.py", "same"): ("penalty", "same"),
    ("tf2_penalty_eager.py", "plus"): ("penalty", "plus"),
    ("tf1_hinge.py",): ("hinge", "same"),
    ("tf2_hinge_fn.py", "same"): ("hinge", "same"),
    ("tf2_hinge_fn.py", "squared"): ("hinge", "squared"),
    ("tf1_wbce.py",): ("wbce", "same"),
    ("tf2_wbce_eager.py", "same"): ("wbce", "same"),
    ("tf2_wbce_eager.py", "inverted"): ("wbce", "inverted"),
}


def main() -> int:
    fails = check_traces(HERE, CLAIMS, lambda v: reference(*v))
    for model, bug in (("penalty", "plus"), ("hinge", "squared"), ("wbce", "inverted")):
        base, other = reference(model)[0]["loss"], reference(model, bug)[0]["loss"]
        if close(base, other)[0]:
            fails += 1
            print("FAIL", model, bug, "is not told apart at step 0")
        print(f"{model} step 0 loss: same {base:.6f}, {bug} {other:.6f} "
              f"({abs(base - other) / (1e-6 + 1e-5 * abs(other)):.2g}x the tolerance)")
    kink = min(s["closest_kink"] for v in ("same", "squared") for s in reference("hinge", v))
    print(f"hinge: the closest margin to the kink over the steps {kink:.3f}")
    print(f"{fails} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
