"""The fresh migration pairs and what `tfdbg-tui diff` must say of each (EXPECTATIONS.md gives
the reasons). Plain data, no TensorFlow: verify.py and tests/compare/test_migration_fresh.py
both read it.

A pair: A = the TF1 program, B = its TF2 rewrite, the expected exit (0 equivalent, 1
diverge), and for a buggy pair the first divergence's step, its quantity (the names of
`diff --json`'s steps[].quantities) and the marks accepted as each side's line: `AT:<name>`
in A's program, `BUG:<pair>` / `CALL:<name>` in B's (one pair, depthwise_no_update_ops, has
its mistake in the TF1 reference: its `BUG:` line is in A). `steps`: how many training steps
both programs run.
"""

from __future__ import annotations

from migration_table import CONTRACT as CONTRACT  # the contract the pairs are judged in
from migration_table import Pair, programs_of
from migration_table import bug as _bug
from migration_table import eq as _eq

TWO = "tf1_twohead_adam.py"
C1D = "tf1_conv1d_layernorm.py"
DW = "tf1_depthwise_bn.py"
DWN = "tf1_depthwise_bn_no_update_ops.py"
MLP = "tf1_mlp_smooth.py"
CNN = "tf1_cnn_rmsprop.py"

PAIRS: dict[str, Pair] = {
    # two heads, Adam with its own betas and epsilon, a global step
    "twohead_functional_fit": _eq(TWO, "tf2_twohead_functional_fit.py", "fit",
                                  "two outputs (loss list + loss_weights), functional, "
                                  "Adam betas/epsilon, layer set_weights"),
    "twohead_eager": _eq(TWO, "tf2_twohead_eager.py", "eager",
                         "subclass returning two heads, Adam betas/epsilon, "
                         "model.set_weights after an eager build call"),
    "twohead_beta1_eager": _bug(TWO, "tf2_twohead_beta1_eager.py", "eager",
                                "Adam beta_1 left at Keras' 0.9 (TF1 0.8)", 1, "update",
                                ("AT:opt", "AT:update"),
                                ("BUG:twohead_beta1_eager", "CALL:update")),
    "twohead_sum_reduction_fn": _bug(TWO, "tf2_twohead_sum_reduction_fn.py", "function",
                                     "loss object's reduction ('sum' for one head)", 0,
                                     "loss", ("AT:loss_reg", "AT:loss"),
                                     ("BUG:twohead_sum_reduction_fn", "CALL:loss_reg")),
    # Conv1D + layer norm, staircase exponential decay on a global step, global-norm clipping
    "conv1d_seq_fit": _eq(C1D, "tf2_conv1d_seq_fit.py", "fit",
                          "Sequential Conv1D+LayerNormalization, Flatten vs reshape [-1,24], "
                          "ExponentialDecay vs exponential_decay(global_step), "
                          "global_clipnorm vs clip_by_global_norm", steps=4),
    "conv1d_clip_forgotten_eager": _bug(C1D, "tf2_conv1d_clip_forgotten_eager.py", "eager",
                                        "clipping forgotten (TF1 clip_by_global_norm)", 0,
                                        "applied_gradient", ("AT:clip",),
                                        ("BUG:conv1d_clip_forgotten_eager", "CALL:update"),
                                        steps=4),
    "conv1d_lr_subclass_fn": _eq(C1D, "tf2_conv1d_lr_subclass_fn.py", "function",
                                 "LearningRateSchedule subclass, clip_by_global_norm in the "
                                 "step, functional", steps=4),
    "conv1d_ln_epsilon_fn": _bug(C1D, "tf2_conv1d_ln_epsilon_fn.py", "function",
                                 "LayerNormalization epsilon left at 1e-3 (TF1 1e-5)", 0,
                                 "layer_output", ("AT:ln",),
                                 ("BUG:conv1d_ln_epsilon_fn", "CALL:ln"), steps=4),
    # depthwise conv + batch norm in training, Adagrad, piecewise constant, TF1 checkpoint
    "depthwise_fn": _eq(DW, "tf2_depthwise_fn.py", "function",
                        "DepthwiseConv2D, BN momentum = TF1 decay, Adagrad "
                        "initial_accumulator_value, PiecewiseConstantDecay, "
                        "load_checkpoint + assign (moving statistics too)"),
    "depthwise_eager": _eq(DW, "tf2_depthwise_eager.py", "eager",
                           "as depthwise_fn, functional, model.set_weights from the "
                           "checkpoint"),
    "depthwise_accumulator_fn": _bug(DW, "tf2_depthwise_accumulator_fn.py", "function",
                                     "Adagrad initial_accumulator_value left at 0.1 (TF1 0.5)",
                                     0, "update", ("AT:opt", "AT:update"),
                                     ("BUG:depthwise_accumulator_fn", "CALL:update")),
    "depthwise_bn_momentum_eager": _bug(DW, "tf2_depthwise_bn_momentum_eager.py", "eager",
                                        "BN momentum left at 0.99 (TF1 decay 0.95)", 0,
                                        "state", ("AT:state",),
                                        ("BUG:depthwise_bn_momentum_eager", "CALL:bn")),
    "depthwise_piecewise_fit": _bug(DW, "tf2_depthwise_piecewise_fit.py", "fit",
                                    "PiecewiseConstantDecay boundary off by one; the "
                                    "schedule's creation line in fit", 2, "learning_rate",
                                    ("AT:lr", "AT:update"),
                                    ("BUG:depthwise_piecewise_fit", "CALL:opt")),
    "depthwise_no_update_ops": _bug(DWN, "tf2_depthwise_fn.py", "function",
                                    "the TF1 reference forgot the UPDATE_OPS control "
                                    "dependency (its moving statistics never move)", 0,
                                    "state",
                                    ("BUG:depthwise_no_update_ops", "AT:state", "AT:var"),
                                    ("CALL:bn",)),
    # MLP: label smoothing, per-example weights, L2 (tf.nn.l2_loss), dropout off, momentum
    "mlp_l2_eager": _eq(MLP, "tf2_mlp_l2_eager.py", "eager",
                        "l2_loss half vs l2(5e-4), label smoothing, sample_weight, "
                        "Dropout(training=False), momentum"),
    "mlp_train_step_fit": _eq(MLP, "tf2_mlp_train_step_fit.py", "fit",
                              "Model subclass overriding train_step, fit with sample_weight"),
    "mlp_penalty_forgotten_fit": _bug(MLP, "tf2_mlp_penalty_forgotten_fit.py", "fit",
                                      "L2 penalty forgotten; the layer's model-building line "
                                      "in fit", 0, "regularization", ("AT:reg",),
                                      ("BUG:mlp_penalty_forgotten_fit", "CALL:logits")),
    "mlp_sample_weight_forgotten_fn": _bug(MLP, "tf2_mlp_sample_weight_forgotten_fn.py",
                                           "function", "sample_weight not passed to the loss",
                                           0, "loss", ("AT:loss",),
                                           ("BUG:mlp_sample_weight_forgotten_fn",)),
    # CNN: clip_by_value, RMSProp (TF1's mean square starts at 1.0)
    "cnn_rmsprop_fit": _eq(CNN, "tf2_cnn_rmsprop_fit.py", "fit",
                           "load_weights .weights.h5, Flatten vs reshape, clipvalue vs "
                           "clip_by_value, RMSprop rho/epsilon, velocities restored to 1.0"),
    "cnn_rmsprop_init_eager": _bug(CNN, "tf2_cnn_rmsprop_init_eager.py", "eager",
                                   "RMSprop velocities start at 0 (TF1's mean square at 1.0)",
                                   0, "update", ("AT:opt", "AT:update"),
                                   ("BUG:cnn_rmsprop_init_eager", "CALL:update")),
    "cnn_restore_bias_fn": _bug(CNN, "tf2_cnn_restore_bias_fn.py", "function",
                                "restored weights: the conv bias not restored", 0,
                                "variable", ("AT:var", "AT:restore"),
                                ("BUG:cnn_restore_bias_fn", "CALL:build", "CALL:restore")),
}


def programs() -> list[str]:
    """Every program the pairs need, once each."""
    return programs_of(PAIRS)
