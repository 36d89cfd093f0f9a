"""Proves with numpy, without tfdbg-tui, what tests/compare/test_output_transform.py expects
of each program: each runs once (no dumping) and prints its trace. The equivalent programs
must match common.py's reference (every step's loss and the weights after the last update,
within 0.1 of |a-b| <= 1e-6 + 1e-5|b|); each buggy one starts from the same weights (so its
step-0 `z` is the reference's) and its step-0 loss must be its mistake's numpy loss, while
its step-0 transform output (`u`, the prediction) is far beyond the tolerance from the
reference's. The references stay away from where implementations could part: no embedding
row's norm below `MIN_NORM` (Keras' epsilon), no relu input within `MIN_KINK` of 0.

python verify.py      (exit 0 only if every claim holds; prints each with its error)
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import bounded_reference, embed_reference  # noqa: E402

EQUIVALENT = {("tf1_embed.py",): "embed", ("keras_embed.py", "eager", "cos"): "embed",
              ("keras_embed.py", "eager", "norm"): "embed",
              ("keras_embed.py", "fit", "unit"): "embed",
              ("tf1_bounded.py",): "bounded", ("keras_bounded.py", "eager", "step"): "bounded",
              ("keras_bounded.py", "function", "rescale"): "bounded"}
BUGGY = {("keras_embed.py", "eager", "axis0"): ("embed", embed_reference(axis=0, steps=1)),
         ("keras_bounded.py", "eager", "scale"): ("bounded", bounded_reference(3.0, steps=1))}
MIN_NORM, MIN_KINK = 0.1, 1e-3


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
        print("FAIL", args, "exit", p.returncode, p.stderr[-800:])
        return None
    return json.loads(lines[0][6:])


def _ok(good: bool, what: str) -> int:
    print("ok  " if good else "FAIL", what)
    return 0 if good else 1


def main() -> int:
    fails = 0
    refs = {"embed": embed_reference(), "bounded": bounded_reference()}
    for k, (e, b) in enumerate(zip(refs["embed"], refs["bounded"], strict=True)):
        fails += _ok(e["norm_min"] >= MIN_NORM, f"step {k}: embedding norms >= "
                                                f"{e['norm_min']:.3g}")
        fails += _ok(b["kink"] >= MIN_KINK, f"step {k}: relu inputs at least {b['kink']:.3g} "
                                            "from 0")
    for args, model in EQUIVALENT.items():
        got, want = _trace(args), refs[model]
        if got is None:
            fails += 1
            continue
        worst = max([_excess(g["loss"], w["loss"]) for g, w in zip(got, want, strict=True)]
                    + [_excess(a, b) for a, b in zip(got[-1]["weights"], want[-1]["weights"],
                                                     strict=True)])
        fails += _ok(worst <= 0.1, f"{args} matches numpy: worst {worst:.3g} of the tolerance")
    for args, (model, bug) in BUGGY.items():
        got, ref = _trace(args), refs[model][0]
        if got is None:
            fails += 1
            continue
        own = _excess(got[0]["loss"], bug[0]["loss"])
        fails += _ok(own <= 0.1, f"{args} step 0 loss {got[0]['loss']:.6g} = its mistake's "
                                 f"numpy loss ({own:.3g} of the tolerance)")
        fails += _ok(_excess(bug[0]["z"], ref["z"]) == 0.0, f"{args} step 0: z is the "
                                                            "reference's (same weights)")
        apart = _excess(bug[0]["out"], ref["out"])
        fails += _ok(apart >= 1000, f"{args} step 0: the transform's output {apart:.3g}x the "
                                    "tolerance from the reference's")
        lapart = _excess(got[0]["loss"], ref["loss"])
        fails += _ok(lapart >= 1000, f"{args} step 0: the loss {lapart:.3g}x the tolerance "
                                     f"from the reference's {ref['loss']:.6g}")
    print(f"{fails} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
