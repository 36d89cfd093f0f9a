"""A learning rate chosen by `tf.cond` inside a `tf.function` step is compared at every step.

tfdbg never records an `If`'s outputs (nor the `Identity` after it), so the rate the update
consumes has no recorded value of its own; the step model finds it through the branch that
ran (contract/branches.py). tests/programs/conditional/cond_rate.py is recorded twice, its
boundary at step 1 (A) and at step 2 (B). What each run's rate is, from the program:
lr(k) = 0.1 * 2 before the boundary, 0.05 from it on.
"""

from __future__ import annotations

from typing import Any

import pytest
from compare.migration_fixtures import diff_json
from support.paths import PROGRAMS
from support.recordings import recorded_run

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]

PROGRAM = PROGRAMS / "conditional" / "cond_rate.py"
STEPS = 3


def _lr(k: int, boundary: int) -> float:
    return 0.1 * 2.0 if k < boundary else 0.05


@pytest.fixture(scope="session")
def cond_diff(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, Any]]:
    """`diff --json` of the two recordings (boundary 1 against boundary 2)."""
    pytest.importorskip("tensorflow")

    runs = {str(b): recorded_run(tmp_path_factory, f"conditional-rate-{b}", PROGRAM, b,
                                 options=("--mode", "FULL_TENSOR"))[0] for b in (1, 2)}
    return diff_json(runs["1"], runs["2"], "--rtol", "1e-5", "--atol", "1e-6")


def test_the_chosen_rate_is_compared_at_every_step(cond_diff: tuple[int, dict[str, Any]]
                                                   ) -> None:
    code, r = cond_diff
    assert code == 1, r.get("verdict_text")
    steps = r["steps"]
    assert len(steps) == STEPS
    for k, step in enumerate(steps):
        lr = step["quantities"].get("learning_rate")
        assert lr is not None and lr["compared"] == 1, (k, step["quantities"])
        want = abs(_lr(k, 1) - _lr(k, 2))
        assert lr["different"] == (1 if want else 0), (k, lr)
        if want:
            assert lr["max_abs_error"] == pytest.approx(want, rel=1e-6), (k, lr)
