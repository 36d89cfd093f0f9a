"""What a user runs after an eager step's update is that step's (issue 31's open point).

tests/programs/eager_logged_steps.py trains a regression in a plain Python loop (no
tf.function), in the orders users write: the batch gathered, a running centre carried from
the step before, forward and `tape.gradient`, the update (Keras SGD or `assign_sub` by hand),
and the user's logging — a perplexity `tf.exp(loss)`, a metric of it, `tf.reduce_mean(loss)`
— after the update (or before it, or after the next batch was gathered). The numpy proof
(`losses`) says batch BAD's loss is the only one past 88.72, where exp overflows float32:
the run's first ∞ is the perplexity logged in step BAD. Written before the tool ran:
`report --json` says the first alert and its one incident are in step BAD, the incident at
the `tf.exp` line; the k-th iteration's logging and its batch are step k (a step starts
with the next forward pass, not at the end of the update), and the carried centre stays in
the step it feeds.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.paths import PROGRAMS
from support.recordings import recorded_program

pytestmark = pytest.mark.tf

PROGRAM = PROGRAMS / "eager_logged_steps.py"
STEPS, BAD = 6, 3
FORMS = ("keras", "hand_after", "hand_before", "metric", "nan_batch", "prefetch", "lr_decay")
EXP_LINE = {"keras": "ppl = tf.exp(loss)  # the perplexity, logged after",
            "hand_after": "ppl = tf.exp(loss)  # the perplexity, logged after",
            "hand_before": "ppl = tf.exp(loss)  # the perplexity, logged before",
            "metric": "ppl_metric.update_state(tf.exp(loss))",
            "prefetch": "ppl = tf.exp(loss)  # then this step's perplexity",
            "lr_decay": "ppl = tf.exp(loss)  # the perplexity, logged after"}


def _line(text: str) -> int:
    lines = [k + 1 for k, s in enumerate(PROGRAM.read_text().splitlines()) if text in s]
    assert len(lines) == 1, (text, lines)
    return lines[0]


def test_the_numpy_proof() -> None:
    sys.path.insert(0, str(PROGRAMS))
    try:
        import eager_logged_steps as prog
    finally:
        sys.path.remove(str(PROGRAMS))
    assert (prog.STEPS, prog.BAD, prog.FORMS) == (STEPS, BAD, FORMS)
    overflow = float(np.log(np.finfo(np.float32).max))  # 88.72: exp(x) is ∞ past it
    for form in (f for f in FORMS if f != "nan_batch"):
        got = prog.losses(form)
        assert np.isfinite(got).all()
        assert [s for s, v in enumerate(got) if v > overflow] == [BAD]
        assert max(v for s, v in enumerate(got) if s != BAD) < 20 < 1e5 < got[BAD]
        assert np.isinf(np.exp(np.float32(got[BAD]))) and got[BAD] < 3e38  # loss finite
    got = prog.losses("nan_batch")
    assert [s for s, v in enumerate(got) if not np.isfinite(v)] == list(range(BAD, STEPS))
    x, _, _ = prog.make_data("nan_batch")
    bad = [s for s in range(STEPS) if not np.isfinite(x[s * 16:(s + 1) * 16]).all()]
    assert bad == [BAD]  # the later NaNs come of the centre carried from step BAD


def _logdir(tmp_path_factory: pytest.TempPathFactory, form: str) -> str:
    pytest.importorskip("tensorflow")

    return recorded_program(tmp_path_factory, f"eager-logged-{form}", PROGRAM, form)


@pytest.mark.parametrize("form", FORMS)
def test_the_first_alert_and_its_incident_are_in_the_bad_step(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        form: str) -> None:
    from tfdbg_tui.commands import report

    report.main([_logdir(tmp_path_factory, form), "--json"])
    rep: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert rep["steps"]["count"] == STEPS, rep["steps"]
    assert rep["steps"]["first_alert_step"] == BAD, rep["steps"]
    incidents = rep["incidents"]
    got = [(i["origin"]["op_type"], i["origin"]["cause"], i["step"], i["alerts"])
           for i in incidents]
    assert len(incidents) == 1, got
    assert incidents[0]["step"] == BAD, got
    assert incidents[0]["alerts"] == rep["alerts"]["total"] > 0, got
    if form in EXP_LINE:
        origin = incidents[0]["origin"]
        assert origin["op_type"] == "Exp", got
        fix = origin["fix_frame"]
        assert fix is not None and Path(fix["file"]).name == PROGRAM.name, fix
        assert fix["line"] == _line(EXP_LINE[form]), fix


def _steps_of(logdir: Any, steps: Any, op_type: str) -> list[int | None]:
    from reader import EAGER

    at = [i for i in range(len(logdir.executions)) if logdir.op_type_of_execution(i) == op_type]
    return [steps.step_of(EAGER, i) for i in at]


@pytest.mark.parametrize("form", FORMS)
def test_each_iterations_ops_are_its_step(tmp_path_factory: pytest.TempPathFactory,
                                          form: str) -> None:
    """The k-th iteration's batch (two gathers), its logged perplexity (Exp) or loss (the
    third Mean: the centre's, the loss', the logged one) are step k: the logging after the
    update is not the next step's, the last one not outside every step, and the next batch
    and the centre it carries are not pulled back into the step before. A learning rate
    set at the top of an iteration, before its batch, is that iteration's step: it feeds
    only the step's update (counted by where the forward pass begins, it was the step
    before's: a NaN rate said "step k − 1")."""
    from reader import open_logdir
    from reader.diagnosis.steps import training_steps

    logdir = open_logdir(_logdir(tmp_path_factory, form))
    steps = training_steps(logdir)
    assert steps.count == STEPS
    assert _steps_of(logdir, steps, "GatherV2") == [k // 2 for k in range(2 * STEPS)]
    if form in EXP_LINE:
        assert _steps_of(logdir, steps, "Exp") == list(range(STEPS))
    else:
        assert _steps_of(logdir, steps, "Mean") == [k // 3 for k in range(3 * STEPS)]
    if form == "lr_decay":  # each iteration writes the rate, then the iteration count
        got = _steps_of(logdir, steps, "AssignVariableOp")[-2 * STEPS:]
        assert got == [k // 2 for k in range(2 * STEPS)]
    alerts = logdir.alerts()
    at = steps.steps_of(alerts.kind, alerts.index)
    assert len(at) and (at >= 0).all() and int(at.min()) == BAD
