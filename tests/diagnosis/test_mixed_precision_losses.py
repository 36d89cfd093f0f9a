"""The loss of each training step under Keras mixed precision (`mixed_float16`), against numpy.

tests/programs/mixed_program.py trains a float16 Dense layer with a dynamic
LossScaleOptimizer in three forms (Keras `fit`, an eager GradientTape loop written as the
mixed-precision guide does, the same step in a tf.function); batch BAD's inputs overflow
float16, so the loss of step BAD is +∞ and the optimizer skips that step — the steps after
it are finite again. tests/programs/mixed_reference.py computes every step's loss with
numpy alone; the program's own plain-TensorFlow account (no tfdbg) is checked against it
first, then what `report --json` says of the recorded run.

What this guards: the tape differentiates the *scaled* loss (×2**15), the last scalar before
the gradient — the per-step loss must be the user's loss, not that product; and the skipped
step has no variable update, which must not merge it with the next step (an eager run's steps
end with its updates).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from support.paths import PROGRAMS
from support.recordings import recorded_program
from support.tf_fork import run_program

from tfdbg_tui.commands import report

if str(PROGRAMS) not in sys.path:
    sys.path.insert(0, str(PROGRAMS))
from mixed_reference import SCALE, expected_losses, first_bad_step

pytestmark = pytest.mark.tf

# form → (bad step, steps): a different bad step per form (no fixed number passes them all)
RUNS = {"fit": (3, 6), "eager": (2, 5), "function": (4, 6)}


def _run(args: list[str | Path]) -> None:
    status, output = run_program([PROGRAMS / "mixed_program.py", *args])
    if status != 0:
        pytest.fail(f"mixed_program {args[1]} failed (status {status}):\n{output[-3000:]}")


def mixed_logdir(tmp_path_factory: pytest.TempPathFactory, form: str, mode: str) -> str:
    pytest.importorskip("tensorflow")
    bad, steps = RUNS[form]

    return recorded_program(tmp_path_factory, f"mixed-{form}-{mode.lower()}",
                            PROGRAMS / "mixed_program.py", form, bad, "--steps", steps,
                            "--mode", mode)


def _state(v: float) -> str:
    if math.isnan(v):
        return "nan"
    return ("inf" if v > 0 else "-inf") if math.isinf(v) else "value"


def test_the_construction_in_numpy() -> None:
    """Only the bad batch's step is not finite, and only it is skipped: the run recovers."""
    for bad, n in RUNS.values():
        losses, skipped = expected_losses(n, bad)
        assert first_bad_step(losses) == bad
        assert losses[bad] == math.inf
        assert [k for k, s in enumerate(skipped) if s] == [bad]
        assert all(math.isfinite(v) for k, v in enumerate(losses) if k != bad)


@pytest.mark.parametrize("form", sorted(RUNS))
def test_plain_tensorflow_agrees_with_numpy(tmp_path: Path, form: str) -> None:
    """The program's own account of its losses, without tfdbg, is numpy's."""
    pytest.importorskip("tensorflow")
    bad, n = RUNS[form]
    out = tmp_path / "losses.json"
    _run([tmp_path / "unused", form, str(bad), "--steps", str(n), "--losses", out])
    seen = json.loads(out.read_text())
    want, _ = expected_losses(n, bad)
    assert len(seen) == n
    for got, v in zip(seen, want, strict=True):
        assert got == pytest.approx(v, rel=1e-6) if math.isfinite(v) else got == v


def report_json(logdir: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    report.main([logdir, "--json"])
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("form", sorted(RUNS))
def test_report_gives_each_steps_loss_and_the_first_alerts_step(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        form: str) -> None:
    bad, n = RUNS[form]
    want, _ = expected_losses(n, bad)
    r = report_json(mixed_logdir(tmp_path_factory, form, "FULL_TENSOR"), capsys)
    steps = r["steps"]
    assert steps["count"] == n, steps  # the skipped step is a step of its own
    assert steps["first_alert_step"] == bad
    assert r["first_alerts"][0]["step"] == bad
    per = steps["per_step"]
    assert [p["loss_state"] for p in per] == [_state(v) for v in want], per
    for p, v in zip(per, want, strict=True):
        if math.isfinite(v):
            # the user's loss, not the scaled one the tape differentiates (×2**15)
            assert p["loss"] == pytest.approx(v, rel=1e-6), (p, v, v * float(SCALE))
        else:
            assert p["loss"] == "inf"
    assert all(p["alerts"] == 0 for p in per[:bad]) and per[bad]["alerts"] > 0
    assert "mixed_program.py:" in steps["loss"]["tensor"]  # the user's line that makes it


def test_health_mode_says_which_step_is_not_finite(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """FULL_HEALTH: no values, but the loss' state per step, the skipped step included."""
    bad, n = RUNS["eager"]
    want, _ = expected_losses(n, bad)
    r = report_json(mixed_logdir(tmp_path_factory, "eager", "FULL_HEALTH"), capsys)
    steps = r["steps"]
    assert steps["count"] == n and steps["first_alert_step"] == bad
    assert [p["loss_state"] for p in steps["per_step"]] == [
        "finite" if math.isfinite(v) else _state(v) for v in want]
