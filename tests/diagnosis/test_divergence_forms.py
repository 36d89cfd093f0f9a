"""One program, one cause: an overflow that the divergence story explains is told the same
whether the training step ran eagerly, as a tf.function, in Keras' fit or in a TF1
Session.run (reader/diagnosis/divergence.py for traced ops, eager_divergence.py for eager
ones). Before, an eager step's Square was a plain forward overflow to fix at the square's own
line, while the same program's tf.function called it a divergence and pointed at the
learning rate.

Two programs, by construction:
- tests/programs/step_program.py (one batch of 1e20, tests/support/step_runs.py): a health
  mode cannot tell one bad batch from weights that grew, so every form must say the same
  (the divergence story, naming the batch too) and point at the line setting the learning
  rate (`SGD(0.01)` / `GradientDescentOptimizer(0.01)`: each form writes it on its own line);
- the zoo's learning-rate divergence (x_learning_rate_divergence.py), recorded as it is and
  with its step run eagerly: the same `# FIX` line either way.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.divergence_run import divergence_logdir
from support.step_runs import step_logdir

pytestmark = pytest.mark.tf

FORMS = ("eager", "function", "fit", "session")


def _first_incident(path: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    from tfdbg_tui.commands import report

    report.main([path, "--json"])
    incident: dict[str, Any] = json.loads(capsys.readouterr().out)["incidents"][0]
    return incident


def test_a_bad_batch_has_one_cause_and_fix_in_every_form(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    got = {}
    for form in FORMS:
        inc = _first_incident(step_logdir(tmp_path_factory, form), capsys)
        origin = inc["origin"]
        assert origin["op_type"] == "Square", (form, origin)
        fix = origin["fix_frame"] or {}
        got[form] = (origin["cause"], "(0.01)" in (fix.get("code") or ""),
                     "one bad batch" in inc["explanation"])
    assert set(got.values()) == {("divergence", True, True)}, got


def test_a_divergence_run_eagerly_is_still_a_divergence(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    compiled = _first_incident(divergence_logdir(tmp_path_factory, "FULL_HEALTH"), capsys)
    eager = _first_incident(divergence_logdir(tmp_path_factory, "FULL_HEALTH", eager=True),
                            capsys)
    assert eager["origin"]["kind"] == "eager"  # else this test proves nothing
    for inc in (compiled, eager):
        origin = inc["origin"]
        assert (origin["op_type"], origin["cause"]) == ("Square", "divergence"), inc
        assert "# FIX" in origin["fix_frame"]["code"], origin["fix_frame"]
        assert "training diverged" in inc["explanation"]
    assert compiled["step"] == eager["step"]  # the same program overflows in the same step


def test_full_tensor_tells_the_bad_batch_from_a_divergence(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """FULL_TENSOR records the weights' values: the bad batch's weights are as they were (0.5
    and a few small updates), the divergence's grew from 0 to ~1e17. Before, FULL_TENSOR
    said 'the training diverged' of the bad batch too, without even the batch's caveat."""
    for form in FORMS:
        inc = _first_incident(step_logdir(tmp_path_factory, form, "FULL_TENSOR"), capsys)
        origin, text = inc["origin"], inc["explanation"]
        assert (origin["op_type"], origin["cause"]) == ("Square", "forward"), (form, text)
        assert "not because the training diverged" in text and "one bad batch" in text, text
    for eager in (False, True):
        inc = _first_incident(divergence_logdir(tmp_path_factory, "FULL_TENSOR", eager),
                              capsys)
        origin, text = inc["origin"], inc["explanation"]
        assert (origin["op_type"], origin["cause"]) == ("Square", "divergence"), (eager, text)
        assert "# FIX" in origin["fix_frame"]["code"] and "largest |weight| 0 " in text, text


def _overflow_fit(tmp_path_factory: pytest.TempPathFactory) -> str:
    """tests/programs/overflow_fit_program.py, its bad batch at step 3 of 6 (0-based)."""

    from support.paths import PROGRAMS
    from support.recordings import recorded_program

    return recorded_program(tmp_path_factory, "overflow-fit",
                            PROGRAMS / "overflow_fit_program.py", 3)


def test_the_backward_sentence_follows_a_full_stop(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """A held-out check of issue 31 read "…or normalise the inputs In the backward pass of
    step 3, its gradient …" (a fit whose bad batch overflowed, health mode): the divergence
    story ended without a stop, and the sentence on the gradient was glued to it."""
    from tfdbg_tui.commands import report

    report.main([_overflow_fit(tmp_path_factory), "--json"])
    incidents = json.loads(capsys.readouterr().out)["incidents"]
    assert [i["step"] for i in incidents] == [3] * len(incidents), incidents
    texts = [i["explanation"] for i in incidents if "In the backward pass" in i["explanation"]]
    assert texts, incidents  # the Square's gradient (a Mul) overflowed too
    for text in texts:
        assert ". In the backward pass of step 3" in text, text
