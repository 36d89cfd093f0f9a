"""Proves each pair of the eighth blind corpus with numpy, without tfdbg-tui: equivalent pairs
agree on every quantity of the step contract at every step, and each buggy pair first differs
at the step and quantity blind8_pairs.py claims (and nowhere earlier).

    python verify.py DATA_DIR [--python PY] [--numpy-only]

1. blind8_models.py computes, in float64, every program's steps from its own data and
   starting weights (the TF1 and Keras rules written apart). Layer outputs are compared under
   the names both models give them. The first (step, quantity) in the contract order whose
   values differ beyond |a-b| <= 1e-6 + 1e-5|b| (the diff's tolerance; a quantity one run
   has and the other lacks counts as a difference) is compared with the claim, with its
   margin (at least 2x the tolerance).
2. Nothing a program computes sits near a kink its float32 run could fall on the other side
   of (kinks() below): the embeddings' norms are far from l2_normalize's epsilon; the
   regression's predictions stay above -1 (log1p defined) and away from Keras' 1e-7 clip,
   some below it at step 0; the scorer's hidden pre-activations are away from relu6's 0 and
   6 (some above 6), its hinge margins away from 0 (Keras' Hinge: every 1 - (2y - 1) s) and
   the best wrong score apart from the next.
3. The real programs (PY, default this interpreter; TensorFlow needed) run once each, not
   recorded, with BLIND8_TRACE=1 (DATA_DIR gets prepare_data.py's files first), and print
   their losses and final weights (no program here has state); each must match its numpy
   model (rtol 1e-4 / atol 1e-5: float32 against float64), so the numpy model is the program;
   equivalent pairs' real outputs must agree at the diff's tolerance, buggy pairs' must not
   (--numpy-only skips this part).
Prints one line per claim and "N of M claims fail"; exit 0 only if none fail.
The proof itself is shared with the other corpora: ../migration_proof.py (prove).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]
from migration_proof import Claims, Corpus, Trajectory, prove  # noqa: E402

from blind8_models import program_data, trajectory  # noqa: E402
from blind8_pairs import CONTRACT, PAIRS, programs  # noqa: E402

CORPUS = Corpus(HERE, PAIRS, CONTRACT, programs, trajectory, prepared="chinge.npz",
                trace_env="BLIND8_TRACE", margin=2.0)
FAR = 1e-3  # how far from a kink every value stays (float32 noise is ~1e-6 here)


def _cos(program: str, steps: list[dict]) -> Claims:
    norms = [np.linalg.norm(s["layer_output"]["z"], axis=1).min() for s in steps]
    return [(min(norms) >= 0.1, f"{program}: no embedding near the zero vector (smallest "
                                f"norm {min(norms):.3g})")]


def _msle(program: str, steps: list[dict]) -> Claims:
    preds = np.stack([s["layer_output"]["pred"].ravel() for s in steps])
    claims = [(preds.min() >= -1 + 0.1, f"{program}: every prediction above -1 (smallest "
                                        f"{preds.min():.3g})"),
              (np.abs(preds - 1e-7).min() >= FAR, f"{program}: no prediction near Keras' "
                                                  f"clip at 1e-7")]
    if program == "tf1_msle.py":
        claims.append(((preds[0] < 0).sum() >= 2, f"{program}: {(preds[0] < 0).sum()} "
                                                  f"predictions below 0 at step 0 (where "
                                                  f"Keras clips)"))
    return claims


def _chinge(program: str, steps: list[dict]) -> Claims:
    data, _ = program_data(program)
    y = np.eye(3)[data["labels"].astype(int)]
    pre = np.stack([data["x"] @ s["variable"]["hid/kernel"] + s["variable"]["hid/bias"]
                    for s in steps])
    claims: Claims = [(min(np.abs(pre).min(), np.abs(pre - 6).min()) >= FAR,
                       f"{program}: no hidden pre-activation near relu6's 0 or 6")]
    if program == "tf1_chinge.py":
        above = float((pre[0] > 6).mean())
        claims.append((above > 0, f"{program}: {above:.0%} of the hidden pre-activations above "
                                  f"6 at step 0 (where relu6 caps)"))
    margins, gaps = [], []
    for s in steps:
        sc = s["layer_output"]["s"]
        if "hinge_fit" in program:  # Keras' Hinge: a kink per score, none in a max
            margins.append(np.abs(1 - (2 * y - 1) * sc).min())
            continue
        wrong = (1 - y) * sc
        margins.append(np.abs(wrong.max(axis=1) - np.sum(y * sc, axis=1) + 1).min())
        top = np.sort(wrong, axis=1)
        gaps.append((top[:, -1] - top[:, -2]).min())
    claims.append((min(margins) >= FAR, f"{program}: no hinge margin near 0 (closest "
                                        f"{min(margins):.3g})"))
    if gaps:
        claims.append((min(gaps) >= FAR, f"{program}: the best wrong score apart from the "
                                         f"next (closest {min(gaps):.3g})"))
    return claims


def kinks(traj: dict[str, Trajectory]) -> Claims:
    """Claim 2 above, per program."""
    check = {"cos": _cos, "msle": _msle, "chinge": _chinge}
    claims: Claims = []
    for program in programs():
        family = program[4:-3].split("_")[0]
        claims += check[family](program, traj[program][:-1])
    return claims


if __name__ == "__main__":
    sys.exit(prove(CORPUS, kinks))
