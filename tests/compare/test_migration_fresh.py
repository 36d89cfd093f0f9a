"""`tfdbg-tui diff` on the fresh migration pairs (tests/programs/migration_fresh/): twenty-one
TF1 → TF2 pairs written after the corpus and the held-out pairs had been used to tune the
compare engine, as standalone user scripts over other architectures (two heads, Conv1D +
LayerNormalization, DepthwiseConv2D + batch norm, a train_step override), optimizers,
schedules and restores; each proven equivalent or buggy with numpy (its verify.py) and its
expectations written (EXPECTATIONS.md, fresh_pairs.py) before the tool was run on it.

Each program is recorded unmodified with `tfdbg-tui run --mode FULL_TENSOR -- PROGRAM DATA_DIR`
in a fork of a process that imported TensorFlow (support.tf_fork; two such servers, the
machine's two cores), after prepare_data.py wrote the files some programs restore from. The
recordings are cached outside the checkout (~/.cache/tfdbg-tui-tests/migration-fresh, or
$TFDBG_TUI_TEST_CACHE), each keyed by its program, prepare_data.py and the TensorFlow and
Keras versions; `last-build` there says what the last build cost.

Pairs the engine gets wrong are in KNOWN_FAILING as strict xfails, each with what the tool
says instead: the suite stays green, and a fix makes its test pass unexpectedly, which fails
until the entry goes.
"""

from __future__ import annotations

import sys

import pytest
from compare.user_corpus import Diffs, UserCorpus
from support.paths import PROGRAMS

FRESH = PROGRAMS / "migration_fresh"
sys.path[:0] = [str(FRESH), str(PROGRAMS)]  # the corpus, and its shared pair table
from fresh_data import program_data  # noqa: E402
from fresh_pairs import CONTRACT, PAIRS, programs  # noqa: E402

pytestmark = [pytest.mark.tf, pytest.mark.timeout(1800)]

CORPUS = UserCorpus(FRESH, "migration-fresh", PAIRS, programs, CONTRACT)

# pair → what the tool says instead (first run: tree of 2026-11-28 ~05:15, a2a3d9f plus the lead's
# uncommitted compare stage of that hour: contract/roles.py, creation.py); each is a
# strict xfail
KNOWN_FAILING: dict[str, str] = {
    # equivalent pairs
    # buggy pairs
}


@pytest.fixture(scope="session")
def fresh_diffs(tmp_path_factory: pytest.TempPathFactory) -> Diffs:
    """pair → (exit status, `diff --json` result), the recordings built first if missing."""
    return CORPUS.diffs(tmp_path_factory)


@pytest.mark.parametrize("name", CORPUS.params(0, KNOWN_FAILING))
def test_equivalent_pair(fresh_diffs: Diffs, name: str) -> None:
    """Exit 0, equivalent, and the loss, every gradient and every update compared."""
    CORPUS.check_equivalent(fresh_diffs, name, len(program_data(PAIRS[name].a)[1]))


@pytest.mark.parametrize("name", CORPUS.params(1, KNOWN_FAILING))
def test_buggy_pair(fresh_diffs: Diffs, name: str) -> None:
    """Exit 1, the first divergence at the expected step and quantity, both lines right."""
    CORPUS.check_buggy(fresh_diffs, name)


def test_marks_and_pairs_are_consistent() -> None:
    CORPUS.check_marks()
