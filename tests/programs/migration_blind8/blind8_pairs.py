"""The eighth blind corpus's migration pairs and what `tfdbg-tui diff` must say of each
(EXPECTATIONS.md gives the reasons). Plain data, no TensorFlow: verify.py and
tests/compare/test_migration_blind8.py both read it. Written, with the numpy proof, before
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

COS = "tf1_cos.py"
MSLE = "tf1_msle.py"
CHINGE = "tf1_chinge.py"

PAIRS: dict[str, Pair] = {
    # a linear embedding under TF1's l2_normalize + cosine_distance
    "cos_eager": _eq(COS, "tf2_cos_eager.py", "eager",
                     "1 + Keras CosineSimilarity(axis=1) on the raw embedding for TF1's "
                     "l2_normalize + losses.cosine_distance"),
    "cos_unit_fit": _eq(COS, "tf2_cos_unit_fit.py", "fit",
                        "UnitNormalization(axis=1) and 1 - t.u as a loss function, in fit"),
    "cos_sim_fn": _bug(COS, "tf2_cos_sim_fn.py", "function",
                       "CosineSimilarity alone as the cosine distance: -cos, not 1 - cos (the "
                       "loss off by exactly 1, every gradient the same)", 0, "loss",
                       ("AT:loss",), ("BUG:cos_sim_fn", "CALL:lossfn")),
    "cos_axis_eager": _bug(COS, "tf2_cos_axis_eager.py", "eager",
                           "tf.math.l2_normalize(z) without axis=1: the whole batch "
                           "normalized as one vector", 0, "layer_output", ("AT:unit",),
                           ("BUG:cos_axis_eager",)),
    # a tanh regression of a positive rate under the squared error of log1p
    "msle_eager": _eq(MSLE, "tf2_msle_eager.py", "eager",
                      "the squared error of log1p written out, eagerly"),
    "msle_fn": _eq(MSLE, "tf2_msle_fn.py", "function",
                   "the same in tf.function on a subclassed model"),
    "msle_fit": _eq(MSLE, "tf2_msle_fit.py", "fit",
                    "log(p + 1) as a loss function in fit"),
    "msle_keras_eager": _bug(MSLE, "tf2_msle_keras_eager.py", "eager",
                             "Keras MeanSquaredLogarithmicError: the negative predictions "
                             "clipped to 1e-7 before log(. + 1)", 0, "loss", ("AT:loss",),
                             ("BUG:msle_keras_eager", "CALL:lossfn")),
    # a relu6 scorer under the categorical hinge, written out in TF1
    "chinge_eager": _eq(CHINGE, "tf2_chinge_eager.py", "eager",
                        "Dense(6, 'relu6') and Keras CategoricalHinge on one-hot labels"),
    "chinge_fn": _eq(CHINGE, "tf2_chinge_fn.py", "function",
                     "Dense(6) + ReLU(max_value=6.0) and categorical_hinge's batch mean, in "
                     "tf.function"),
    "chinge_relu_fn": _bug(CHINGE, "tf2_chinge_relu_fn.py", "function",
                           "Dense(6, 'relu'): relu6's cap dropped (9 % of the hidden "
                           "pre-activations are above 6)", 0, "layer_output", ("AT:hidden",),
                           ("BUG:chinge_relu_fn", "CALL:hidden")),
    "chinge_hinge_fit": _bug(CHINGE, "tf2_chinge_hinge_fit.py", "fit",
                             "loss='hinge' for the categorical hinge: Keras' Hinge is the "
                             "per-class binary hinge (labels 0/1 read as -1/+1, the mean over "
                             "the 3 classes)", 0, "loss", ("AT:loss",),
                             ("BUG:chinge_hinge_fit",)),
}


def programs() -> list[str]:
    """Every program the pairs need, once each."""
    return programs_of(PAIRS)
