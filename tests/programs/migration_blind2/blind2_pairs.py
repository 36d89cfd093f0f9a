"""The second blind corpus's migration pairs and what `tfdbg-tui diff` must say of each
(EXPECTATIONS.md gives the reasons). Plain data, no TensorFlow: verify.py and
tests/compare/test_migration_blind2.py both read it. Written, with the numpy proof, before
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

TAGGER = "tf1_tagger.py"
DECONV = "tf1_deconv.py"
HINGE = "tf1_hinge.py"
TIED = "tf1_tied.py"
DISTILL = "tf1_distill.py"

PAIRS: dict[str, Pair] = {
    # embedding + bidirectional simple RNN tagger, a loss over the real tokens only, momentum
    "tagger_fn": _eq(TAGGER, "tf2_tagger_fn.py", "function",
                     "Bidirectional(SimpleRNN) vs a hand-written bidirectional RNN, "
                     "SparseCategoricalCrossentropy(ignore_class=0) vs tf.losses' "
                     "SUM_BY_NONZERO_WEIGHTS with a 0/1 mask"),
    "tagger_mask_eager": _bug(TAGGER, "tf2_tagger_mask_eager.py", "eager",
                              "pads masked by sample_weight: Keras divides by every position "
                              "(TF1 by the real tokens)", 0, "loss", ("AT:loss",),
                              ("BUG:tagger_mask_eager", "CALL:loss")),
    "tagger_swap_fit": _bug(TAGGER, "tf2_tagger_swap_fit.py", "fit",
                            "Bidirectional.set_weights given the backward cell's arrays first",
                            0, "variable", ("AT:var",),
                            ("BUG:tagger_swap_fit", "CALL:rnn", "CALL:build",
                             "CALL:restore")),
    "tagger_reverse_eager": _bug(TAGGER, "tf2_tagger_reverse_eager.py", "eager",
                                 "SimpleRNN(go_backwards=True)'s states concatenated without "
                                 "reversing them back", 0, "layer_output",
                                 ("AT:bwd", "AT:concat"),
                                 ("BUG:tagger_reverse_eager", "CALL:bwd")),
    # a Conv2DTranspose decoder, MSE, polynomial decay
    "deconv_fit": _eq(DECONV, "tf2_deconv_fit.py", "fit",
                      "Conv2DTranspose(strides 2, same) vs tf.nn.conv2d_transpose, "
                      "PolynomialDecay(power 2) vs polynomial_decay, MSE"),
    "deconv_power_fn": _bug(DECONV, "tf2_deconv_power_fn.py", "function",
                            "PolynomialDecay's power left at 1.0 (TF1 2.0)", 1,
                            "learning_rate", ("AT:lr", "AT:update"),
                            ("BUG:deconv_power_fn", "CALL:update", "CALL:opt")),
    "deconv_layout_eager": _bug(DECONV, "tf2_deconv_layout_eager.py", "eager",
                                "a Conv2DTranspose kernel transposed as if Conv2D's (HWIO) "
                                "when restored", 0, "variable", ("AT:var",),
                                ("BUG:deconv_layout_eager", "CALL:up1", "CALL:build")),
    # hinge loss, AMSGrad (hand-written in TF1)
    "hinge_fn": _eq(HINGE, "tf2_hinge_fn.py", "function",
                    "Adam(amsgrad=True) vs a hand-written TF1 AMSGrad, Hinge vs hinge_loss "
                    "on 0/1 labels"),
    "hinge_fit": _eq(HINGE, "tf2_hinge_fit.py", "fit",
                     "the same in fit, loss='hinge', functional"),
    "hinge_amsgrad_eager": _bug(HINGE, "tf2_hinge_amsgrad_eager.py", "eager",
                                "amsgrad=True forgotten (plain Adam)", 1, "update",
                                ("AT:opt", "AT:update"),
                                ("BUG:hinge_amsgrad_eager", "CALL:update")),
    "hinge_sigmoid_fit": _bug(HINGE, "tf2_hinge_sigmoid_fit.py", "fit",
                              "a sigmoid on the score the hinge loss reads", 0,
                              "layer_output", ("AT:score",), ("BUG:hinge_sigmoid_fit",)),
    # tied input/output embedding
    "tied_fn": _eq(TIED, "tf2_tied_fn.py", "function",
                   "output projection tf.matmul(h, Embedding.embeddings, transpose_b=True) "
                   "in a Model subclass, add_weight bias"),
    "tied_fit": _eq(TIED, "tf2_tied_fit.py", "fit", "the same subclass in fit"),
    "tied_untied_eager": _bug(TIED, "tf2_tied_untied_eager.py", "eager",
                              "a Dense output layer given E^T: the weights are no longer tied "
                              "(the embedding's gradient loses the output path)", 0,
                              "gradient", ("AT:grads", "AT:update", "AT:tied", "AT:logits"),
                              ("BUG:tied_untied_eager", "CALL:grads", "CALL:logits")),
    "tied_nobias_fn": _bug(TIED, "tf2_tied_nobias_fn.py", "function",
                           "the tied projection without TF1's output bias", 0,
                           "layer_output", ("AT:logits",), ("BUG:tied_nobias_fn",)),
    # distillation from soft targets at a temperature, a rate fed per step
    "distill_eager": _eq(DISTILL, "tf2_distill_eager.py", "eager",
                         "CategoricalCrossentropy(from_logits) on soft targets x T^2 vs "
                         "softmax_cross_entropy_with_logits; optimizer.learning_rate set per "
                         "step vs a fed placeholder"),
    "distill_fit": _eq(DISTILL, "tf2_distill_fit.py", "fit",
                       "a loss function in compile, LearningRateScheduler vs a fed rate"),
    "distill_temperature_fn": _bug(DISTILL, "tf2_distill_temperature_fn.py", "function",
                                   "the T^2 factor forgotten", 0, "loss", ("AT:loss",),
                                   ("BUG:distill_temperature_fn",)),
}


def programs() -> list[str]:
    """Every program the pairs need, once each."""
    return programs_of(PAIRS)
