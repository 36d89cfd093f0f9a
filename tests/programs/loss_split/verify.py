"""Proves with numpy, without tfdbg-tui, what tests/compare/test_loss_split.py expects of each
program: each runs once (no dumping) and prints its trace; every step's loss, and the
weights after the last update (TF1's after every update), must match common.reference within
|a-b| <= 1e-6 + 1e-5|b|. So both TF1 programs and every `same` rewrite are equivalent, and
each mistake's step-0 loss is told apart from TF1's while the layers before the loss agree
(one set of initial weights). Per mistake it also shows which statement's values depart
first: `lse` at statement 1 (the per-example loss too), `true` at statement 2 (statement 1
agrees), `mean` only at statement 3's reduction (lse, true and the per-example terms agree).

python verify.py      (exit 0 only if every claim holds; prints each with its error)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # the corpus, tests/programs
from trace_proof import check_traces, close  # noqa: E402

from common import VARIANTS, reference  # noqa: E402

CLAIMS = {("tf1_split.py",): "same", ("tf1_fused.py",): "same"} | {
    ("tf2_split.py", form, v): v for form in ("eager", "function", "fit") for v in VARIANTS}


def main() -> int:
    fails = check_traces(HERE, CLAIMS, reference, sys.argv[1:])
    same = reference("same")[0]
    for bug, first in (("lse", "lse"), ("true", "true"), ("mean", None)):
        other = reference(bug)[0]
        if close(same["loss"], other["loss"])[0]:
            fails += 1
            print("FAIL", bug, "is not told apart at step 0")
        departs = [k for k in ("lse", "true", "per") if not close(same[k], other[k])[0]]
        want = {"lse": ["lse", "per"], "true": ["true", "per"], "mean": []}[bug]
        if departs != want:
            fails += 1
            print("FAIL", bug, "departs at", departs, "not", want)
        print(f"{bug}: step 0 loss same {same['loss']:.6f}, {bug} {other['loss']:.6f} "
              f"({abs(same['loss'] - other['loss']) / (1e-6 + 1e-5 * abs(other['loss'])):.2g}x "
              f"the tolerance); statements departing: {departs or 'only the reduction'}"
              f" (first expected: {first or 'mean'})")
    gap = min(s["top_gap"] for v in VARIANTS for s in reference(v))
    print(f"true: the smallest gap between a row's two largest logits {gap:.3f}")
    print(f"{fails} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
