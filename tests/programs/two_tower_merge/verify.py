"""Proves with numpy, without tfdbg-tui, what tests/compare/test_two_tower_merge.py expects of
each program: each runs once (no dumping) and prints its trace; every step's loss, and the
weights after the last update (TF1's after every update), must match common.reference within
|a-b| <= 1e-6 + 1e-5|b|. So every pair of programs following one reference is equivalent;
and for each mistake the towers' outputs agree at step 0 (one set of initial weights) while
the logits do not.

python verify.py      (exit 0 only if every claim holds; prints each with its error)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # the corpus, tests/programs
from trace_proof import check_traces, close  # noqa: E402

from common import reference  # noqa: E402

CLAIMS = {("tf1_tower.py", m): m for m in ("dot", "cos", "concat", "prod")} | {
    ("tf2_tower.py", "eager", "dot"): "dot",
    ("tf2_tower.py", "function", "cosine"): "cos",
    ("tf2_tower.py", "fit", "cosine"): "cos",
    ("tf2_tower.py", "function", "concat"): "concat",
    ("tf2_tower.py", "eager", "swap"): "swap",
    ("tf2_tower.py", "fit", "prod"): "prod",
    ("tf2_tower.py", "function", "add"): "add",
}
# pair of references told apart at step 0 in the logits only: (A's, B's)
MISTAKES = [("dot", "cos"), ("cos", "dot"), ("concat", "swap"), ("prod", "add")]


def main() -> int:
    fails = check_traces(HERE, CLAIMS, reference)
    for a, b in MISTAKES:
        ra, rb = reference(a)[0], reference(b)[0]
        towers = all(close(ra[k], rb[k])[0] for k in ("u", "v"))
        ok, err = close(ra["score"], rb["score"])
        if not towers or ok or close(ra["loss"], rb["loss"])[0]:
            fails += 1
            print("FAIL", a, b, "towers agree:", towers, "logits agree:", ok)
        print(f"{a} vs {b}: towers agree {towers}; logits differ by up to {err:.3g} "
              f"({err / 1e-5:.2g}x rtol at 1); step 0 loss {ra['loss']:.6f} vs {rb['loss']:.6f}")
    short = min(s["shortest"] for m in ("dot", "cos") for s in reference(m))
    print(f"cos: the shortest tower output over the steps {short:.3f}")
    print(f"{fails} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
