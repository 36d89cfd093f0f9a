"""Training steps on runs whose first NaN/∞ is in a step known by construction.

tests/programs/step_program.py feeds one bad batch (inputs of 1e20: the squared error
overflows) at a chosen step; every step before it is clean. Whatever form the training took
(eager train_step, tf.function, Keras fit, TF1 Session.run), the first alert must be in that
step, the step count must be the number of batches fed, and no alert may come before it.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from support.step_runs import RUNS, step_logdir

from reader import open_logdir
from reader.diagnosis.step_model import FIT, FORM_NAMES, alerts_per_step
from reader.diagnosis.steps import training_steps
from reader.index.schema import EAGER

FORMS = {"eager": "eager", "function": "function", "fit": FIT, "session": "session_run"}


@pytest.mark.parametrize("form", sorted(RUNS))
def test_first_alert_is_in_the_bad_step(tmp_path_factory: pytest.TempPathFactory,
                                        form: str) -> None:
    bad, n = RUNS[form]
    logdir = open_logdir(step_logdir(tmp_path_factory, form))
    steps = training_steps(logdir)
    assert steps.form == FORMS[form]
    assert steps.count == n
    alerts = logdir.alerts()
    assert len(alerts)
    first = steps.step_of(int(alerts.kind[0]), int(alerts.index[0]))
    assert first == bad
    per_step = alerts_per_step(steps, np.asarray(alerts.kind), np.asarray(alerts.index))
    assert per_step[:bad].sum() == 0  # the steps before the bad batch are clean
    assert (per_step[bad:] > 0).all()  # the weights are NaN from there on
    assert steps.describe(first).startswith(f"step {bad} of {n} (")
    assert FORM_NAMES[steps.form]


def test_fit_says_epoch_and_batch(tmp_path_factory: pytest.TempPathFactory) -> None:
    bad, _ = RUNS["fit"]
    steps = training_steps(open_logdir(step_logdir(tmp_path_factory, "fit")))
    assert steps.epoch_starts == (0, 4)  # step_program: 4 batches an epoch
    assert steps.epoch_batch(bad) == (bad // 4, bad % 4)
    assert steps.form_of(bad) == f"fit epoch {bad // 4}, batch {bad % 4}"


def test_fit_counts_what_keras_runs_after_a_call_in_that_step(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """After each call Keras takes the step's logs out of their Optional (OptionalGetValue:
    the step's loss, ∞ at the bad step) and reads its metrics, eagerly. They are that step's:
    the bad step's loss was counted as the next step's first alert, and what followed the last
    call was outside every step."""
    bad, n = RUNS["fit"]
    logdir = open_logdir(step_logdir(tmp_path_factory, "fit"))
    steps = training_steps(logdir)
    assert steps.calls is not None
    alerts = logdir.alerts()
    got = [(int(i), steps.step_of(EAGER, int(i))) for k, i in zip(alerts.kind, alerts.index,
                                                                  strict=True)
           if int(k) == EAGER and logdir.op_type_of_execution(int(i)) == "OptionalGetValue"]
    assert got, "the logs of the bad step are an alert (else this test proves nothing)"
    for i, step in got:
        assert step == int(np.searchsorted(steps.calls, i, "right")) - 1  # the call before
    assert got[0][1] == bad
    assert steps.step_of(EAGER, len(logdir.executions) - 1) == n - 1
    per_step = alerts_per_step(steps, np.asarray(alerts.kind), np.asarray(alerts.index))
    assert per_step.sum() == len(alerts)  # none outside the steps


def test_a_run_without_training_has_no_steps(make_tf_logdir) -> None:  # type: ignore[no-untyped-def]
    steps = training_steps(open_logdir(make_tf_logdir("eager")))
    assert steps.form is None and steps.count == 0
    assert steps.step_of(1, 0) is None
    assert steps.to_json(None)["step"] is None


def test_no_steps_hold_no_per_row_memory(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A run without training steps (200,000 graph traces of a graph with no gradient)
    gets its "-1 everywhere" without an array per row: training_steps allocates less than
    a byte a trace, and every alert is outside the steps."""
    import tracemalloc

    from dumper.writer import LogdirWriter

    n = 200_000
    with LogdirWriter(tmp_path, run_id="r", hostname="h") as w:
        w.add_graph("g", "forward")
        w.add_op("g", "Log", "log", [])
        v = np.zeros((n, 11))
        v[:, 2], v[:, 3], v[:, 4], v[:, 10] = 1, 1, 8, 8
        v[::2, 5], v[::2, 10] = 1, 7  # every other one NaN
        w.add_graph_traces("g", "log", 0, "FULL_HEALTH", v,
                           wall_times=1000.0 + np.arange(n) * 1e-3)
    logdir = open_logdir(str(tmp_path))
    alerts = logdir.alerts()
    assert len(logdir.traces) == n and len(alerts) == n // 2
    tracemalloc.start()
    try:
        steps = training_steps(logdir)
        held = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert steps.form is None and held < n
    out = steps.steps_of(np.asarray(alerts.kind), np.asarray(alerts.index))
    assert out.shape == (n // 2,) and (out == -1).all()
    assert steps.step_of(0, n - 1) is None


def test_a_long_eager_run_is_said_too_long_without_an_op_type_per_execution(
        tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """An eager run with updates and more executions than are read for its steps gets the
    note, found through the kinds: no op type looked up per execution (a long run's 2.5M
    executions held ~50 MB of temporaries for it)."""
    import tracemalloc

    from dumper.writer import LogdirWriter
    from reader.diagnosis import steps as steps_module

    n = 30_000
    with LogdirWriter(tmp_path, run_id="r", hostname="h") as w:
        for i in range(n):
            w.add_execution("AssignSubVariableOp" if i % 10 == 9 else "AddV2", "NO_TENSOR",
                            input_tensor_ids=[1, 2], wall_time=1000.0 + i)
    logdir = open_logdir(str(tmp_path))
    assert len(logdir.executions) == n
    monkeypatch.setattr(steps_module, "MAX_EAGER", 20_000)
    tracemalloc.start()
    try:
        steps = training_steps(logdir)
        held = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert steps.form is None and steps.count == 0
    assert steps.notes == (f"{n:,} eager executions: too many to find training steps in "
                           "(at most 20,000 are read)",)
    assert held < 6 * n  # 4 bytes an execution (the kinds matched), not ~25 (op types)


def test_incidents_read_the_alert_index_a_block_at_a_time(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Grouping alerts into incidents looks their index column up a block at a time (made
    per alert when asked: 44 MB for 5.55M alerts, and its temporaries), with the same
    counts: every alert counted, each op type's."""
    from dumper.writer import LogdirWriter
    from reader import Alerts
    from reader.diagnosis import incident_picks
    from reader.diagnosis import incidents as incidents_module
    from reader.diagnosis.incidents import find_incidents
    from reader.index.kinds import LazyColumn

    n = 40_000
    with LogdirWriter(tmp_path, run_id="r", hostname="h") as w:
        w.add_graph("g", "forward")
        w.add_op("g", "Log", "log", [])
        w.add_op("g", "Sqrt", "sqrt", [])
        for op in ("log", "sqrt"):
            v = np.zeros((n // 2, 11))
            v[:, 2], v[:, 3], v[:, 4], v[:, 10] = 1, 1, 8, 8
            v[::2, 5], v[::2, 10] = 1, 7  # every other one NaN
            w.add_graph_traces("g", op, 0, "FULL_HEALTH", v,
                               wall_times=1000.0 + np.arange(n // 2) * 1e-3)
    logdir = open_logdir(str(tmp_path))
    alerts = logdir.alerts()
    assert len(alerts) == n // 2
    asked: list[int] = []

    def fetch(rows: np.ndarray) -> np.ndarray:
        asked.append(len(rows))
        return np.asarray(alerts.index[rows])

    watched = Alerts(alerts.kind, LazyColumn(len(alerts), np.dtype(np.int64), fetch),
                     alerts.slot, alerts.wall_time, alerts.graph_kinds)
    monkeypatch.setattr(incidents_module, "BLOCK", 4096)
    monkeypatch.setattr(incident_picks, "BLOCK", 4096)
    found = find_incidents(logdir, training_steps(logdir), alerts=watched)
    assert asked and max(asked) <= 4096
    assert sum(i.alerts for i in found.items) == n // 2
    assert sum((i.op_types for i in found.items), start=Counter()) == Counter(
        {"Log": n // 4, "Sqrt": n // 4})
