"""Proves each wild pair with numpy, without tfdbg-tui: equivalent pairs agree on every
quantity of the step contract at every step, and each buggy pair first differs at the step
and quantity wild_pairs.py claims (and nowhere earlier).

    python verify.py DATA_DIR [--python PY]

1. wild_models.py computes, in float64, every program's steps from its own data and restored
   weights (the TF1 and Keras rules written apart); the first (step, quantity) in the contract
   order whose values differ beyond |a-b| <= 1e-6 + 1e-5|b| (the diff's tolerance) is compared
   with the claim, with its margin.
2. The real programs (PY, default this interpreter; TensorFlow needed) run once each, not
   recorded, with WILD_TRACE=1 (DATA_DIR gets prepare_data.py's files first): their printed
   losses and final weights (and batch-norm statistics) must match the numpy model of the same
   program (rtol 1e-4, atol 1e-5: float32 against float64), so the numpy model is the program;
   equivalent pairs' real outputs must agree with each other at the diff's tolerance, buggy
   pairs' must not.
Prints one line per claim and "N of M claims fail"; exit 0 only if none fail.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]
from migration_proof import Corpus, main  # noqa: E402

from wild_models import trajectory  # noqa: E402
from wild_pairs import CONTRACT, PAIRS, programs  # noqa: E402

CORPUS = Corpus(HERE, PAIRS, CONTRACT, programs, trajectory, prepared="mlp_bn.ckpt.index",
                trace_env="WILD_TRACE", margin=2.0)

if __name__ == "__main__":
    sys.exit(main(CORPUS))
