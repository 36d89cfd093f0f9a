"""`tfdbg-tui diff` on the seventh blind migration corpus (tests/programs/migration_blind7/):
twelve TF1 → TF2 pairs written as a held-out test after every earlier migration corpus had
been used to tune the compare engine, in classes none of them covers (an autoencoder under
TF1's log_loss against Keras' binary cross-entropy from probabilities — also the
"sigmoid twice" that Keras undoes, and the logits taken for probabilities; the sigmoid focal
loss written out against BinaryFocalCrossentropy, its class balancing left out; TF1's
momentum on a decaying rate against TF1's rule by hand and against Keras' SGD momentum, whose
velocity keeps the old rates); each proven equivalent or buggy with numpy (its verify.py)
and its expectations written and committed (EXPECTATIONS.md, blind7_pairs.py) before the
tool was run on it.

Each program is recorded unmodified with `tfdbg-tui run --mode FULL_TENSOR -- PROGRAM DATA_DIR`
through the harness of tests/compare/user_corpus.py (two fork servers; recordings cached
outside the checkout under ~/.cache/tfdbg-tui-tests/migration-blind7, or
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

BLIND7 = PROGRAMS / "migration_blind7"
sys.path[:0] = [str(BLIND7), str(PROGRAMS)]  # the corpus, and its shared pair table
from blind7_models import program_data  # noqa: E402
from blind7_pairs import CONTRACT, PAIRS, programs  # noqa: E402

pytestmark = [pytest.mark.tf, pytest.mark.timeout(1800)]

CORPUS = UserCorpus(BLIND7, "migration-blind7", PAIRS, programs, CONTRACT)

# pair → what the tool says instead (first contact, 2026-11-29 ~04:55, the engine of HEAD
# f03a13e: 6 of 12 pairs right, 11 of 12 by exit code; each a strict xfail)
KNOWN_FAILING: dict[str, str] = {}


@pytest.fixture(scope="session")
def blind7_diffs(tmp_path_factory: pytest.TempPathFactory) -> Diffs:
    """pair → (exit status, `diff --json` result), the recordings built first if missing."""
    return CORPUS.diffs(tmp_path_factory)


@pytest.mark.parametrize("name", CORPUS.params(0, KNOWN_FAILING))
def test_equivalent_pair(blind7_diffs: Diffs, name: str) -> None:
    """Exit 0, equivalent, and the loss, every gradient and every update compared."""
    CORPUS.check_equivalent(blind7_diffs, name, len(program_data(PAIRS[name].a)[1]))


@pytest.mark.parametrize("name", CORPUS.params(1, KNOWN_FAILING))
def test_buggy_pair(blind7_diffs: Diffs, name: str) -> None:
    """Exit 1, the first divergence at the expected step and quantity, both lines right."""
    CORPUS.check_buggy(blind7_diffs, name)


def test_marks_and_pairs_are_consistent() -> None:
    CORPUS.check_marks()
