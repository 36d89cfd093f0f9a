"""The fifth blind corpus's migration pairs and what `tfdbg-tui diff` must say of each
(EXPECTATIONS.md gives the reasons). Plain data, no TensorFlow: verify.py and
tests/compare/test_migration_blind5.py both read it. Written, with the numpy proof, before
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

GRL = "tf1_grl.py"
PROX = "tf1_prox.py"
PAD = "tf1_pad.py"
BCAST = "tf1_bcast.py"

PAIRS: dict[str, Pair] = {
    # a gradient reversal layer (DANN): RegisterGradient + gradient_override_map in TF1
    "grl_eager": _eq(GRL, "tf2_grl_eager.py", "eager",
                     "a Keras Layer whose call uses tf.custom_gradient (-0.3 dy) for TF1's "
                     "RegisterGradient/gradient_override_map reversal; two heads' losses added"),
    "grl_fn": _eq(GRL, "tf2_grl_fn.py", "function",
                  "the reversal as stop_gradient((1 + l) x) - l x in a Model subclass"),
    "grl_fit": _eq(GRL, "tf2_grl_fit.py", "fit",
                   "the custom_gradient Layer in a two-output functional model, a loss per "
                   "output (their sum)"),
    "grl_scale_fn": _bug(GRL, "tf2_grl_scale_fn.py", "function",
                         "tf.custom_gradient returning -dy: the reversal's 0.3 scale left out",
                         0, "gradient", ("AT:grl", "AT:grads", "AT:update"),
                         ("BUG:grl_scale_fn", "CALL:grl", "CALL:update")),
    "grl_detach_eager": _bug(GRL, "tf2_grl_detach_eager.py", "eager",
                             "tf.stop_gradient on the domain head's input for the reversal: "
                             "the features get no domain gradient", 0, "gradient",
                             ("AT:grl", "AT:grads", "AT:update"),
                             ("BUG:grl_detach_eager", "CALL:update")),
    # proximal gradient descent with an L1 strength (TF1's ProximalGradientDescentOptimizer)
    "prox_eager": _eq(PROX, "tf2_prox_eager.py", "eager",
                      "SGD then a soft threshold lr * l1 assigned to every variable"),
    "prox_fit": _eq(PROX, "tf2_prox_fit.py", "fit",
                    "SGD and a soft-threshold kernel/bias constraint (applied after the "
                    "optimizer's update)"),
    "prox_threshold_fn": _bug(PROX, "tf2_prox_threshold_fn.py", "function",
                              "the soft threshold taken as l1 (0.05) instead of lr * l1 "
                              "(0.005)", 0, "update", ("AT:opt", "AT:update"),
                              ("BUG:prox_threshold_fn", "CALL:update")),
    "prox_penalty_fit": _bug(PROX, "tf2_prox_penalty_fit.py", "fit",
                             "the L1 strength given as kernel/bias regularizers (a penalty "
                             "in the loss, plain SGD) for the proximal step", 0,
                             "regularization", ("AT:loss", "AT:opt"),
                             ("BUG:prox_penalty_fit",)),
    # a stride-2 convolution: where TF's 'SAME' puts its one row of zeros
    "pad_fit": _eq(PAD, "tf2_pad_fit.py", "fit",
                   "Conv2D(strides=2, padding='same') for conv2d(strides 2, 'SAME')"),
    "pad_eager": _eq(PAD, "tf2_pad_eager.py", "eager",
                     "ZeroPadding2D(((0, 1), (0, 1))) + a 'valid' stride-2 Conv2D: SAME's "
                     "padding written out"),
    "pad_symmetric_fn": _bug(PAD, "tf2_pad_symmetric_fn.py", "function",
                             "ZeroPadding2D(1) + 'valid' (a PyTorch port's padding=1): every "
                             "window one pixel up and left", 0, "layer_output",
                             ("AT:conv",), ("BUG:pad_symmetric_fn", "CALL:conv")),
    "pad_topleft_eager": _bug(PAD, "tf2_pad_topleft_eager.py", "eager",
                              "ZeroPadding2D(((1, 0), (1, 0))): the extra row top/left, where "
                              "SAME puts it bottom/right", 0, "layer_output", ("AT:conv",),
                              ("BUG:pad_topleft_eager", "CALL:conv")),
    # the mean absolute error on (8,) targets against (8, 1) predictions
    "bcast_eager": _eq(BCAST, "tf2_bcast_eager.py", "eager",
                       "MeanAbsoluteError (it squeezes the extra axis) for absolute_difference "
                       "on the squeezed prediction; swish; SGD(momentum) vs MomentumOptimizer"),
    "bcast_fit": _eq(BCAST, "tf2_bcast_fit.py", "fit", "loss='mae' in fit"),
    "bcast_fn": _bug(BCAST, "tf2_bcast_fn.py", "function",
                     "tf.reduce_mean(tf.abs(y - model(x))) on (8,) and (8, 1): an (8, 8) "
                     "broadcast", 0, "loss", ("AT:loss",), ("BUG:bcast_fn",)),
}


def programs() -> list[str]:
    """Every program the pairs need, once each."""
    return programs_of(PAIRS)
