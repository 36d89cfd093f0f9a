"""The migration corpus's pairs and what `tfdbg-tui diff` must say of each (EXPECTATIONS.md
gives the reasons). Plain data, no TensorFlow: verify.py and
tests/compare/test_migration_corpus.py both read it.

A pair is (A = the TF1 program and variant, B = the TF2 rewrite and variant, expected exit,
then for a buggy pair: the first divergence's step, its quantity in the step contract and the
marks accepted as each side's line — `AT:<name>` in A's program, `BUG:<name>` / `CALL:<name>`
in B's).
"""

from __future__ import annotations

from typing import NamedTuple

# the step contract, in its order
QUANTITIES = ("variable", "layer_output", "loss", "regularization", "gradient",
              "applied_gradient", "learning_rate", "update", "state")


class Pair(NamedTuple):
    a: tuple[str, str]  # (program file, variant)
    b: tuple[str, str]
    exit: int  # 0 equivalent, 1 diverge
    step: int | None = None
    quantity: str | None = None
    a_marks: tuple[str, ...] = ()
    b_marks: tuple[str, ...] = ()


D1, D2 = "dense_tf1.py", "dense_tf2.py"
C1, C2 = "conv_tf1.py", "conv_tf2.py"
R1, R2 = "rnn_tf1.py", "rnn_tf2.py"


def _eq(a: tuple[str, str], b: tuple[str, str]) -> Pair:
    return Pair(a, b, 0)


def _bug(a: tuple[str, str], b: tuple[str, str], step: int, quantity: str,
         a_marks: tuple[str, ...], b_marks: tuple[str, ...]) -> Pair:
    return Pair(a, b, 1, step, quantity, a_marks, b_marks)


SGD, NEST, ADAM = (D1, "sgd"), (D1, "nesterov"), (D1, "adam_dropout")
L2CLIP, ADAGRAD, ADAMW = (D1, "l2clip"), (D1, "adagrad_clipvalue"), (D1, "adamw")
CONVBN, BNINF, RNN = (C1, "convbn"), (C1, "bninf"), (R1, "rnn")

PAIRS: dict[str, Pair] = {
    # dense, plain SGD
    "sgd_eager": _eq(SGD, (D2, "sgd_eager")),
    "sgd_fit": _eq(SGD, (D2, "sgd_fit")),
    "sgd_nobias": _bug(SGD, (D2, "sgd_nobias"), 0, "layer_output",
                       ("AT:logits",), ("BUG:sgd_nobias", "CALL:logits")),
    "sgd_tanh": _bug(SGD, (D2, "sgd_tanh"), 0, "layer_output",
                     ("AT:hidden",), ("BUG:sgd_tanh", "CALL:hidden")),
    "sgd_from_logits": _bug(SGD, (D2, "sgd_from_logits"), 0, "loss",
                            ("AT:loss",), ("BUG:sgd_from_logits", "CALL:loss")),
    "sgd_onehot": _eq(SGD, (D2, "sgd_onehot")),
    "sgd_sum_reduction": _bug(SGD, (D2, "sgd_sum_reduction"), 0, "loss",
                              ("AT:loss",), ("BUG:sgd_sum_reduction", "CALL:loss")),
    # Nesterov momentum
    "nesterov_fn": _eq(NEST, (D2, "nesterov_fn")),
    "nesterov_fit": _eq(NEST, (D2, "nesterov_fit")),
    "nesterov_missing": _bug(NEST, (D2, "nesterov_missing"), 0, "update",
                             ("AT:opt", "AT:update"), ("BUG:nesterov_missing", "CALL:update")),
    # Adam, dropout in inference
    "adam_eager": _eq(ADAM, (D2, "adam_eager")),
    "adam_epsilon": _bug(ADAM, (D2, "adam_epsilon"), 0, "update",
                         ("AT:opt", "AT:update"), ("BUG:adam_epsilon", "CALL:update")),
    "adam_fit_dropout": _bug(ADAM, (D2, "adam_fit_dropout"), 0, "layer_output",
                             ("AT:dropout",), ("CALL:dropout", "CALL:fit")),
    # RMSprop, Adagrad with value clipping
    "rmsprop_defaults": _bug((D1, "rmsprop"), (D2, "rmsprop_defaults"), 0, "update",
                             ("AT:opt", "AT:update"), ("BUG:rmsprop_defaults", "CALL:update")),
    "adagrad_clipvalue": _eq(ADAGRAD, (D2, "adagrad_clipvalue")),
    "adagrad_clipnorm": _bug(ADAGRAD, (D2, "adagrad_clipnorm"), 0, "applied_gradient",
                             ("AT:clip",), ("BUG:adagrad_clipnorm", "CALL:update")),
    # an exponential-decay schedule, L2 through tf.nn.l2_loss, clipping by global norm in
    # user code
    "exp_no_staircase": _bug(L2CLIP, (D2, "exp_no_staircase"), 1, "learning_rate",
                             ("AT:lr", "AT:update"), ("BUG:exp_no_staircase", "CALL:update")),
    "l2clip_eager": _eq(L2CLIP, (D2, "l2clip_eager")),
    "l2clip_fit": _eq(L2CLIP, (D2, "l2clip_fit")),
    "clip_in_step": _eq(L2CLIP, (D2, "clip_in_step")),
    "l2_whole": _bug(L2CLIP, (D2, "l2_whole"), 0, "regularization",
                     ("AT:reg",), ("BUG:l2_whole", "CALL:reg")),
    "clipnorm_per_tensor": _bug(L2CLIP, (D2, "clipnorm_per_tensor"), 0, "applied_gradient",
                                ("AT:clip",), ("BUG:clipnorm_per_tensor", "CALL:update")),
    # decoupled weight decay
    "adamw_eager": _eq(ADAMW, (D2, "adamw_eager")),
    "adamw_no_lr": _bug(ADAMW, (D2, "adamw_no_lr"), 0, "update",
                        ("AT:decay", "AT:update"), ("BUG:adamw_no_lr", "CALL:update")),
    # conv + batch norm in training
    "convbn_eager": _eq(CONVBN, (C2, "convbn_eager")),
    "convbn_fn": _eq(CONVBN, (C2, "convbn_fn")),
    "convbn_fit": _eq(CONVBN, (C2, "convbn_fit")),
    "flatten_channels_first": _bug(CONVBN, (C2, "flatten_channels_first"), 0, "layer_output",
                                   ("AT:flatten",),
                                   ("BUG:flatten_channels_first", "CALL:flatten")),
    "bn_momentum": _bug(CONVBN, (C2, "bn_momentum"), 0, "state",
                        ("AT:state",), ("BUG:bn_momentum", "CALL:bn")),
    "bn_epsilon": _bug(CONVBN, (C2, "bn_epsilon"), 0, "layer_output",
                       ("AT:bn",), ("BUG:bn_epsilon", "CALL:bn")),
    "bn_training_false": _bug(CONVBN, (C2, "bn_training_false"), 0, "layer_output",
                              ("AT:bn", "AT:moments"), ("BUG:bn_training_false", "CALL:bn")),
    "restore_missing": _bug(CONVBN, (C2, "restore_missing"), 0, "variable",
                            ("AT:var", "AT:restore"), ("BUG:restore_missing", "CALL:build")),
    "mixed_float16": _bug(CONVBN, (C2, "mixed_float16"), 0, "layer_output",
                          ("AT:conv",), ("BUG:mixed_float16", "CALL:conv")),
    # conv + batch norm in inference (frozen statistics)
    "bninf_eager": _eq(BNINF, (C2, "bninf_eager")),
    "bninf_fn": _eq(BNINF, (C2, "bninf_fn")),
    "bninf_fit": _bug(BNINF, (C2, "bninf_fit"), 0, "layer_output",
                      ("AT:bn",), ("BUG:bninf_fit", "CALL:bn")),
    # embedding + simple RNN
    "rnn_eager": _eq(RNN, (R2, "rnn_eager")),
    "rnn_fit": _eq(RNN, (R2, "rnn_fit")),
    "rnn_mask_zero": _bug(RNN, (R2, "rnn_mask_zero"), 0, "layer_output",
                          ("AT:rnn",), ("BUG:rnn_mask_zero", "CALL:rnn")),
}


def recordings() -> dict[str, tuple[str, str]]:
    """Every program run the pairs need, once each: name → (program file, variant)."""
    out: dict[str, tuple[str, str]] = {}
    for pair in PAIRS.values():
        for program, variant in (pair.a, pair.b):
            out[f"{program[:-3]}.{variant}"] = (program, variant)
    return out


def recording_name(side: tuple[str, str]) -> str:
    return f"{side[0][:-3]}.{side[1]}"
