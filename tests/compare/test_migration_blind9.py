"""`tfdbg-tui diff` on the ninth blind migration corpus (tests/programs/migration_blind9/):
twelve TF1 → TF2 pairs written as a held-out test after every earlier migration corpus had
been used to tune the compare engine, in classes none of them covers (a selu regression of
features standardized by numpy's statistics against Keras' Normalization — adapted, given
mean= and variance=, adapted with axis=None — and elu for selu; two towers with their own
weights whose dot product is a click's logit against Keras' Dot(axes=1), its
normalize=True cosine, and the two inputs fed in the other order in fit; a time-distributed
tanh layer pooled over time under the softmax cross-entropy against TimeDistributed, Dense on
a 3-d input, the cross-entropy written with reduce_logsumexp — with and without its axis —
and fit on two minibatches with steps_per_execution=2); each proven equivalent or buggy with
numpy (its verify.py) and its expectations written and committed (EXPECTATIONS.md,
blind9_pairs.py) before the tool was run on it.

Each program is recorded unmodified with `tfdbg-tui run --mode FULL_TENSOR -- PROGRAM DATA_DIR`
through the harness of tests/compare/user_corpus.py (two fork servers; recordings cached
outside the checkout under ~/.cache/tfdbg-tui-tests/migration-blind9, or
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

BLIND9 = PROGRAMS / "migration_blind9"
sys.path[:0] = [str(BLIND9), str(PROGRAMS)]  # the corpus, and its shared pair table
from blind9_models import program_data  # noqa: E402
from blind9_pairs import CONTRACT, PAIRS, programs  # noqa: E402

pytestmark = [pytest.mark.tf, pytest.mark.timeout(1800)]

CORPUS = UserCorpus(BLIND9, "migration-blind9", PAIRS, programs, CONTRACT)

# pair → what the tool says instead (a strict xfail each). First contact (2026-11-29 ~11:41,
# HEAD 18379b6, expectations committed before): 12 of 12 by exit code, 12 of 12 by step and
# quantity, 10 of 12 by the full harness. tower_cos_fn and lse_axis_fn, wrong in one line each
# then, pass since the merge's fixes (EXPECTATIONS.md, "After the fixes").
KNOWN_FAILING: dict[str, str] = {}


@pytest.fixture(scope="session")
def blind9_diffs(tmp_path_factory: pytest.TempPathFactory) -> Diffs:
    """pair → (exit status, `diff --json` result), the recordings built first if missing."""
    return CORPUS.diffs(tmp_path_factory)


@pytest.mark.parametrize("name", CORPUS.params(0, KNOWN_FAILING))
def test_equivalent_pair(blind9_diffs: Diffs, name: str) -> None:
    """Exit 0, equivalent, and the loss, every gradient and every update compared."""
    CORPUS.check_equivalent(blind9_diffs, name, len(program_data(PAIRS[name].a)[1]))


@pytest.mark.parametrize("name", CORPUS.params(1, KNOWN_FAILING))
def test_buggy_pair(blind9_diffs: Diffs, name: str) -> None:
    """Exit 1, the first divergence at the expected step and quantity, both lines right."""
    CORPUS.check_buggy(blind9_diffs, name)


def test_marks_and_pairs_are_consistent() -> None:
    CORPUS.check_marks()
