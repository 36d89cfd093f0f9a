"""The Alerts pane's diagnosis line reads as one sentence: the notes a diagnosis carries
beside its explanation join it as clauses, and none is said twice.

A held-out check of issue 31 read, on a run that diverged, "…normalise the inputs (health
modes record no magnitudes; FULL_TENSOR shows the growth) the weights grow through
AssignSubVariableOp at train.py:42": the note glued to the explanation without a stop.
"""

from __future__ import annotations

import pytest
from support.divergence_run import divergence_logdir
from support.tui import settle, sync

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp

pytestmark = pytest.mark.tf


@sync
async def test_a_note_joins_the_explanation_as_a_clause(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    app = TfdbgApp(DebugLogdir(divergence_logdir(tmp_path_factory, "FULL_HEALTH")),
                   follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        alerts = app.main.alerts  # type: ignore[union-attr]
        d = alerts.diagnosis
        assert d is not None and d.cause == "divergence" and d.notes
        line = alerts.diagnosis_box.plain
        note = d.notes[0]
        assert f"inputs; {note}." in line, line  # (the explanation ends "…normalise the inputs")
        assert line.count(note) == 1
