"""The wild migration pairs and what `tfdbg-tui diff` must say of each (EXPECTATIONS.md gives
the reasons). Plain data, no TensorFlow: verify.py and tests/compare/test_migration_wild.py
both read it.

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

LSTM = "tf1_lstm.py"
CNN = "tf1_cnn_adamw.py"
TWO = "tf1_twoinput_huber.py"
SEP = "tf1_sepconv_gn.py"
MLP = "tf1_mlp_bn.py"

PAIRS: dict[str, Pair] = {
    # LSTM (hand-written in TF1), an L2 penalty on the recurrent kernel, SGD Nesterov
    "lstm_fn": _eq(LSTM, "tf2_lstm_fn.py", "function",
                   "Keras LSTM vs hand-written cell, recurrent_regularizer l2(5e-4) = "
                   "1e-3*l2_loss, SGD(nesterov=True) vs MomentumOptimizer(use_nesterov)"),
    "lstm_regularizer_eager": _bug(LSTM, "tf2_lstm_regularizer_eager.py", "eager",
                                   "the penalty given as kernel_regularizer (TF1 penalizes "
                                   "the recurrent kernel)", 0, "regularization", ("AT:reg",),
                                   ("BUG:lstm_regularizer_eager", "CALL:loss")),
    "lstm_nesterov_fit": _bug(LSTM, "tf2_lstm_nesterov_fit.py", "fit",
                              "nesterov=True forgotten", 0, "update",
                              ("AT:opt", "AT:update"), ("BUG:lstm_nesterov_fit",)),
    # CNN: Conv2D same + MaxPool + Dropout (inference), Adam + decoupled decay, staircase
    "cnn_adamw_eager": _eq(CNN, "tf2_cnn_adamw_eager.py", "eager",
                           "AdamW vs TF1 Adam + hand-written decay lr*wd*var, "
                           "ExponentialDecay(staircase), Dropout(training=False), "
                           "load_weights .weights.h5"),
    "cnn_staircase_fit": _bug(CNN, "tf2_cnn_staircase_fit.py", "fit",
                              "staircase=True forgotten in ExponentialDecay", 1,
                              "learning_rate", ("AT:lr", "AT:update"),
                              ("BUG:cnn_staircase_fit", "CALL:opt")),
    "cnn_decay_fn": _bug(CNN, "tf2_cnn_decay_fn.py", "function",
                         "weight_decay pre-multiplied by the learning rate (Keras multiplies "
                         "again)", 0, "update", ("AT:decay", "AT:opt", "AT:update"),
                         ("BUG:cnn_decay_fn", "CALL:update")),
    # two inputs, Huber, centered RMSProp with momentum
    "twoinput_fit": _eq(TWO, "tf2_twoinput_fit.py", "fit",
                        "two-input functional model, Huber(delta=0.5), RMSprop centered + "
                        "momentum, velocities set to 1.0, layer set_weights"),
    "twoinput_delta_eager": _bug(TWO, "tf2_twoinput_delta_eager.py", "eager",
                                 "custom Layer subclass; Huber delta left at 1.0 (TF1 0.5)", 0,
                                 "loss", ("AT:loss",),
                                 ("BUG:twoinput_delta_eager", "CALL:loss")),
    "twoinput_centered_fn": _bug(TWO, "tf2_twoinput_centered_fn.py", "function",
                                 "custom Layer subclass; centered=True forgotten", 0, "update",
                                 ("AT:opt", "AT:update"),
                                 ("BUG:twoinput_centered_fn", "CALL:update")),
    # separable conv + group norm, binary cross-entropy, Adam with per-tensor clipping
    "sepconv_gn_fn": _eq(SEP, "tf2_sepconv_gn_fn.py", "function",
                         "SeparableConv2D + GroupNormalization vs hand-written, "
                         "BinaryCrossentropy(from_logits), clipnorm vs clip_by_norm, "
                         "variables assigned"),
    "sepconv_gn_eager": _eq(SEP, "tf2_sepconv_gn_eager.py", "eager",
                            "as sepconv_gn_fn, functional, clip_by_norm in the loop, "
                            "model.set_weights"),
    "sepconv_from_logits_fit": _bug(SEP, "tf2_sepconv_from_logits_fit.py", "fit",
                                    "BinaryCrossentropy's from_logits forgotten", 0, "loss",
                                    ("AT:loss",), ("BUG:sepconv_from_logits_fit",)),
    "sepconv_epsilon_fn": _bug(SEP, "tf2_sepconv_epsilon_fn.py", "function",
                              "GroupNormalization epsilon left at 1e-3 (TF1 1e-5)", 0,
                              "layer_output",
                              ("AT:gn",), ("BUG:sepconv_epsilon_fn", "CALL:gn")),
    # MLP + batch norm before the activation, restored, clipping by value
    "mlp_bn_fit": _eq(MLP, "tf2_mlp_bn_fit.py", "fit",
                      "BN before relu in training, load_weights (moving statistics too), "
                      "clipvalue vs clip_by_value, MSE"),
    "mlp_bn_ckpt_fn": _eq(MLP, "tf2_mlp_bn_ckpt_fn.py", "function",
                          "TF1 checkpoint by name (load_checkpoint + assign, moving "
                          "statistics too)"),
    "mlp_bn_clipnorm_eager": _bug(MLP, "tf2_mlp_bn_clipnorm_eager.py", "eager",
                                  "clipnorm where TF1 clipped by value", 0,
                                  "applied_gradient", ("AT:clip",),
                                  ("BUG:mlp_bn_clipnorm_eager", "CALL:update")),
    "mlp_bn_restore_eager": _bug(MLP, "tf2_mlp_bn_restore_eager.py", "eager",
                                 "restore mapping misses bn/beta (keeps zeros)", 0,
                                 "variable", ("AT:var", "AT:restore"),
                                 ("BUG:mlp_bn_restore_eager", "CALL:restore", "CALL:bn",
                                  "CALL:build")),
}


def programs() -> list[str]:
    """Every program the pairs need, once each."""
    return programs_of(PAIRS)
