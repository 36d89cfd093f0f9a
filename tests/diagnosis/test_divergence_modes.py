"""Training that diverges, recorded in FULL_TENSOR: the diagnosis does not say the values
are missing.

The divergence story (reader/diagnosis/divergence.py) ended with "health modes record no
magnitudes; FULL_TENSOR shows the growth" — true of a FULL_HEALTH run, and wrong of a
FULL_TENSOR one, which has every magnitude (a held-out check of issue 31 read it on a Keras
regression recorded with `tfdbg-tui run --mode FULL_TENSOR`). The zoo's learning-rate
program is recorded in both modes here.
"""

from __future__ import annotations

import pytest
from support.divergence_run import divergence_logdir

from reader import open_logdir
from reader.diagnosis import diagnose

pytestmark = pytest.mark.tf


@pytest.mark.parametrize("mode", ["FULL_HEALTH", "FULL_TENSOR"])
def test_the_divergence_says_magnitudes_are_missing_only_when_they_are(
        tmp_path_factory: pytest.TempPathFactory, mode: str) -> None:
    L = open_logdir(divergence_logdir(tmp_path_factory, mode))
    alerts = L.alerts()
    d = diagnose(L, int(alerts.kind[0]), int(alerts.index[0]), int(alerts.slot[0]))
    assert d.cause == "divergence", d.explanation  # else this test proves nothing
    assert "training diverged" in d.explanation
    missing = "health modes record no magnitudes"
    assert (missing in d.explanation) == (mode != "FULL_TENSOR"), d.explanation
