"""What a first divergence's hint says of the quantities before it rests on what was compared
(tfdbg_tui/core/compare/standing.py): "gradients and learning rate agree and the update does
not" only where both were compared and agree; a gradient that was not (not recorded, no
partner) is said not compared — unknown, never agreed.

Real recordings of tests/programs/claims/: A is tf1_conv.py (a convolution trained by TF1's
`MomentumOptimizer`), B is tf2_conv_eager.py with a Keras weight decay on the kernel (its
update differs from step 0, the bias's does not). A is recorded once whole and once with
`--op-regex '(?!Conv2DBackpropFilter)'`: every op but the kernel's gradient, so that
gradient is not compared while the learning rate and the bias's gradient are.
"""

from __future__ import annotations

from typing import Any

import pytest
from compare.migration_fixtures import diff_json
from support.paths import PROGRAMS
from support.recordings import recorded_run

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]

TF1, TF2 = PROGRAMS / "claims" / "tf1_conv.py", PROGRAMS / "claims" / "tf2_conv_eager.py"
RUNS: dict[str, tuple[Any, ...]] = {  # name → (flags, program, *arguments)
        "tf1": ([], TF1, "0.9"),
        "tf1_no_filter_grad": (["--op-regex", "(?!Conv2DBackpropFilter)"], TF1, "0.9"),
        "tf2_decay": ([], TF2, "0.9", "0.05")}


@pytest.fixture(scope="session")
def claim_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The three recordings (FULL_TENSOR), built once per test run."""
    pytest.importorskip("tensorflow")
    return {name: recorded_run(tmp_path_factory, f"hint-claims-{name}", program, *args,
                               options=("--mode", "FULL_TENSOR", *flags))[0]
            for name, (flags, program, *args) in RUNS.items()}


def _first(runs: dict[str, str], a: str, b: str) -> tuple[dict[str, Any], dict[str, Any]]:
    code, r = diff_json(runs[a], runs[b], "--rtol", "1e-5", "--atol", "1e-6")
    first = r["first_divergence"]
    assert code == 1 and first is not None, r["verdict_text"]
    # the decay is on the kernel only: its update at step 0 is the first divergence
    assert (first["step"], first["quantity"]) == (0, "update"), r["verdict_text"]
    assert first["what"] == "kernel after step 0's update", first["what"]
    return first, r["steps"][0]["quantities"]


def test_a_gradient_not_recorded_is_never_said_to_agree(claim_runs: dict[str, str]) -> None:
    first, step0 = _first(claim_runs, "tf1_no_filter_grad", "tf2_decay")
    # the premise: the kernel's gradient was not compared, the bias's and the rates were
    # (one per variable: Keras reads its rate once for each variable's update)
    assert step0["gradient"]["variables"] == ["bias"], step0["gradient"]
    lr = step0["learning_rate"]
    assert (lr["compared"], lr["equal"], lr["variables"]) == (2, 2, ["bias", "kernel"]), lr
    hint = first["hint"]
    assert "gradients and learning rate agree" not in hint, hint  # the claim made before
    assert "the gradient of kernel was not compared (not found in A)" in hint, hint
    assert hint.startswith("the learning rate agrees and its update does not"), hint
    assert "If what was not compared agrees, the optimizer's other hyperparameters" in hint


def test_what_was_compared_is_said_to_agree(claim_runs: dict[str, str]) -> None:
    first, step0 = _first(claim_runs, "tf1", "tf2_decay")
    assert step0["gradient"]["variables"] == ["bias", "kernel"], step0["gradient"]
    hint = first["hint"]
    assert hint.startswith("the gradient of kernel and the learning rate agree and its "
                           "update does not"), hint
    # what eager Keras applied is behind an Identity tfdbg does not record: unknown
    assert "what the optimizer applied to kernel was not compared (not found in B)" in hint
