"""Proves with numpy, without tfdbg-tui, what tests/compare/test_activity_penalty.py expects
of each program: each runs once (no dumping) and prints its trace; every step's loss (the
one the program minimizes: data loss + penalty) and the weights after the update (TF1's
after every update, the rewrites' after the last) must match common.reference within
|a-b| <= 1e-6 + 1e-5|b|. So each `same` rewrite is its TF1 program's equivalent, and for each
mistake: at step 0 the hidden activations, the outputs and the data loss are those of TF1
(one set of initial weights), the penalty is not (told apart by more than 100x the
tolerance, or absent).

python verify.py      (exit 0 only if every claim holds; prints each with its error)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # the corpus, tests/programs
from trace_proof import check_traces, close  # noqa: E402

from common import reference  # noqa: E402

CLAIMS = {
    ("tf1_hidden.py",): "hidden_same", ("tf1_output.py",): "output_same",
    ("tf2_hidden.py", "fit", "same"): "hidden_same",
    ("tf2_hidden.py", "function", "same"): "hidden_same",
    ("tf2_hidden.py", "eager", "factor"): "hidden_factor",
    ("tf2_hidden.py", "fit", "none"): "hidden_none",
    ("tf2_output.py", "eager", "same"): "output_same",
    ("tf2_output.py", "fit", "same"): "output_same",
    ("tf2_output.py", "fit", "factor"): "output_factor",
    ("tf2_output.py", "function", "forgot"): "output_none",
}
# each mistake against its TF1 program's variant
MISTAKES = {"hidden_factor": "hidden_same", "hidden_none": "hidden_same",
            "output_factor": "output_same", "output_none": "output_same"}


def main() -> int:
    fails = check_traces(HERE, CLAIMS, reference, sys.argv[1:])
    for bug, good in MISTAKES.items():
        b, a = reference(bug)[0], reference(good)[0]
        for key in ("hidden", "pred", "data"):
            if not close(b[key], a[key])[0]:
                fails += 1
                print("FAIL", bug, key, "differs at step 0")
        margin = abs(a["penalty"] - b["penalty"]) / (1e-6 + 1e-5 * abs(a["penalty"]))
        if margin < 100:
            fails += 1
            print("FAIL", bug, "penalty not told apart", a["penalty"], b["penalty"])
        print(f"{bug}: step 0 data loss {a['data']:.6f} both; penalty {a['penalty']:.6f} "
              f"against {b['penalty']:.6f} ({margin:.3g}x the tolerance)")
    low = min(min(min(r) for r in s["hidden"]) for v in MISTAKES for s in reference(v))
    print(f"the smallest hidden activation {low:.4f} (|h| = h: L1's gradient is 1)")
    print(f"{fails} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
