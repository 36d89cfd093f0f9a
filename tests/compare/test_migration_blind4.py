"""`tfdbg-tui diff` on the fourth blind migration corpus (tests/programs/migration_blind4/):
seventeen TF1 → TF2 pairs written as a held-out test after every earlier migration corpus
had been used to tune the compare engine, in classes none of them covers (Nadam as tf.contrib
had it against the same rule written out and against Keras' Nadam, PReLU, the weighted
cross-entropy and class weights, bilinear upscaling on TF 1.x's pixel grid and on TF 2's
half-pixel one, Keras 2's and Keras 3's hard sigmoid, the squared hinge, a cyclic polynomial
decay, a bag of words from embedding_lookup_sparse or a masked mean, Lion, log-cosh); each
proven equivalent or buggy with numpy (its verify.py) and its expectations written and
committed (EXPECTATIONS.md, blind4_pairs.py) before the tool was run on it.

Each program is recorded unmodified with `tfdbg-tui run --mode FULL_TENSOR -- PROGRAM DATA_DIR`
through the harness of tests/compare/user_corpus.py (two fork servers; recordings cached
outside the checkout under ~/.cache/tfdbg-tui-tests/migration-blind4, or
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

BLIND4 = PROGRAMS / "migration_blind4"
sys.path[:0] = [str(BLIND4), str(PROGRAMS)]  # the corpus, and its shared pair table
from blind4_models import program_data  # noqa: E402
from blind4_pairs import CONTRACT, PAIRS, programs  # noqa: E402

pytestmark = [pytest.mark.tf, pytest.mark.timeout(1800)]

CORPUS = UserCorpus(BLIND4, "migration-blind4", PAIRS, programs, CONTRACT)

# pair → what the tool says instead (first contact, 2026-11-28 ~22:25, the engine of HEAD
# 575b180: 8 of 17 pairs right; each a strict xfail)
KNOWN_FAILING: dict[str, str] = {}


@pytest.fixture(scope="session")
def blind4_diffs(tmp_path_factory: pytest.TempPathFactory) -> Diffs:
    """pair → (exit status, `diff --json` result), the recordings built first if missing."""
    return CORPUS.diffs(tmp_path_factory)


@pytest.mark.parametrize("name", CORPUS.params(0, KNOWN_FAILING))
def test_equivalent_pair(blind4_diffs: Diffs, name: str) -> None:
    """Exit 0, equivalent, and the loss, every gradient and every update compared."""
    CORPUS.check_equivalent(blind4_diffs, name, len(program_data(PAIRS[name].a)[1]))


@pytest.mark.parametrize("name", CORPUS.params(1, KNOWN_FAILING))
def test_buggy_pair(blind4_diffs: Diffs, name: str) -> None:
    """Exit 1, the first divergence at the expected step and quantity, both lines right."""
    CORPUS.check_buggy(blind4_diffs, name)


def test_marks_and_pairs_are_consistent() -> None:
    CORPUS.check_marks()
