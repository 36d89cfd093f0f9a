"""Proves each pair of the sixth blind corpus with numpy, without tfdbg-tui: equivalent pairs
agree on every quantity of the step contract at every step, and each buggy pair first differs
at the step and quantity blind6_pairs.py claims (and nowhere earlier).

    python verify.py DATA_DIR [--python PY] [--numpy-only]

1. blind6_models.py computes, in float64, every program's steps from its own data and
   starting weights (the TF1 and Keras rules written apart). Layer outputs are compared under
   the names both models give them. The first (step, quantity) in the contract order whose
   values differ beyond |a-b| <= 1e-6 + 1e-5|b| (the diff's tolerance; a quantity one run
   has and the other lacks, as a penalty, counts as a difference) is compared with the claim,
   with its margin (at least 2x the tolerance).
2. The real programs (PY, default this interpreter; TensorFlow needed) run once each, not
   recorded, with BLIND6_TRACE=1 (DATA_DIR gets prepare_data.py's files first), and print
   their losses and final weights (no program here keeps state outside the optimizer);
   each must match its numpy model (rtol 1e-4 / atol 1e-5: float32 against float64), so the
   numpy model is the program; equivalent pairs' real outputs must agree at the diff's
   tolerance, buggy pairs' must not (--numpy-only skips this part).
3. No probability of the KL pairs (teacher or prediction) is near Keras' clip to
   [1e-7, 1], so KLDivergence's clip changes no value and no gradient.
Prints one line per claim and "N of M claims fail"; exit 0 only if none fail.
The proof itself is shared with the other corpora: ../migration_proof.py (prove).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]
from migration_proof import Claims, Corpus, Trajectory, prove  # noqa: E402

from blind6_models import program_data, trajectory  # noqa: E402
from blind6_pairs import CONTRACT, PAIRS, programs  # noqa: E402

CORPUS = Corpus(HERE, PAIRS, CONTRACT, programs, trajectory, prepared="pois.npz",
                trace_env="BLIND6_TRACE", margin=2.0)


def clip_checks(traj: dict[str, Trajectory]) -> Claims:
    """No probability of the KL pairs near KLDivergence's clip (claim 3 above)."""
    claims: Claims = []
    for program in programs():
        if program.split("_")[1].removesuffix(".py") == "kld":
            low = min(float(program_data(program)[0]["t"].min()),
                      *(float(s["layer_output"]["probs"].min()) for s in traj[program][:-1]))
            claims.append((low >= 1e-3, f"{program}: no probability near KLDivergence's clip "
                                        f"(smallest {low:.2g})"))
    return claims


if __name__ == "__main__":
    sys.exit(prove(CORPUS, clip_checks))
