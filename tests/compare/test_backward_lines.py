"""Where a gradient that differs is shown when the forward pass agrees
(tests/programs/ste_backward/: straight-through estimators, expectations in its
EXPECTATIONS.md, proven with numpy by its verify.py).

Every backward op carries the `tape.gradient` line; when the loss agrees and a gradient does
not, the line that explains it is where the backward computation departs: a custom
gradient function's body (ops run inside the tape's call, on a line of their own), or the
forward op whose gradient is cut (a `stop_gradient` on a tensor computed from the weight).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from compare.migration_fixtures import diff_json, lines_marked, recorded
from support.paths import PROGRAMS

HERE = PROGRAMS / "ste_backward"
TF1 = HERE / "tf1_ste.py"
RUNS = {"tf1": (TF1,), "fn": (HERE / "tf2_ste_fn.py",),
        "paren": (HERE / "tf2_ste_paren_fn.py",),
        "clipped": (HERE / "tf2_ste_clipped_eager.py",)}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The four recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "ste_backward", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs["tf1"], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


def test_the_guides_estimator_is_equivalent(runs: dict[str, str]) -> None:
    """`h + stop_gradient(round(2h)/2 - h)` is TF1's override (numpy): exit 0, nothing
    different, every gradient compared."""
    code, r = _diff(runs, "fn")
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert r["different"] == 0, r["verdict_text"]
    grads = {s["step"]: s["quantities"]["gradient"]["compared"] for s in r["steps"]}
    assert grads == {0: 4, 1: 4, 2: 4}, r["steps"]


@pytest.mark.parametrize("b", ["paren", "clipped"])
def test_a_gradient_is_shown_where_the_backward_pass_departs(runs: dict[str, str],
                                                              b: str) -> None:
    """Step 0's gradient of the hidden layer differs while the loss agrees: A's line is its
    minimize (or the overridden rounding), B's the line marked BUG — the stop_gradient whose
    input is the hidden layer ('paren'), the custom gradient's body ('clipped') — never the
    `tape.gradient` call."""
    code, r = _diff(runs, b)
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "gradient"), r["verdict_text"]
    assert fd["what"] in ("gradient of w1", "gradient of b1"), fd["what"]
    a, bf = fd["a"]["user_frame"], fd["b"]["user_frame"]
    assert Path(a["file"]).name == TF1.name, a
    assert a["line"] in lines_marked(TF1, "AT:grads") | lines_marked(TF1, "AT:ste"), a
    program = RUNS[b][0]
    assert Path(bf["file"]).name == program.name, bf
    assert bf["line"] in lines_marked(program, f"BUG:{b}"), (bf, fd["b"])
