"""The seventh blind corpus's migration pairs and what `tfdbg-tui diff` must say of each
(EXPECTATIONS.md gives the reasons). Plain data, no TensorFlow: verify.py and
tests/compare/test_migration_blind7.py both read it. Written, with the numpy proof, before
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

AE = "tf1_ae.py"
FOCAL = "tf1_focal.py"
MOM = "tf1_mom.py"

PAIRS: dict[str, Pair] = {
    # an autoencoder with a sigmoid output: TF1's log_loss on the reconstruction
    "ae_eager": _eq(AE, "tf2_ae_eager.py", "eager",
                    "Dense(6, 'sigmoid') and Keras BinaryCrossentropy() for TF1's "
                    "tf.compat.v1.losses.log_loss(x, sigmoid(z))"),
    "ae_fit": _eq(AE, "tf2_ae_fit.py", "fit", "loss='binary_crossentropy' in fit"),
    "ae_twice_fn": _eq(AE, "tf2_ae_twice_fn.py", "function",
                       "BinaryCrossentropy(from_logits=True) on a Dense(6, 'sigmoid'): the "
                       "sigmoid looks applied twice, Keras' TensorFlow backend takes the "
                       "logits behind its own sigmoid (and warns)"),
    "ae_logits_eager": _bug(AE, "tf2_ae_logits_eager.py", "eager",
                            "BinaryCrossentropy() on a linear Dense(6): from_logits left out, "
                            "the logits clipped to [1e-7, 1 - 1e-7] as probabilities", 0,
                            "loss", ("AT:loss",), ("BUG:ae_logits_eager", "CALL:logits")),
    # a logistic classifier under the sigmoid focal loss (alpha 0.25, gamma 2), TF1 written out
    "focal_eager": _eq(FOCAL, "tf2_focal_eager.py", "eager",
                       "BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.25, "
                       "gamma=2.0, from_logits=True) for the written-out focal loss"),
    "focal_fit": _eq(FOCAL, "tf2_focal_fit.py", "fit",
                     "Dense(1, 'sigmoid') and BinaryFocalCrossentropy(apply_class_balancing="
                     "True, alpha=0.25, gamma=2.0) on the probabilities, in fit"),
    "focal_balance_fn": _bug(FOCAL, "tf2_focal_balance_fn.py", "function",
                             "BinaryFocalCrossentropy(alpha=0.25, gamma=2.0, from_logits=True) "
                             "without apply_class_balancing=True: alpha silently unused", 0,
                             "loss", ("AT:loss",), ("BUG:focal_balance_fn",)),
    # TF1's MomentumOptimizer on exponential_decay(0.1, step, 1, 0.5)
    "mom_eager": _eq(MOM, "tf2_mom_eager.py", "eager",
                     "TF1's momentum written out (accum = 0.9 accum + g; var -= lr accum) "
                     "on Keras' ExponentialDecay, eagerly"),
    "mom_fn": _eq(MOM, "tf2_mom_fn.py", "function",
                  "TF1's momentum written out in tf.function, the step in a tf.Variable"),
    "mom_keras_fit": _bug(MOM, "tf2_mom_keras_fit.py", "fit",
                          "Keras SGD(ExponentialDecay, momentum=0.9): its velocity keeps the "
                          "old rates (m = 0.9 m - lr g), TF1's accumulator is scaled by the "
                          "current one", 1, "update", ("AT:update", "AT:opt"),
                          ("BUG:mom_keras_fit",)),
    "mom_keras_eager": _bug(MOM, "tf2_mom_keras_eager.py", "eager",
                            "the same Keras SGD momentum on the schedule, in an eager loop",
                            1, "update", ("AT:update", "AT:opt"),
                            ("BUG:mom_keras_eager", "CALL:update")),
    "mom_const_fn": _bug(MOM, "tf2_mom_const_fn.py", "function",
                         "Keras SGD(0.1, momentum=0.9): the decay left out (0.1 at step 1, "
                         "TF1 0.05)", 1, "learning_rate", ("AT:lr", "AT:opt"),
                         ("BUG:mom_const_fn", "CALL:update")),
}


def programs() -> list[str]:
    """Every program the pairs need, once each."""
    return programs_of(PAIRS)
