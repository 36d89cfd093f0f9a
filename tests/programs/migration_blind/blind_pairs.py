"""The blind migration pairs and what `tfdbg-tui diff` must say of each (EXPECTATIONS.md gives
the reasons). Plain data, no TensorFlow: verify.py and tests/compare/test_migration_blind.py
both read it. Written, with the numpy proof, before tfdbg-tui was run on any of them.

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

MHA = "tf1_mha.py"
C1D = "tf1_conv1d.py"
FROZEN = "tf1_frozen.py"
ACCUM = "tf1_accum.py"
LEAKY = "tf1_leaky_ckpt.py"
FTRL = "tf1_ftrl.py"

PAIRS: dict[str, Pair] = {
    # two-head self-attention (hand-written vs MultiHeadAttention), tanh gelu, Adadelta
    "mha_fn": _eq(MHA, "tf2_mha_fn.py", "function",
                  "MultiHeadAttention(2 heads) vs hand-written heads on get_variable dense "
                  "layers, gelu(approximate=True) vs BERT's tanh gelu, Adadelta rho/epsilon "
                  "set to TF1's"),
    "mha_adadelta_eager": _bug(MHA, "tf2_mha_adadelta_eager.py", "eager",
                               "Adadelta epsilon left at Keras' 1e-7 (TF1 default 1e-8)", 0,
                               "update", ("AT:opt", "AT:update"),
                               ("BUG:mha_adadelta_eager", "CALL:update")),
    "mha_gelu_fit": _bug(MHA, "tf2_mha_gelu_fit.py", "fit",
                         "activation='gelu' is the exact erf gelu (TF1 used the tanh "
                         "approximation)", 0, "layer_output", ("AT:ffn",),
                         ("BUG:mha_gelu_fit",)),
    # causal dilated Conv1D + global average pooling, class weights, warmup + cosine decay
    "conv1d_fit": _eq(C1D, "tf2_conv1d_fit.py", "fit",
                      "Conv1D(causal, dilation 2) vs left pad + VALID, class_weight vs "
                      "gather(weights, y) * xent, CosineDecay(warmup) vs hand-written warmup "
                      "+ cosine_decay", steps=4),
    "conv1d_causal_eager": _bug(C1D, "tf2_conv1d_causal_eager.py", "eager",
                                "padding='same' where TF1 padded causally", 0, "layer_output",
                                ("AT:conv", "AT:relu"),
                                ("BUG:conv1d_causal_eager", "CALL:forward"), steps=4),
    "conv1d_warmup_fn": _bug(C1D, "tf2_conv1d_warmup_fn.py", "function",
                             "CosineDecay decay_steps counts the warmup too (6, TF1 decays "
                             "over 4 after it)", 3, "learning_rate", ("AT:lr", "AT:update"),
                             ("BUG:conv1d_warmup_fn", "CALL:update", "CALL:opt"), steps=4),
    # a frozen feature layer, multi-label sigmoid head, inverse-time decay
    "frozen_module_fn": _eq(FROZEN, "tf2_frozen_module_fn.py", "function",
                            "tf.Module with raw tf.Variables (trainable=False), hand-written "
                            "assign_sub SGD and inverse-time rate"),
    "frozen_fit": _eq(FROZEN, "tf2_frozen_fit.py", "fit",
                      "Dense(trainable=False), BinaryCrossentropy(from_logits) on 3 labels, "
                      "InverseTimeDecay"),
    "frozen_offbyone_eager": _bug(FROZEN, "tf2_frozen_offbyone_eager.py", "eager",
                                  "hand-written schedule one step ahead (step + 1)", 0,
                                  "learning_rate", ("AT:lr", "AT:update"),
                                  ("BUG:frozen_offbyone_eager", "CALL:update")),
    "frozen_unfrozen_fn": _bug(FROZEN, "tf2_frozen_unfrozen_fn.py", "function",
                               "the feature layer left trainable (its gradient and update "
                               "exist in B only)", 0, "gradient", ("AT:frozen", "AT:update"),
                               ("BUG:frozen_unfrozen_fn", "CALL:grads", "CALL:update")),
    # gradient accumulation over two micro-batches, L1 + L2 penalty, momentum
    "accum_eager": _eq(ACCUM, "tf2_accum_eager.py", "eager",
                       "micro-batch gradients summed in Python and divided by 2 vs TF1 "
                       "accumulator variables, L1L2 vs hand-written penalty, momentum"),
    "accum_fit": _eq(ACCUM, "tf2_accum_fit.py", "fit",
                     "SGD(gradient_accumulation_steps=2) in fit (batch 4) vs TF1 "
                     "accumulator variables"),
    "accum_reset_fn": _bug(ACCUM, "tf2_accum_reset_fn.py", "function",
                           "accumulator variables never zeroed after the update", 1,
                           "applied_gradient", ("AT:update", "AT:zero", "AT:accum"),
                           ("BUG:accum_reset_fn", "CALL:accum")),
    # leaky relu MLP restored from checkpoints, activity penalty
    "leaky_ckpt_fn": _eq(LEAKY, "tf2_leaky_ckpt_fn.py", "function",
                         "Saver.restore vs tf.train.Checkpoint(net=model).restore, "
                         "activation='leaky_relu' (0.2) vs tf.nn.leaky_relu, activity L1 "
                         "(normalized by batch) vs hand-written mean L1"),
    "leaky_slope_eager": _bug(LEAKY, "tf2_leaky_slope_eager.py", "eager",
                              "activation=LeakyReLU() (slope 0.3; tf.nn.leaky_relu 0.2)", 0,
                              "layer_output", ("AT:hidden",),
                              ("BUG:leaky_slope_eager", "CALL:forward")),
    "leaky_key_fit": _bug(LEAKY, "tf2_leaky_key_fit.py", "fit",
                          "Checkpoint(model=...) restores nothing from a checkpoint written "
                          "as Checkpoint(net=...) (seeded Glorot weights kept)", 0, "variable",
                          ("AT:var", "AT:restore"),
                          ("BUG:leaky_key_fit", "CALL:restore", "CALL:build")),
    # a wide logistic regression trained by FTRL-proximal
    "ftrl_eager": _eq(FTRL, "tf2_ftrl_eager.py", "eager",
                      "Keras Ftrl vs FtrlOptimizer, L1 and L2 strengths"),
    "ftrl_l1_fn": _bug(FTRL, "tf2_ftrl_l1_fn.py", "function",
                       "Ftrl's l1_regularization_strength forgotten", 0, "update",
                       ("AT:opt", "AT:update"), ("BUG:ftrl_l1_fn", "CALL:update")),
}


def programs() -> list[str]:
    """Every program the pairs need, once each."""
    return programs_of(PAIRS)
