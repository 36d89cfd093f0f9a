"""State a training step leaves beyond its weights, written by code outside the step's own
ops, compared where each run writes it (issue 29; tfdbg_tui/core/compare/contract/
state_outside.py, state_pairing.py).

Real recordings of programs unlike the third blind corpus's (tests/programs/state/): a TF1
regression keeping an exponential moving average of its weights under a control dependency,
or a teacher copy of its weights (`trainable=False`, pulled towards by the loss) synced by a
`Session.run` of its own after every second step (tf1_state.py), against Keras rewrites
that keep them otherwise (keras_state.py): the average applied by a second `tf.function`
after the step, the averages assigned by hand in an eager loop (`assign` of the new value
where TF1 subtracts), the teacher synced by eager assignments after the steps. Before
state_outside these were not compared at all, or the eager ones one step off (an eager step
ends with its last update, so what runs after it opened the next step's flow).
"""

from __future__ import annotations

from typing import Any

import pytest
from compare.migration_fixtures import diff_json, recorded
from support.paths import PROGRAMS

TF1, KERAS = PROGRAMS / "state" / "tf1_state.py", PROGRAMS / "state" / "keras_state.py"
RUNS = {"tf1_ema": (TF1, "ema"), "tf1_teacher": (TF1, "teacher"),
        "ema_apart_fn": (KERAS, "ema", "function", "apart"),
        "ema_byhand_eager": (KERAS, "ema", "eager", "byhand"),
        "teacher_eager": (KERAS, "teacher", "eager", "ok"),
        "teacher_early_eager": (KERAS, "teacher", "eager", "early"),
        "teacher_fit": (KERAS, "teacher", "fit", "ok")}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The seven recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "state-between-steps", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], a: str, b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs[a], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


def _state(r: dict[str, Any]) -> dict[int, tuple[int, int]]:
    """Per step, (compared, different) of its state quantity."""
    out = {}
    for step in r["steps"]:
        q = step["quantities"].get("state")
        if q is not None:
            out[step["step"]] = (q["compared"], q["different"])
    return out


@pytest.mark.parametrize(("a", "b", "where"), [
    # the average written by another function: compared as each step reads it, and the
    # last step's change (both runs subtract)
    ("tf1_ema", "ema_apart_fn", (0, 1, 2)),
    # assigned whole by hand where TF1 subtracts: as the next step reads it only
    ("tf1_ema", "ema_byhand_eager", (0, 1)),
    # the teacher's copy after step 1, as step 2 reads it (step 0 leaves it as it was)
    ("tf1_teacher", "teacher_eager", (0, 1)),
    # the loss function captures a constant: fit's function is given one input more than
    # its graph has placeholders (before: the trained variables tied to the teacher's)
    ("tf1_teacher", "teacher_fit", (0, 1)),
])
def test_state_written_outside_the_step_is_compared(runs: dict[str, str], a: str, b: str,
                                                    where: tuple[int, ...]) -> None:
    """Equivalent runs: exit 0, and the four averages or copies compared (and equal) after
    each step that writes them or reads them next."""
    code, r = _diff(runs, a, b)
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    state = _state(r)
    for k in where:
        assert state.get(k) == (4, 0), (k, state)


def test_a_copy_synced_a_step_early_diverges_at_that_step(runs: dict[str, str]) -> None:
    """The teacher synced after step 0 in B and after step 1 in A: the copies step 1 reads
    differ — step 0's state, at both programs' assignments, with advice about copies of the
    weights, not batch norm's."""
    code, r = _diff(runs, "tf1_teacher", "teacher_early_eager")
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "state"), r["verdict_text"]
    lines = {side: (fd[side]["user_frame"]["file"].rsplit("/", 1)[-1],
                    fd[side]["user_frame"]["code"]) for side in ("a", "b")}
    # each program's assignment of the copy (TF1's is made where the sync op is built)
    assert lines["a"][0] == "tf1_state.py" and "T[n].assign(W[n])" in lines["a"][1], lines
    assert lines["b"] == ("keras_state.py", "copy.assign(weight)  # the teacher's copy"), lines
    assert "copy of the weights" in fd["hint"] and "UPDATE_OPS" not in fd["hint"], fd["hint"]
