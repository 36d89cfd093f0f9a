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
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import VARIANTS, reference  # noqa: E402

CLAIMS = {("tf1_split.py",): "same", ("tf1_fused.py",): "same"} | {
    ("tf2_split.py", form, v): v for form in ("eager", "function", "fit") for v in VARIANTS}


def _close(a: object, b: object) -> tuple[bool, float]:
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return bool((np.abs(x - y) <= 1e-6 + 1e-5 * np.abs(y)).all()), float(np.abs(x - y).max())


def main() -> int:
    fails = 0
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    only = set(sys.argv[1:])
    for args, variant in CLAIMS.items():
        if only and " ".join(args) not in only:
            continue
        p = subprocess.run([sys.executable, os.path.join(HERE, args[0]), *args[1:]],
                           capture_output=True, text=True, env=env, timeout=600)
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("trace ")]
        if p.returncode or len(lines) != 1:
            print("FAIL", args, "exit", p.returncode, p.stderr[-500:])
            fails += 1
            continue
        got, want = json.loads(lines[0][6:]), reference(variant)
        worst = 0.0
        for g, w in zip(got, want, strict=True):
            pairs = [(g["loss"], w["loss"])]
            if "weights" in g:
                pairs += list(zip(g["weights"], w["weights"], strict=True))
            for a, b in pairs:
                ok, err = _close(a, b)
                worst = max(worst, err)
                if not ok:
                    fails += 1
                    print("FAIL", args, "differs from numpy", variant, a, b)
        print(" ".join(args), f"vs numpy {variant}: max |a-b| {worst:.2g}")
    same = reference("same")[0]
    for bug, first in (("lse", "lse"), ("true", "true"), ("mean", None)):
        other = reference(bug)[0]
        if _close(same["loss"], other["loss"])[0]:
            fails += 1
            print("FAIL", bug, "is not told apart at step 0")
        departs = [k for k in ("lse", "true", "per") if not _close(same[k], other[k])[0]]
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
