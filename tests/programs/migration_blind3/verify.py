"""Proves each pair of the third blind corpus with numpy, without tfdbg-tui: equivalent pairs
agree on every quantity of the step contract at every step, and each buggy pair first differs
at the step and quantity blind3_pairs.py claims (and nowhere earlier).

    python verify.py DATA_DIR [--python PY] [--numpy-only]

1. blind3_models.py computes, in float64, every program's steps from its own data and
   starting weights (the TF1 and Keras rules written apart). Layer outputs are compared under
   the names both models give them. The first (step, quantity) in the contract order whose
   values differ beyond |a-b| <= 1e-6 + 1e-5|b| (the diff's tolerance; a NaN in one run only
   counts as a difference, NaN in both as none) is compared with the claim, with its margin
   (at least 2x the tolerance).
2. The real programs (PY, default this interpreter; TensorFlow needed) run once each, not
   recorded, with BLIND3_TRACE=1 (DATA_DIR gets prepare_data.py's files first), and print
   their losses, final weights and final state (averages of the weights, a target network);
   each must match its numpy model (rtol 1e-4 / atol 1e-5: float32 against float64), so the
   numpy model is the program; equivalent pairs' real outputs must agree at the diff's
   tolerance, buggy pairs' must not (--numpy-only skips this part).
Prints one line per claim and "N of M claims fail"; exit 0 only if none fail.
The proof itself is shared with the other corpora: ../migration_proof.py (prove).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]
from migration_proof import Corpus, prove  # noqa: E402

from blind3_models import trajectory  # noqa: E402
from blind3_pairs import CONTRACT, PAIRS, programs  # noqa: E402

CORPUS = Corpus(HERE, PAIRS, CONTRACT, programs, trajectory, prepared="dqn.npz",
                trace_env="BLIND3_TRACE", margin=2.0)


if __name__ == "__main__":
    sys.exit(prove(CORPUS, state=True))
