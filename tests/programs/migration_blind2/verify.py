"""Proves each pair of the second blind corpus with numpy, without tfdbg-tui: equivalent
pairs agree on every quantity of the step contract at every step, and each buggy pair first
differs at the step and quantity blind2_pairs.py claims (and nowhere earlier).

    python verify.py DATA_DIR [--python PY]

1. blind2_models.py computes, in float64, every program's steps from its own data and
   starting weights (the TF1 and Keras rules written apart). A program may have a variable
   the other side lacks (an untied output kernel, a forgotten bias): the contract's
   quantities are compared over the variables and layers both have (a variable of one side
   only is said, not compared). The first (step, quantity) in the contract order whose
   values differ beyond |a-b| <= 1e-6 + 1e-5|b| (the diff's tolerance) is compared with the
   claim, with its margin (at least 2x the tolerance).
2. The real programs (PY, default this interpreter; TensorFlow needed) run once each, not
   recorded, with BLIND2_TRACE=1 (DATA_DIR gets prepare_data.py's files first), and print
   their losses and final weights; each must match its numpy model (rtol 1e-4 / atol 1e-5:
   float32 against float64), so the numpy model is the program; equivalent pairs' real
   outputs must agree at the diff's tolerance, buggy pairs' must not.
Prints one line per claim and "N of M claims fail"; exit 0 only if none fail.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]
from migration_proof import Corpus, excess, first_divergence, run_programs  # noqa: E402

from blind2_models import trajectory  # noqa: E402
from blind2_pairs import CONTRACT, PAIRS, programs  # noqa: E402

MARGIN = 2.0
PER_VARIABLE = ("variable", "gradient", "applied_gradient", "update")


def _common(ta: list[dict[str, Any]], tb: list[dict[str, Any]]
            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], set[str]]:
    """Both trajectories restricted to the variables both have; the names in one only."""
    a_vars, b_vars = set(ta[0]["variable"]), set(tb[0]["variable"])
    both = a_vars & b_vars

    def cut(tr: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{q: ({n: v for n, v in s[q].items() if n in both}
                     if q in PER_VARIABLE and isinstance(s.get(q), dict) else s.get(q))
                 for q in s} for s in tr]

    return cut(ta), cut(tb), a_vars ^ b_vars


def _near(real: Any, model: Any) -> float:
    """max |real - model| / (1e-5 + 1e-4|model|)."""
    r, m = np.asarray(real, np.float64), np.asarray(model, np.float64)
    return float(np.max(np.abs(r - m) / (1e-5 + 1e-4 * np.abs(m))))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    traj = {p: trajectory(p) for p in programs()}
    claims: list[tuple[bool, str]] = []

    def claim(ok: bool, text: str) -> None:
        claims.append((ok, text))

    for name, pair in PAIRS.items():
        ta, tb, alone = _common(traj[pair.a], traj[pair.b])
        claim(len(ta) == len(tb) == pair.steps + 1, f"{name}: {pair.steps} steps on both sides")
        got = first_divergence(ta, tb, CONTRACT)
        only = f"; in one side only: {sorted(alone)}" if alone else ""
        if pair.exit == 0:
            worst = max(excess(ta[k][q], tb[k][q]) for k in range(pair.steps) for q in CONTRACT
                        if q != "layer_output")
            claim(got is None and not alone,
                  f"{name}: numpy equivalent at every step and quantity (worst excess "
                  f"{worst:.2g} of the tolerance; got {got}{only})")
        else:
            ok = got is not None and got[:2] == (pair.step, pair.quantity) and got[2] >= MARGIN
            margin = f"{got[2]:.3g}x the tolerance" if got else "none"
            claim(ok, f"{name}: numpy first divergence {got[:2] if got else None} "
                      f"(expected {(pair.step, pair.quantity)}), margin {margin}{only}")

    corpus = Corpus(HERE, PAIRS, CONTRACT, programs, trajectory, prepared="distill.npz",
                    trace_env="BLIND2_TRACE", margin=MARGIN)
    real = run_programs(corpus, args.data_dir, args.python)
    for program, tr in real.items():
        model = traj[program]
        e_loss = _near(tr["loss"], [s["loss_total"] for s in model[:-1]])
        final = model[-1]["variable"]
        same = set(tr["weights"]) == set(final)
        e_w = max(_near(tr["weights"][n], final[n]) for n in final) if same else np.inf
        claim(max(e_loss, e_w) <= 1.0,
              f"{program}: real run = numpy model (losses, final weights within rtol 1e-4/"
              f"atol 1e-5: worst {max(e_loss, e_w):.2g} of it)")
    for name, pair in PAIRS.items():
        ra, rb = real[pair.a], real[pair.b]
        shared = set(ra["weights"]) & set(rb["weights"])
        e = max(excess(ra["loss"], rb["loss"]),
                *(excess(ra["weights"][n], rb["weights"][n]) for n in shared))
        if pair.exit == 0:
            claim(e <= 1.0, f"{name}: real A and B agree at the diff's tolerance "
                            f"(losses, final weights; worst {e:.2g} of it)")
        else:
            claim(e > 1.0, f"{name}: real A and B differ ({e:.3g}x the tolerance)")

    for ok, text in claims:
        print(("ok   " if ok else "FAIL ") + text)
    fails = sum(not ok for ok, _ in claims)
    print(f"{fails} of {len(claims)} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
