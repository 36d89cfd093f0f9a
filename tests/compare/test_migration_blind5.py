"""`tfdbg-tui diff` on the fifth blind migration corpus (tests/programs/migration_blind5/):
sixteen TF1 → TF2 pairs written as a held-out test after every earlier migration corpus had
been used to tune the compare engine, in classes none of them covers (a gradient reversal
layer from RegisterGradient/gradient_override_map against tf.custom_gradient and the
stop_gradient trick, TF1's proximal gradient descent with an L1 strength against a soft
threshold written out or as a Keras constraint, where TF's 'SAME' pads a stride-2
convolution against explicit ZeroPadding2D, the mean absolute error on (8,) targets against
(8, 1) predictions, broadcast or not); each proven equivalent or buggy with numpy (its
verify.py) and its expectations written and committed (EXPECTATIONS.md, blind5_pairs.py)
before the tool was run on it.

Each program is recorded unmodified with `tfdbg-tui run --mode FULL_TENSOR -- PROGRAM DATA_DIR`
through the harness of tests/compare/user_corpus.py (two fork servers; recordings cached
outside the checkout under ~/.cache/tfdbg-tui-tests/migration-blind5, or
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

BLIND5 = PROGRAMS / "migration_blind5"
sys.path[:0] = [str(BLIND5), str(PROGRAMS)]  # the corpus, and its shared pair table
from blind5_models import program_data  # noqa: E402
from blind5_pairs import CONTRACT, PAIRS, programs  # noqa: E402

pytestmark = [pytest.mark.tf, pytest.mark.timeout(1800)]

CORPUS = UserCorpus(BLIND5, "migration-blind5", PAIRS, programs, CONTRACT)

# pair → what the tool says instead (first contact, 2026-11-29 ~01:25, the engine of HEAD
# 9dcbb71: 10 of 16 pairs right; each a strict xfail)
KNOWN_FAILING: dict[str, str] = {
}


@pytest.fixture(scope="session")
def blind5_diffs(tmp_path_factory: pytest.TempPathFactory) -> Diffs:
    """pair → (exit status, `diff --json` result), the recordings built first if missing."""
    return CORPUS.diffs(tmp_path_factory)


@pytest.mark.parametrize("name", CORPUS.params(0, KNOWN_FAILING))
def test_equivalent_pair(blind5_diffs: Diffs, name: str) -> None:
    """Exit 0, equivalent, and the loss, every gradient and every update compared."""
    CORPUS.check_equivalent(blind5_diffs, name, len(program_data(PAIRS[name].a)[1]))


@pytest.mark.parametrize("name", CORPUS.params(1, KNOWN_FAILING))
def test_buggy_pair(blind5_diffs: Diffs, name: str) -> None:
    """Exit 1, the first divergence at the expected step and quantity, both lines right."""
    CORPUS.check_buggy(blind5_diffs, name)


def test_marks_and_pairs_are_consistent() -> None:
    CORPUS.check_marks()
