"""Proves each pair of the tenth blind corpus with numpy, without tfdbg-tui: equivalent pairs
agree on every quantity of the step contract at every step, and each buggy pair first differs
at the step and quantity blind10_pairs.py claims (and nowhere earlier).

    python verify.py DATA_DIR [--python PY] [--numpy-only]

1. blind10_models.py computes, in float64, every program's steps from its own data and
   starting weights (the TF1 and Keras rules written apart). Layer outputs are compared under
   the names both models give them. The first (step, quantity) in the contract order whose
   values differ beyond |a-b| <= 1e-6 + 1e-5|b| (the diff's tolerance; a quantity one run
   has and the other lacks counts as a difference) is compared with the claim, with its
   margin (at least 2x the tolerance).
2. Nothing a program computes sits near a kink its float32 run could fall on the other side
   of (kinks() below): the quantile programs' residuals y - pred are away from the pinball
   loss's kink at 0 (where max(q e, (q - 1) e) and tf.where(e >= 0, …) switch branch); the
   gnn and aux programs are smooth everywhere (tanh, sums, logsumexp) and need no claim.
3. The real programs (PY, default this interpreter; TensorFlow needed) run once each, not
   recorded, with BLIND10_TRACE=1 (DATA_DIR gets prepare_data.py's files first), and print
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

from blind10_models import program_data, trajectory  # noqa: E402
from blind10_pairs import CONTRACT, PAIRS, programs  # noqa: E402

CORPUS = Corpus(HERE, PAIRS, CONTRACT, programs, trajectory, prepared="aux.npz",
                trace_env="BLIND10_TRACE", margin=2.0)
FAR = 1e-3  # how far from a kink every value stays (float32 noise is ~1e-6 here)


def _quant(program: str, steps: list[dict]) -> Claims:
    data, _ = program_data(program)
    residual = np.stack([data["y"] - s["layer_output"]["pred"] for s in steps])
    return [(np.abs(residual).min() >= FAR, f"{program}: no residual near the pinball loss's "
                                            f"kink at 0 (closest {np.abs(residual).min():.3g})")]


def kinks(traj: dict[str, Trajectory]) -> Claims:
    """Claim 2 above, per program."""
    check = {"quant": _quant}
    claims: Claims = []
    for program in programs():
        family = program[4:-3].split("_")[0]
        if family in check:
            claims += check[family](program, traj[program][:-1])
    return claims


if __name__ == "__main__":
    sys.exit(prove(CORPUS, kinks))
