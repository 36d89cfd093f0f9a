"""`tfdbg-tui diff` on the wild migration pairs (tests/programs/migration_wild/): seventeen
TF1 → TF2 pairs written after the corpus, the held-out and the fresh pairs had been used to
tune the compare engine, as standalone user scripts over what those lack (an LSTM, Conv2D
same + MaxPool + Dropout in inference, SeparableConv2D + GroupNormalization, two inputs, a
custom Layer, batch norm before the activation restored from a checkpoint or a .weights.h5;
AdamW vs TF1 Adam with hand-written decay, SGD Nesterov, centered RMSprop with momentum,
staircase ExponentialDecay, clipnorm/clipvalue/clip_by_norm; Huber, MSE, binary
cross-entropy from logits); each proven equivalent or buggy with numpy (its verify.py) and its
expectations written (EXPECTATIONS.md, wild_pairs.py) before the tool was run on it.

Each program is recorded unmodified with `tfdbg-tui run --mode FULL_TENSOR -- PROGRAM DATA_DIR`
through the harness of tests/compare/user_corpus.py (two fork servers; recordings cached
outside the checkout under ~/.cache/tfdbg-tui-tests/migration-wild, or
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

WILD = PROGRAMS / "migration_wild"
sys.path[:0] = [str(WILD), str(PROGRAMS)]  # the corpus, and its shared pair table
from wild_data import program_data  # noqa: E402
from wild_pairs import CONTRACT, PAIRS, programs  # noqa: E402

pytestmark = [pytest.mark.tf, pytest.mark.timeout(1800)]

CORPUS = UserCorpus(WILD, "migration-wild", PAIRS, programs, CONTRACT)

# pair → what the tool says instead (first run: tree of db02bd7, 2026-11-28 ~09:15; each is a
# strict xfail)
KNOWN_FAILING: dict[str, str] = {
    # equivalent pairs
    # buggy pairs
}


@pytest.fixture(scope="session")
def wild_diffs(tmp_path_factory: pytest.TempPathFactory) -> Diffs:
    """pair → (exit status, `diff --json` result), the recordings built first if missing."""
    return CORPUS.diffs(tmp_path_factory)


@pytest.mark.parametrize("name", CORPUS.params(0, KNOWN_FAILING))
def test_equivalent_pair(wild_diffs: Diffs, name: str) -> None:
    """Exit 0, equivalent, and the loss, every gradient and every update compared."""
    CORPUS.check_equivalent(wild_diffs, name, len(program_data(PAIRS[name].a)[1]))


@pytest.mark.parametrize("name", CORPUS.params(1, KNOWN_FAILING))
def test_buggy_pair(wild_diffs: Diffs, name: str) -> None:
    """Exit 1, the first divergence at the expected step and quantity, both lines right."""
    CORPUS.check_buggy(wild_diffs, name)


def test_marks_and_pairs_are_consistent() -> None:
    CORPUS.check_marks()
