"""An optimizer written by hand keeps its state in variables of the user's: a hand-written
Adam's moments `m`, `v` and its step counter `t` (`get_variable(trainable=False)`, updated
with `assign`; the weights with `assign_sub(lr_t * m_t / (sqrt(v_t) + eps))`). They are
optimizer state, not the model: the loss is never computed from them, their values only
feed other variables' updates. The step model must take the weights — the variables the
loss depends on — for the trained variables (before: the moments were, because a weight's
`assign_sub` reads the gradient only through `m`, and the weights became "state").

Real recordings of tests/programs/hand_optimizer/tf1_adam.py: `hand` (the Adam above) and
`fused` (TF1's `AdamOptimizer`, the same arithmetic in one kernel).
"""

from __future__ import annotations

import pytest
from compare.migration_fixtures import diff_json
from support.paths import PROGRAMS
from support.recordings import recorded_run

from reader import DebugLogdir
from tfdbg_tui.core.compare.contract import RunModel, model_run
from tfdbg_tui.core.compare.graphs import op_table

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]

PROGRAM = PROGRAMS / "hand_optimizer" / "tf1_adam.py"
WEIGHTS = ["w1", "b1", "w2"]  # in the order the forward pass reads them


@pytest.fixture(scope="session")
def adam_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The hand-written and the fused Adam, recorded in FULL_TENSOR once per test run."""
    pytest.importorskip("tensorflow")
    return {form: recorded_run(tmp_path_factory, f"hand-optimizer-adam-{form}", PROGRAM, form,
                               options=("--mode", "FULL_TENSOR"))[0]
            for form in ("hand", "fused")}


def _model(path: str) -> RunModel:
    logdir = DebugLogdir(path)
    logdir.update()
    return model_run(logdir, op_table(logdir))


@pytest.mark.parametrize("form", ["hand", "fused"])
def test_the_weights_are_the_trained_variables(adam_runs: dict[str, str], form: str) -> None:
    model = _model(adam_runs[form])
    assert model.n_steps == 3
    assert sorted(model.names[h] for h in model.training.trained) == sorted(WEIGHTS)
    for flow, _, roles in model.steps:
        assert [model.names[h] for h in roles.variables] == WEIGHTS
        # neither the moments nor the step counter are non-trainable state of the model
        assert roles.state == [] and flow.state == set(), roles.state
        assert sorted(model.names[h] for h in roles.grad) == sorted(WEIGHTS)
        assert sorted(model.names[h] for h in roles.update) == sorted(WEIGHTS)


def test_a_hand_written_adam_is_the_fused_one(adam_runs: dict[str, str]) -> None:
    code, r = diff_json(adam_runs["hand"], adam_runs["fused"], "--rtol", "1e-5",
                        "--atol", "1e-6")
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert len(r["steps"]) == 3
    # the variables as step 0 reads them; every step's gradients; the updates up to the last
    # step's (the fused kernel has no output: its update is the variable the next step reads)
    wanted = [("variable", "gradient", "update"), ("gradient", "update"), ("gradient",)]
    for step, quantities in zip(r["steps"], wanted, strict=True):
        for q in quantities:
            got = step["quantities"][q]
            assert (got["compared"], got["equal"]) == (3, 3), (q, got)
            assert sorted(got["variables"]) == sorted(WEIGHTS), (q, got)
