"""`tfdbg-tui diff` on the sixth blind migration corpus (tests/programs/migration_blind6/):
ten TF1 → TF2 pairs written as a held-out test after every earlier migration corpus had
been used to tune the compare engine, in classes none of them covers (distillation under
the KL divergence written out in TF1 against Keras' KLDivergence / kl_divergence /
"kl_divergence", swapped or averaged over the classes; a count regression under TF1's
log_poisson_loss against Keras' Poisson on an exponential Dense, the full loss's Stirling
term, the exponential left out); each proven equivalent or buggy with numpy (its verify.py)
and its expectations written and committed (EXPECTATIONS.md, blind6_pairs.py) before the
tool was run on it.

Each program is recorded unmodified with `tfdbg-tui run --mode FULL_TENSOR -- PROGRAM DATA_DIR`
through the harness of tests/compare/user_corpus.py (two fork servers; recordings cached
outside the checkout under ~/.cache/tfdbg-tui-tests/migration-blind6, or
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

BLIND6 = PROGRAMS / "migration_blind6"
sys.path[:0] = [str(BLIND6), str(PROGRAMS)]  # the corpus, and its shared pair table
from blind6_models import program_data  # noqa: E402
from blind6_pairs import CONTRACT, PAIRS, programs  # noqa: E402

pytestmark = [pytest.mark.tf, pytest.mark.timeout(1800)]

CORPUS = UserCorpus(BLIND6, "migration-blind6", PAIRS, programs, CONTRACT)

# pair → what the tool says instead (first contact, 2026-11-29 ~03:05, the engine of HEAD
# 5515cda: 7 of 10 pairs right; kld_swap_fn, kld_mean_eager and pois_linear_fit fixed since,
# see tests/compare/test_loss_after_output.py: 10 of 10)
KNOWN_FAILING: dict[str, str] = {}


@pytest.fixture(scope="session")
def blind6_diffs(tmp_path_factory: pytest.TempPathFactory) -> Diffs:
    """pair → (exit status, `diff --json` result), the recordings built first if missing."""
    return CORPUS.diffs(tmp_path_factory)


@pytest.mark.parametrize("name", CORPUS.params(0, KNOWN_FAILING))
def test_equivalent_pair(blind6_diffs: Diffs, name: str) -> None:
    """Exit 0, equivalent, and the loss, every gradient and every update compared."""
    CORPUS.check_equivalent(blind6_diffs, name, len(program_data(PAIRS[name].a)[1]))


@pytest.mark.parametrize("name", CORPUS.params(1, KNOWN_FAILING))
def test_buggy_pair(blind6_diffs: Diffs, name: str) -> None:
    """Exit 1, the first divergence at the expected step and quantity, both lines right."""
    CORPUS.check_buggy(blind6_diffs, name)


def test_marks_and_pairs_are_consistent() -> None:
    CORPUS.check_marks()
