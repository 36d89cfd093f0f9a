"""Proves each pair of the fourth blind corpus with numpy, without tfdbg-tui: equivalent pairs
agree on every quantity of the step contract at every step, and each buggy pair first differs
at the step and quantity blind4_pairs.py claims (and nowhere earlier).

    python verify.py DATA_DIR [--python PY] [--numpy-only]

1. blind4_models.py computes, in float64, every program's steps from its own data and
   starting weights (the TF1 and Keras rules written apart). Layer outputs are compared under
   the names both models give them. The first (step, quantity) in the contract order whose
   values differ beyond |a-b| <= 1e-6 + 1e-5|b| (the diff's tolerance; a NaN in one run only
   counts as a difference, NaN in both as none) is compared with the claim, with its margin
   (at least 2x the tolerance).
2. The real programs (PY, default this interpreter; TensorFlow needed) run once each, not
   recorded, with BLIND4_TRACE=1 (DATA_DIR gets prepare_data.py's files first), and print
   their losses and final weights (no program here keeps state outside the optimizer);
   each must match its numpy model (rtol 1e-4 / atol 1e-5: float32 against float64), so the
   numpy model is the program; equivalent pairs' real outputs must agree at the diff's
   tolerance, buggy pairs' must not (--numpy-only skips this part).
3. Lion's step is a sign: every b1 m + (1-b1) g it takes the sign of is at least 1e-4 of its
   tensor's largest (float32 rounding is ~1e-7 of it), so no run flips one.
Prints one line per claim and "N of M claims fail"; exit 0 only if none fail.
The proof itself is shared with the other corpora: ../migration_proof.py (prove).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]
from migration_proof import Claims, Corpus, Trajectory, prove  # noqa: E402

from blind4_models import lion_closest, trajectory  # noqa: E402
from blind4_pairs import CONTRACT, PAIRS, programs  # noqa: E402

CORPUS = Corpus(HERE, PAIRS, CONTRACT, programs, trajectory, prepared="lion.npz",
                trace_env="BLIND4_TRACE", margin=2.0)


def lion_checks(traj: dict[str, Trajectory]) -> Claims:
    """Lion's step is a sign: none it takes may be near a flip (claim 3 above)."""
    return [(closest >= 1e-4, f"{program}: no sign Lion takes is near a flip (closest "
                              f"{closest:.2g} of its tensor's largest)")
            for program in ("tf1_lion.py", "tf2_lion_eager.py", "tf2_lion_betas_fn.py")
            for closest in [lion_closest(program)]]


if __name__ == "__main__":
    sys.exit(prove(CORPUS, lion_checks, state=True))
