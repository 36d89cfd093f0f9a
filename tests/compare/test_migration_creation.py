"""A schedule's or an optimizer's mistake: both its creating and its applying line are shown
(issue 18). fit_momentum builds `keras.optimizers.SGD(..., momentum=0.9)` on the line marked
`# MIGRATION-BUG: momentum` and applies it inside `model.fit(...)`: the user changes the first,
and sees where it runs from the second.
"""

from __future__ import annotations

import pytest
from compare.migration_fixtures import (
    KERAS,
    MIGRATION,
    TF1,
    diff_json,
    frame_line,
    marked_line,
    migration_runs,
    run_diff,
)

pytestmark = pytest.mark.tf
__all__ = ["migration_runs"]  # the session fixture, used by name

TOL = ("--atol", "1e-6", "--rtol", "1e-5")


def _line_of(program: str, text: str) -> int:
    (line,) = [n for n, code in enumerate((MIGRATION / program).read_text().splitlines(), 1)
               if text in code]
    return line


def test_the_optimizer_line_is_created_at_and_the_fit_line_applied_at(
        migration_runs: dict[str, str]) -> None:
    fit_line = _line_of(KERAS, "model.fit(")
    bug_line = marked_line(KERAS, "BUG", "momentum")
    _, r = diff_json(migration_runs["tf1"], migration_runs["fit_momentum"], *TOL)
    b = r["first_divergence"]["b"]
    assert frame_line(b, KERAS) == bug_line
    assert b.get("created_by") == "SGD"
    applied = b.get("applied_at") or {}
    assert str(applied.get("file")).endswith(KERAS) and applied.get("line") == fit_line
    code, out, err = run_diff(migration_runs["tf1"], migration_runs["fit_momentum"], *TOL)
    assert code == 1 and "Traceback" not in err
    assert f"SGD created at {MIGRATION / KERAS}:{bug_line}" in out, out
    assert f"applied at {MIGRATION / KERAS}:{fit_line}" in out, out
    # A's TF1 line creates and applies its optimizer at once: no "applied at" on A's side
    a_part = out.split("  B  ", 1)[0]
    assert f"{TF1}:" in a_part and "applied at" not in a_part.split("First divergence", 1)[1]
