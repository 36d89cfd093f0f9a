"""The ninth blind corpus's migration pairs and what `tfdbg-tui diff` must say of each
(EXPECTATIONS.md gives the reasons). Plain data, no TensorFlow: verify.py and
tests/compare/test_migration_blind9.py both read it. Written, with the numpy proof, before
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

NORM = "tf1_norm.py"
TOWER = "tf1_tower.py"
LSE = "tf1_lse.py"

PAIRS: dict[str, Pair] = {
    # a selu regression of features standardized by the training set's statistics
    "norm_eager": _eq(NORM, "tf2_norm_eager.py", "eager",
                      "Normalization adapted to the training set for TF1's (x - mean) / std "
                      "by numpy's statistics; Dense(4, 'selu') for tf.nn.selu"),
    "norm_fn": _eq(NORM, "tf2_norm_fn.py", "function",
                   "Normalization(mean=, variance=) given numpy's statistics, in tf.function"),
    "norm_axis_fit": _bug(NORM, "tf2_norm_axis_fit.py", "fit",
                          "Normalization(axis=None): one mean and variance over every feature, "
                          "not one per feature", 0, "layer_output", ("AT:norm", "AT:hidden"),
                          ("BUG:norm_axis_fit", "CALL:norm", "CALL:hidden")),
    "norm_elu_eager": _bug(NORM, "tf2_norm_elu_eager.py", "eager",
                           "Dense(4, 'elu') for TF1's selu (the scale and alpha dropped)", 0,
                           "layer_output", ("AT:hidden",),
                           ("BUG:norm_elu_eager", "CALL:forward")),
    # two towers whose dot product is a click's logit
    "tower_eager": _eq(TOWER, "tf2_tower_eager.py", "eager",
                       "a two-input functional model, Dot(axes=1) for reduce_sum(u * v), "
                       "BinaryCrossentropy(from_logits=True) for sigmoid_cross_entropy"),
    "tower_fit": _eq(TOWER, "tf2_tower_fit.py", "fit",
                     "the same in fit, the two inputs as a list"),
    "tower_cos_fn": _bug(TOWER, "tf2_tower_cos_fn.py", "function",
                         "Dot(axes=1, normalize=True): the cosine of the embeddings, not their "
                         "dot product", 0, "layer_output", ("AT:score",),
                         ("BUG:tower_cos_fn", "CALL:score")),
    "tower_swap_fit": _bug(TOWER, "tf2_tower_swap_fit.py", "fit",
                           "the model's inputs declared [item, user], the features given "
                           "[user, item]: each tower embeds the other's features", 0,
                           "layer_output", ("AT:user", "AT:item"),
                           ("BUG:tower_swap_fit", "CALL:inputs", "CALL:user", "CALL:item")),
    # a time-distributed tanh layer, pooled over time, under the softmax cross-entropy
    "lse_eager": _eq(LSE, "tf2_lse_eager.py", "eager",
                     "TimeDistributed(Dense) + GlobalAveragePooling1D for an einsum and "
                     "reduce_mean over time; the cross-entropy as reduce_logsumexp(z, axis=1) "
                     "- z_label", steps=4),
    "lse_spe_fit": _eq(LSE, "tf2_lse_spe_fit.py", "fit",
                       "SparseCategoricalCrossentropy(from_logits=True) in fit, two minibatches "
                       "an epoch, steps_per_execution=2", steps=4),
    "lse_dense_fn": _eq(LSE, "tf2_lse_dense_fn.py", "function",
                        "Dense on the 3-d input without TimeDistributed, sparse_softmax_cross_"
                        "entropy_with_logits, in tf.function", steps=4),
    "lse_axis_fn": _bug(LSE, "tf2_lse_axis_fn.py", "function",
                        "tf.reduce_logsumexp(logits) without axis=1: one logsumexp over the "
                        "whole batch", 0, "loss", ("AT:loss",), ("BUG:lse_axis_fn",),
                        steps=4),
}


def programs() -> list[str]:
    """Every program the pairs need, once each."""
    return programs_of(PAIRS)
