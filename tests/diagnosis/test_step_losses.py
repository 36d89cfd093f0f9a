"""The loss of each training step, in every form a run trains in, against numpy.

tests/programs/loss_program.py trains the same linear model on the same batches in eager,
Keras-eager, tf.function (which does not return the loss), fit and Session.run forms, one
batch of inputs 1e20 at a chosen step; tests/programs/loss_reference.py computes each step's
loss with numpy alone (finite, then +∞ at the bad step and the one after, then NaN). What
`report --json` and the TUI's strip say is compared with that arithmetic, never with itself.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import pytest
from support.paths import PROGRAMS
from support.recordings import recorded_program
from support.tui import settle, sync

from reader import DebugLogdir
from tfdbg_tui.commands import report
from tfdbg_tui.ui.app import TfdbgApp

if str(PROGRAMS) not in sys.path:
    sys.path.insert(0, str(PROGRAMS))
from loss_reference import expected_losses, first_bad_step

pytestmark = pytest.mark.tf

# form → (bad step, steps): a different bad step per form (no fixed number passes them all)
RUNS = {"eager": (2, 5), "eager_keras": (3, 5), "function": (1, 5), "fit": (5, 8),
        "session": (2, 5), "session_nofetch": (2, 4)}


def loss_logdir(tmp_path_factory: pytest.TempPathFactory, form: str, mode: str) -> str:
    pytest.importorskip("tensorflow")
    bad, steps = RUNS[form]

    return recorded_program(tmp_path_factory, f"losses-{form}-{mode.lower()}",
                            PROGRAMS / "loss_program.py", form, bad, "--steps", steps,
                            "--mode", mode)


def steps_json(logdir: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    report.main([logdir, "--json"])
    out: dict[str, Any] = json.loads(capsys.readouterr().out)["steps"]
    return out


def _state(v: float) -> str:
    if math.isnan(v):
        return "nan"
    return ("inf" if v > 0 else "-inf") if math.isinf(v) else "value"


@pytest.mark.parametrize("form", ["eager", "eager_keras", "function", "fit", "session"])
def test_full_tensor_losses_are_numpys(tmp_path_factory: pytest.TempPathFactory,
                                       capsys: pytest.CaptureFixture[str], form: str) -> None:
    bad, n = RUNS[form]
    want = expected_losses(n, bad)
    assert first_bad_step(want) == bad  # the program's construction, in numpy
    steps = steps_json(loss_logdir(tmp_path_factory, form, "FULL_TENSOR"), capsys)
    assert steps["count"] == n and steps["first_alert_step"] == bad
    per = steps["per_step"]
    assert [p["loss_state"] for p in per] == [_state(v) for v in want]
    for p, v in zip(per, want, strict=True):
        if math.isfinite(v):
            assert p["loss"] == pytest.approx(v, rel=1e-6), (p, v)
        else:
            assert p["loss"] == ("nan" if math.isnan(v) else "inf" if v > 0 else "-inf")
    loss = steps["loss"]
    assert loss["found"] and loss["tensor"] and loss["note"] is None
    assert "loss_program.py:" in loss["tensor"]  # the user's line that computes it


@pytest.mark.parametrize("form", ["eager", "function", "fit", "session"])
def test_health_mode_says_finite_not_a_value(tmp_path_factory: pytest.TempPathFactory,
                                             capsys: pytest.CaptureFixture[str],
                                             form: str) -> None:
    bad, n = RUNS[form]
    want = expected_losses(n, bad)
    steps = steps_json(loss_logdir(tmp_path_factory, form, "FULL_HEALTH"), capsys)
    per = steps["per_step"]
    states = [_state(v) for v in want]
    assert [p["loss_state"] for p in per] == [s if s != "value" else "finite" for s in states]
    assert all(p["loss"] is None for p, s in zip(per, states, strict=True) if s == "value")
    assert "FULL_HEALTH records whether the loss is NaN or ∞, not its value" in (
        steps["loss"]["note"])


def test_a_loss_no_step_computed_is_said_not_made_up(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """Session.run fetching only the training op never runs the loss op: no value exists."""
    logdir = loss_logdir(tmp_path_factory, "session_nofetch", "FULL_TENSOR")
    steps = steps_json(logdir, capsys)
    assert steps["first_alert_step"] == RUNS["session_nofetch"][0]
    assert all(p["loss"] is None and p["loss_state"] == "unknown" for p in steps["per_step"])
    assert steps["loss"]["found"] is None and "never ran" in steps["loss"]["note"]
    report.main([logdir])
    text = capsys.readouterr().out
    assert "\n  loss " not in text  # no loss line in the strip…
    assert "loss: not shown" in text and "Session.run" in text  # …and why


@sync
async def test_tui_strip_shows_the_losses(tmp_path_factory: pytest.TempPathFactory) -> None:
    bad, n = RUNS["eager"]
    want = expected_losses(n, bad)
    logdir = loss_logdir(tmp_path_factory, "eager", "FULL_TENSOR")
    app = TfdbgApp(DebugLogdir(logdir), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        whole = s.alerts.whole_text().plain
        strip = whole.split("per training step\n", 1)[1].splitlines()
        loss_line = next(line for line in strip if line.startswith("loss "))
        cells = loss_line.split()[1:]
        assert len(cells) == n
        for cell, v in zip(cells, want, strict=True):
            if math.isfinite(v):
                assert float(cell) == pytest.approx(v, rel=5e-3)  # shown to 3 digits
            else:
                assert cell == ("NaN" if math.isnan(v) else "+∞")
        assert any(line.startswith("loss: eager Mean (loss_program.py:") for line in strip)
