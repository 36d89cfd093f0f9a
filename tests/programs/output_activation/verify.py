"""Proves with numpy, without tfdbg-tui, what tests/compare/test_output_activation.py expects
of each program: each runs once (no dumping) and prints its trace. tf1_sigmoid.py must match
common.reference(1e-7) (TF1's log_loss epsilon), keras_sigmoid.py `sigmoid` (eager, fit) and
`logits` common.reference(0) (the cross-entropy from the logits) — every step's loss and the
weights after the last update, within 0.1 of |a-b| <= 1e-6 + 1e-5|b| — and the two references
agree within it at every step: they are equivalent (no probability closer to 0 or 1 than
`MIN_P`, where the epsilon would tell). `probs` starts from the same weights, so its step-0
logits are the reference's (both layer outputs agree at step 0), and its step-0 loss must be
common.probs_loss of those logits, far from the reference's loss.

python verify.py      (exit 0 only if every claim holds; prints each with its error)
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import probs_loss, reference  # noqa: E402

EQUIVALENT = {("tf1_sigmoid.py",): 1e-7, ("keras_sigmoid.py", "eager", "sigmoid"): 0.0,
              ("keras_sigmoid.py", "fit", "sigmoid"): 0.0,
              ("keras_sigmoid.py", "eager", "logits"): 0.0}
BUGGY = ("keras_sigmoid.py", "eager", "probs")
MIN_P = 0.005


def _excess(a: object, b: object) -> float:
    """max |a-b| / (1e-6 + 1e-5|b|): <= 1 within the tolerance."""
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float((np.abs(x - y) / (1e-6 + 1e-5 * np.abs(y))).max())


def _trace(args: tuple[str, ...]) -> list[dict] | None:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    p = subprocess.run([sys.executable, os.path.join(HERE, args[0]), *args[1:]],
                       capture_output=True, text=True, env=env, timeout=600)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("trace ")]
    if p.returncode or len(lines) != 1:
        print("FAIL", args, "exit", p.returncode, p.stderr[-500:])
        return None
    return json.loads(lines[0][6:])


def _ok(good: bool, what: str) -> int:
    print("ok  " if good else "FAIL", what)
    return 0 if good else 1


def main() -> int:
    fails = 0
    exact, tf1 = reference(0.0), reference(1e-7)
    for k, (e, t) in enumerate(zip(exact, tf1, strict=True)):
        p = np.asarray(e["probs"])
        fails += _ok(MIN_P <= p.min() and p.max() <= 1 - MIN_P,
                     f"step {k}: probabilities within [{p.min():.3g}, {p.max():.3g}]")
        worst = max([_excess(t["loss"], e["loss"])] + [
            _excess(a, b) for a, b in zip(t["weights"], e["weights"], strict=True)])
        fails += _ok(worst <= 0.1, f"step {k}: log_loss's epsilon moves nothing: "
                                   f"{worst:.3g} of the tolerance")
    for args, eps in EQUIVALENT.items():
        got, want = _trace(args), reference(eps)
        if got is None:
            fails += 1
            continue
        worst = max([_excess(g["loss"], w["loss"]) for g, w in zip(got, want, strict=True)]
                    + [_excess(a, b) for a, b in zip(got[-1]["weights"], want[-1]["weights"],
                                                     strict=True)])
        fails += _ok(worst <= 0.1, f"{args} matches numpy (eps {eps}): worst {worst:.3g} "
                                   "of the tolerance")
    got = _trace(BUGGY)
    if got is None:
        return 1
    loss0 = probs_loss(np.asarray(exact[0]["logits"]))
    own, apart = _excess(got[0]["loss"], loss0), _excess(got[0]["loss"], exact[0]["loss"])
    fails += _ok(own <= 0.1, f"{BUGGY} step 0 loss {got[0]['loss']:.6g} = the logits read as "
                             f"probabilities ({own:.3g} of the tolerance)")
    fails += _ok(apart >= 1000, f"and {apart:.3g}x the tolerance from the reference's "
                                f"{exact[0]['loss']:.6g}")
    print(f"{fails} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
