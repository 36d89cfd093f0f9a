"""Proves each pair of the seventh blind corpus with numpy, without tfdbg-tui: equivalent pairs
agree on every quantity of the step contract at every step, and each buggy pair first differs
at the step and quantity blind7_pairs.py claims (and nowhere earlier).

    python verify.py DATA_DIR [--python PY] [--numpy-only]

1. blind7_models.py computes, in float64, every program's steps from its own data and
   starting weights (the TF1 and Keras rules written apart). Layer outputs are compared under
   the names both models give them. The first (step, quantity) in the contract order whose
   values differ beyond |a-b| <= 1e-6 + 1e-5|b| (the diff's tolerance; a quantity one run
   has and the other lacks, as a penalty, counts as a difference) is compared with the claim,
   with its margin (at least 2x the tolerance).
2. No probability a loss reads (the autoencoder's reconstructions, the focal classifier's) is
   near Keras' clip to [1e-7, 1 - 1e-7] or TF1 log_loss's 1e-7, so neither changes a value
   beyond the tolerance; the buggy autoencoder's logits do cross the clip (ae_logits_eager).
3. The real programs (PY, default this interpreter; TensorFlow needed) run once each, not
   recorded, with BLIND7_TRACE=1 (DATA_DIR gets prepare_data.py's files first), and print
   their losses and final weights (no program here keeps state outside the optimizer);
   each must match its numpy model (rtol 1e-4 / atol 1e-5: float32 against float64), so the
   numpy model is the program (this is what proves ae_twice_fn's reading of Keras: the
   logits behind its own sigmoid); equivalent pairs' real outputs must agree at the diff's
   tolerance, buggy pairs' must not (--numpy-only skips this part).
Prints one line per claim and "N of M claims fail"; exit 0 only if none fail. Written
standalone (as blind6's was first), but for the shared measures and the trace runner of
../migration_proof.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]
from migration_proof import (  # noqa: E402
    Claims,
    Corpus,
    excess,
    first_divergence,
    near,
    run_programs,
)

from blind7_models import trajectory  # noqa: E402
from blind7_pairs import CONTRACT, PAIRS, programs  # noqa: E402

MARGIN = 2.0


def pair_claims(traj: dict[str, list[dict[str, Any]]]) -> Claims:
    """Claim 1 for every pair."""
    claims: Claims = []
    for name, pair in PAIRS.items():
        ta, tb = traj[pair.a], traj[pair.b]
        claims.append((len(ta) == len(tb) == pair.steps + 1,
                       f"{name}: {pair.steps} steps on both sides"))
        claims.append((set(ta[0]["variable"]) == set(tb[0]["variable"]),
                       f"{name}: the same trainable variables on both sides"))
        got = first_divergence(ta, tb, CONTRACT)
        if pair.exit == 0:
            worst = max(excess(ta[k][q], tb[k][q]) for k in range(pair.steps) for q in CONTRACT
                        if q != "layer_output")
            claims.append((got is None, f"{name}: numpy equivalent at every step and quantity "
                                        f"(worst excess {worst:.2g} of the tolerance; got "
                                        f"{got})"))
        else:
            ok = got is not None and got[:2] == (pair.step, pair.quantity) and got[2] >= MARGIN
            margin = f"{got[2]:.3g}x the tolerance" if got else "none"
            claims.append((ok, f"{name}: numpy first divergence {got[:2] if got else None} "
                               f"(expected {(pair.step, pair.quantity)}), margin {margin}"))
    return claims


def clip_claims(traj: dict[str, list[dict[str, Any]]]) -> Claims:
    """Claim 2: the probabilities a loss reads are far from the clips; the logits taken for
    probabilities are not."""
    claims: Claims = []
    for program in programs():
        family = program.split("_")[1].removesuffix(".py")
        name = {"ae": "recon", "focal": "prob"}.get(family)
        if name is None or "logits" in program:
            continue
        probs = np.concatenate([np.ravel(s["layer_output"][name]) for s in traj[program][:-1]])
        low = float(np.minimum(probs, 1 - probs).min())
        claims.append((low >= 1e-3, f"{program}: no probability near Keras' clip (closest "
                                    f"to 0 or 1: {low:.2g})"))
    z = np.concatenate([np.ravel(s["layer_output"]["z"])
                        for s in traj["tf2_ae_logits_eager.py"][:-1]])
    outside = float(np.mean((z < 1e-7) | (z > 1 - 1e-7)))
    claims.append((0 < outside < 1, f"tf2_ae_logits_eager.py: some of its logits clipped as "
                                    f"probabilities ({outside:.0%} outside [1e-7, 1 - 1e-7])"))
    return claims


def real_claims(traj: dict[str, list[dict[str, Any]]], data_dir: Path, python: str
                ) -> Claims:
    """Claim 3: the real programs are their numpy models; pairs agree or differ as claimed."""
    corpus = Corpus(HERE, PAIRS, CONTRACT, programs, trajectory, prepared="mom.npz",
                    trace_env="BLIND7_TRACE", margin=MARGIN)
    real = run_programs(corpus, data_dir, python)
    claims: Claims = []
    for program, tr in real.items():
        model = traj[program]
        final = model[-1]["variable"]
        e_loss = near(tr["loss"], [s["loss_total"] for s in model[:-1]])
        same = set(tr["weights"]) == set(final)
        e_w = max(near(tr["weights"][n], final[n]) for n in final) if same else np.inf
        claims.append((max(e_loss, e_w) <= 1.0,
                       f"{program}: real run = numpy model (losses and final weights within "
                       f"rtol 1e-4/atol 1e-5: worst {max(e_loss, e_w):.2g} of it)"))
    for name, pair in PAIRS.items():
        ra, rb = real[pair.a], real[pair.b]
        e = max(excess(ra["loss"], rb["loss"]),
                *(excess(ra["weights"][n], rb["weights"][n]) for n in ra["weights"]))
        if pair.exit == 0:
            claims.append((e <= 1.0, f"{name}: real A and B agree at the diff's tolerance "
                                     f"(losses and final weights; worst {e:.2g} of it)"))
        else:
            claims.append((e > 1.0, f"{name}: real A and B differ ({e:.3g}x the tolerance)"))
    return claims


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--numpy-only", action="store_true")
    args = ap.parse_args()
    traj = {p: trajectory(p) for p in programs()}
    claims = pair_claims(traj) + clip_claims(traj)
    if not args.numpy_only:
        claims += real_claims(traj, args.data_dir, args.python)
    for ok, text in claims:
        print(("ok   " if ok else "FAIL ") + text)
    fails = sum(not ok for ok, _ in claims)
    print(f"{fails} of {len(claims)} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
