"""`tfdbg-tui diff` on the blind migration pairs (tests/programs/migration_blind/): eighteen
TF1 → TF2 pairs written as a held-out test after the corpus, the held-out, the fresh and the
wild pairs had been used to tune the compare engine, in classes none of them covers (two-head
attention with a gelu feed-forward, causal dilated Conv1D + global pooling, a frozen layer, a
tf.Module with raw variables and a hand-written update, gradient accumulation over two
micro-batches, a leaky relu MLP restored from TF1/TF2 checkpoints, a wide logistic
regression; Adadelta, FTRL, warmup + cosine and inverse-time schedules; class weights, L1L2
and activity penalties); each proven equivalent or buggy with numpy (its verify.py) and its
expectations written and committed (EXPECTATIONS.md, blind_pairs.py) before the tool was run
on it.

Each program is recorded unmodified with `tfdbg-tui run --mode FULL_TENSOR -- PROGRAM DATA_DIR`
through the harness of tests/compare/user_corpus.py (two fork servers; recordings cached
outside the checkout under ~/.cache/tfdbg-tui-tests/migration-blind, or
$TFDBG_TUI_TEST_CACHE, keyed by program, prepare_data.py and the TensorFlow/Keras versions).

Pairs the engine gets wrong are in KNOWN_FAILING as strict xfails, each with what the tool
says instead: the suite stays green, and a fix makes its test pass unexpectedly, which fails
until the entry goes.
"""

from __future__ import annotations

import sys

import pytest
from compare.user_corpus import Diffs, UserCorpus
from support.paths import PROGRAMS

BLIND = PROGRAMS / "migration_blind"
sys.path[:0] = [str(BLIND), str(PROGRAMS)]  # the corpus, and its shared pair table
from blind_data import program_data  # noqa: E402
from blind_models import PROGRAMS as MODELS  # noqa: E402
from blind_pairs import CONTRACT, PAIRS, programs  # noqa: E402

pytestmark = [pytest.mark.tf, pytest.mark.timeout(1800)]

CORPUS = UserCorpus(BLIND, "migration-blind", PAIRS, programs, CONTRACT)

# pair → what the tool says instead (first run: tree of eb2b5fd, 2026-11-28 ~12:05, the same
# with and without the uncommitted compare work then in the tree; each is a strict xfail)
KNOWN_FAILING: dict[str, str] = {}


def _trained(program: str) -> int:
    """How many variables `program` trains (a frozen layer's are read, never trained)."""
    trainable = MODELS[program].trainable
    return len(trainable) if trainable else len(program_data(program)[1])


@pytest.fixture(scope="session")
def blind_diffs(tmp_path_factory: pytest.TempPathFactory) -> Diffs:
    """pair → (exit status, `diff --json` result), the recordings built first if missing."""
    return CORPUS.diffs(tmp_path_factory)


@pytest.mark.parametrize("name", CORPUS.params(0, KNOWN_FAILING))
def test_equivalent_pair(blind_diffs: Diffs, name: str) -> None:
    """Exit 0, equivalent, and the loss, every gradient and every update compared."""
    CORPUS.check_equivalent(blind_diffs, name, _trained(PAIRS[name].a))


@pytest.mark.parametrize("name", CORPUS.params(1, KNOWN_FAILING))
def test_buggy_pair(blind_diffs: Diffs, name: str) -> None:
    """Exit 1, the first divergence at the expected step and quantity, both lines right."""
    CORPUS.check_buggy(blind_diffs, name)


def test_marks_and_pairs_are_consistent() -> None:
    CORPUS.check_marks()


def test_a_restore_that_reached_nothing_is_said(blind_diffs: Diffs) -> None:
    """leaky_key_fit: A restores its weights (Saver), B's restore matches no key, so B's
    step 0 reads what each Dense's `build` drew when `Sequential([Input, ...])` built it. B's
    line is that layer's constructor (`Dense(4, name="out")`, where its initializer is
    chosen), the Sequential statement beside it, and the hint says B's restore reached
    nothing rather than "check what each program restores"."""
    code, r = blind_diffs["leaky_key_fit"]
    fd = r["first_divergence"]
    assert code == 1 and fd is not None and fd["quantity"] == "variable", r["verdict_text"]
    b = fd["b"]
    layer = "out" if "out/" in fd["what"] else "hidden"  # the variable shown first
    assert b["created_by"] == "Dense", b
    assert f'name="{layer}"' in b["user_frame"]["code"], b["user_frame"]
    assert "tf.keras.Sequential(" in b["applied_at"]["code"], b.get("applied_at")
    assert "B's are the initial draw of the layer building them" in fd["hint"], fd["hint"]
    assert "tf.train.Checkpoint" in fd["hint"] and "assert_consumed" in fd["hint"]


def test_attention_pairs_projections_not_block_intermediates(blind_diffs: Diffs) -> None:
    """mha_fn: hand-written heads (scores divided by sqrt(d)) against Keras'
    MultiHeadAttention (scores scaled by a Mul): the blocks share no intermediate, so their
    projections (q, k, v: [4, 3, 4] against Keras' [4, 3, 2, 2], a regrouping), the
    residual, the feed-forward and its gelu are compared — all equal at every step — and a
    note names the scores and contexts not compared (they were paired, and 'differed')."""
    code, r = blind_diffs["mha_fn"]
    assert code == 0, r["verdict_text"]
    for step in r["steps"]:
        layers = step["quantities"]["layer_output"]
        assert layers["different"] == 0 and layers["compared"] >= 7, (step["step"], layers)
    note = [n for n in r["training"]["notes"] if "intermediates of a block" in n]
    assert len(note) == 1 and "A's MatMul, Reshape_3" in note[0], r["training"]["notes"]
    assert "multi_head_attention_1/Mul" in note[0], note


def test_a_gelu_is_compared_at_its_value(blind_diffs: Diffs) -> None:
    """mha_gelu_fit: the first divergence is the feed-forward's gelu (A's `x * cdf` in its
    helper, Keras' exact Gelu), its pre-activation compared equal before it — not the
    attention scores, nor the helper's inner `cdf` against Keras' BiasAdd."""
    code, r = blind_diffs["mha_gelu_fit"]
    fd = r["first_divergence"]
    assert code == 1 and fd["quantity"] == "layer_output", r["verdict_text"]
    assert fd["a"]["op_name"] == "mul_3" and fd["b"]["op_name"].endswith("Gelu/mul_2"), fd
    assert r["steps"][0]["quantities"]["layer_output"]["equal"] >= 6, r["steps"][0]
