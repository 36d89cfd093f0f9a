"""`tfdbg-tui diff` on the third blind migration corpus (tests/programs/migration_blind3/):
eighteen TF1 → TF2 pairs written as a held-out test after the corpus, the held-out, the
fresh, the wild, the blind and the second blind pairs had been used to tune the compare
engine, in classes none of them covers (a Siamese tower shared by two inputs with the
contrastive loss, AdaMax as tf.contrib had it, an exponential moving average of the weights,
the Poisson loss on a log-rate, a max-norm kernel constraint, the focal loss, cosine decay
with restarts, two optimizers for two parts of a model, the KL divergence, Q-learning with a
target network); each proven equivalent or buggy with numpy (its verify.py) and its
expectations written and committed (EXPECTATIONS.md, blind3_pairs.py) before the tool was run
on it.

Each program is recorded unmodified with `tfdbg-tui run --mode FULL_TENSOR -- PROGRAM DATA_DIR`
through the harness of tests/compare/user_corpus.py (two fork servers; recordings cached
outside the checkout under ~/.cache/tfdbg-tui-tests/migration-blind3, or
$TFDBG_TUI_TEST_CACHE, keyed by program, prepare_data.py and the TensorFlow/Keras versions).

Pairs the engine gets wrong are in KNOWN_FAILING as strict xfails, each with what the tool
says instead: the suite stays green, and a fix makes its test pass unexpectedly, which fails
until the entry goes.
"""

from __future__ import annotations

import sys

import pytest
from compare.test_migration_corpus import _quantity, _summary
from compare.user_corpus import Diffs, UserCorpus
from support.paths import PROGRAMS

BLIND3 = PROGRAMS / "migration_blind3"
sys.path[:0] = [str(BLIND3), str(PROGRAMS)]  # the corpus, and its shared pair table
from blind3_models import program_data  # noqa: E402
from blind3_pairs import CONTRACT, PAIRS, programs  # noqa: E402

pytestmark = [pytest.mark.tf, pytest.mark.timeout(1800)]

CORPUS = UserCorpus(BLIND3, "migration-blind3", PAIRS, programs, CONTRACT)

# pair → what the tool says instead (first contact, 2026-11-28 ~19:10, the engine of
# 6cba69c: 4 of 18 pairs right; each a strict xfail)
KNOWN_FAILING: dict[str, str] = {
    # equivalent pairs
    # buggy pairs
}

# equivalent pairs whose step leaves non-trainable state (averages of the weights, a target
# network) → what the tool says of it instead (each a strict xfail)
STATE_NOT_COMPARED: dict[str, str] = {}


@pytest.fixture(scope="session")
def blind3_diffs(tmp_path_factory: pytest.TempPathFactory) -> Diffs:
    """pair → (exit status, `diff --json` result), the recordings built first if missing."""
    return CORPUS.diffs(tmp_path_factory)


@pytest.mark.parametrize("name", CORPUS.params(0, KNOWN_FAILING))
def test_equivalent_pair(blind3_diffs: Diffs, name: str) -> None:
    """Exit 0, equivalent, and the loss, every gradient and every update compared."""
    CORPUS.check_equivalent(blind3_diffs, name, len(program_data(PAIRS[name].a)[1]))


@pytest.mark.parametrize("name", CORPUS.params(1, KNOWN_FAILING))
def test_buggy_pair(blind3_diffs: Diffs, name: str) -> None:
    """Exit 1, the first divergence at the expected step and quantity, both lines right."""
    CORPUS.check_buggy(blind3_diffs, name)


def test_marks_and_pairs_are_consistent() -> None:
    CORPUS.check_marks()


# the steps at whose end each equivalent pair's programs write their non-trainable state
STATE_WRITTEN = {"ema_eager": (0, 1, 2), "ema_fit": (0, 1, 2), "dqn_fn": (1,)}


@pytest.mark.parametrize("name", [
    pytest.param(name, id=name, marks=[pytest.mark.xfail(strict=True, reason=why)]
                 if (why := STATE_NOT_COMPARED.get(name)) else [])
    for name in STATE_WRITTEN])
def test_state_is_compared_where_written(blind3_diffs: Diffs, name: str) -> None:
    """The averages of the weights (TF1 ExponentialMovingAverage's shadow variables; TF2's, or
    a callback's variables), updated after every step, and the target network (not
    trainable, assigned the online weights after every second step) are what these steps
    leave beyond the weights: an equivalent verdict compares them where they are written, or
    it is 'equivalent' on less than the programs do (the buggy ema_num_updates_fn and
    dqn_sync_fn differ only there at step 0)."""
    code, r = blind3_diffs[name]
    said = _summary(code, r)
    state_variables = len(program_data(PAIRS[name].a)[1])  # one average / copy per weight
    steps = {s["step"]: s for s in r["steps"]}
    for k in STATE_WRITTEN[name]:
        assert k in steps, (k, said)
        state = _quantity(steps[k], "state")
        assert state["compared"] >= state_variables, (k, state, said)


def test_a_projection_one_run_lacks_is_said(blind3_diffs: Diffs) -> None:
    """maxnorm_forgotten_eager: A projects the hidden kernel's columns back to a norm of 1
    after `minimize` (an assign under a control dependency), B's Dense has no MaxNorm. The
    gradients and the rate agree, the optimizers are alike: the hint names the projection
    only A makes and how to give it to B, not the optimizer's hyperparameters; B's line is the
    applying one, its SGD constructor beside."""
    code, r = blind3_diffs["maxnorm_forgotten_eager"]
    fd = r["first_divergence"]
    assert code == 1 and fd is not None and fd["quantity"] == "update", _summary(code, r)
    hint = fd["hint"] or ""
    assert "A writes this variable again" in hint and "give B the same projection" in hint, hint
    assert "hyperparameters" not in hint, hint
    assert fd["b"].get("created_by") == "SGD" and fd["b"].get("created_at"), fd["b"]


@pytest.mark.parametrize(("name", "about", "said"), [
    ("ema_num_updates_fn", "moving average", "num_updates"),
    ("dqn_sync_fn", "target network", "after which steps"),
])
def test_state_the_user_writes_has_its_own_advice(blind3_diffs: Diffs, name: str, about: str,
                                                  said: str) -> None:
    """Averages of the weights and a target network's copies are written by the programs'
    own code after the update, not by a batch-norm layer: the how-to-fix speaks of what they
    are (a decay and its step count, the steps a copy is made after), not of UPDATE_OPS or
    `training=True`."""
    code, r = blind3_diffs[name]
    fd = r["first_divergence"]
    assert code == 1 and fd is not None and fd["quantity"] == "state", _summary(code, r)
    hint = fd["hint"] or ""
    assert about in hint and said in hint, hint
    assert "UPDATE_OPS" not in hint and "training=True" not in hint, hint
