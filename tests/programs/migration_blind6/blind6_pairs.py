"""The sixth blind corpus's migration pairs and what `tfdbg-tui diff` must say of each
(EXPECTATIONS.md gives the reasons). Plain data, no TensorFlow: verify.py and
tests/compare/test_migration_blind6.py both read it. Written, with the numpy proof, before
tfdbg-tui was run on any of them.

A pair: A = the TF1 program, B = its TF2 rewrite, the expected exit (0 equivalent, 1
diverge), and for a buggy pair the first divergence's step, its quantity (the names of
`diff --json`'s steps[].quantities) and the marks accepted as each side's line: `AT:<name>`
in A's program, `BUG:<pair>` / `CALL:<name>` in B's. `steps`: how many training steps both
programs run.
"""

from __future__ import annotations

from migration_table import CONTRACT as CONTRACT  # the contract the pairs are judged in
from migration_table import Pair, programs_of
from migration_table import bug as _bug
from migration_table import eq as _eq

KLD = "tf1_kld.py"
POIS = "tf1_pois.py"

PAIRS: dict[str, Pair] = {
    # distillation under the KL divergence: written out in TF1
    "kld_eager": _eq(KLD, "tf2_kld_eager.py", "eager",
                     "Keras KLDivergence()(t, softmax output) for TF1's written-out "
                     "reduce_mean(reduce_sum(t log(t / p), 1))"),
    "kld_fn": _eq(KLD, "tf2_kld_fn.py", "function",
                  "tf.keras.losses.kld (per example) then reduce_mean in tf.function"),
    "kld_fit": _eq(KLD, "tf2_kld_fit.py", "fit", "loss='kl_divergence' in fit"),
    "kld_swap_fn": _bug(KLD, "tf2_kld_swap_fn.py", "function",
                        "KLDivergence()(model(x), t): the arguments swapped, KL(p || t)",
                        0, "loss", ("AT:loss",), ("BUG:kld_swap_fn",)),
    "kld_mean_eager": _bug(KLD, "tf2_kld_mean_eager.py", "eager",
                           "tf.reduce_mean(t * log(t / p)) with no axis: the mean over the "
                           "classes too (a third of the divergence)", 0, "loss",
                           ("AT:loss",), ("BUG:kld_mean_eager",)),
    # count regression under the Poisson loss: TF1's log_poisson_loss on the log-rate
    "pois_eager": _eq(POIS, "tf2_pois_eager.py", "eager",
                      "Dense(1, activation='exponential') and Keras Poisson() on the rate"),
    "pois_fn": _eq(POIS, "tf2_pois_fn.py", "function",
                   "a linear Dense and tf.nn.log_poisson_loss on its output in tf.function"),
    "pois_fit": _eq(POIS, "tf2_pois_fit.py", "fit",
                    "Dense(1, activation='exponential') and loss='poisson' in fit"),
    "pois_full_fn": _bug(POIS, "tf2_pois_full_fn.py", "function",
                         "log_poisson_loss(compute_full_loss=True): the Stirling term added "
                         "(a constant: the loss differs, its gradients do not)", 0, "loss",
                         ("AT:loss",), ("BUG:pois_full_fn",)),
    "pois_linear_fit": _bug(POIS, "tf2_pois_linear_fit.py", "fit",
                            "loss='poisson' on a linear Dense(1): the log-rate taken as the "
                            "rate (the exponential activation left out)", 0, "loss",
                            ("AT:loss",), ("BUG:pois_linear_fit", "CALL:loss")),
}


def programs() -> list[str]:
    """Every program the pairs need, once each."""
    return programs_of(PAIRS)
