"""Two towers merged into one logit (tests/programs/two_tower_merge/, expectations in its
EXPECTATIONS.md, proven with numpy by its verify.py; written before the tool was run).
Issue 29's blind9 tower_cos_fn on programs of other kinds: a dot product, a cosine (by hand
in TF1, `Dot(normalize=True)` in Keras), a concatenation and an elementwise product under a
linear head; eager, tf.function and fit. The merge — the model's output — is compared
whatever recipe each run computes it by, each tower's output with the same tower's, and a
mistake in the merge is shown at the merge's lines.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from compare.migration_fixtures import diff_json, divergence_lines, per_step, recorded
from support.paths import PROGRAMS

HERE = PROGRAMS / "two_tower_merge"
A_PROG, B_PROG = HERE / "tf1_tower.py", HERE / "tf2_tower.py"
RUNS = {f"tf1_{m}": (A_PROG, m) for m in ("dot", "cos", "concat", "prod")} | {
    f"{f}_{m}": (B_PROG, f, m) for f, m in (("eager", "dot"), ("function", "cosine"),
                                            ("fit", "cosine"), ("function", "concat"),
                                            ("eager", "swap"), ("fit", "prod"),
                                            ("function", "add"))}
EQUIVALENT = {"dot_eager": ("tf1_dot", "eager_dot"),
              "cos_cosine_fit": ("tf1_cos", "fit_cosine"),
              "concat_fn": ("tf1_concat", "function_concat"),
              "prod_fit": ("tf1_prod", "fit_prod")}
# pair -> (A, B, A's marks, B's marks)
BUGGY = {"dot_cosine_fn": ("tf1_dot", "function_cosine", ("AT:score",), ("BUG:cosine",)),
         "cos_dot_eager": ("tf1_cos", "eager_dot", ("AT:unorm", "AT:vnorm", "AT:score"),
                           ("CALL:score",)),
         "concat_swap_eager": ("tf1_concat", "eager_swap", ("AT:merge", "AT:score"),
                               ("BUG:swap", "CALL:head")),
         "prod_add_fn": ("tf1_prod", "function_add", ("AT:merge", "AT:score"),
                         ("BUG:add", "CALL:head"))}

# pair -> what the tool says instead (strict xfails)
KNOWN_FAILING: dict[str, str] = {}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The eleven recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "two_tower_merge", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _marked(program: Path, *marks: str) -> set[int]:
    """The 1-based lines whose comment carries one of `marks` among its words."""
    return {n for n, line in enumerate(program.read_text().splitlines(), 1)
            if "#" in line and set(marks) & set(line.split("#", 1)[1].split())}


def _diff(runs: dict[str, str], a: str, b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs[a], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


def _params(names: dict[str, Any]) -> list[Any]:
    return [pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_FAILING[n], strict=True))
            if n in KNOWN_FAILING else n for n in names]


@pytest.mark.parametrize("name", _params(EQUIVALENT))
def test_equivalent_merges_are_compared_and_agree(runs: dict[str, str], name: str) -> None:
    """Exit 0, nothing different; at every step both towers and the merge's output (≥ 3
    layer outputs) compared and equal, with the loss; no note speaks of attention."""
    code, r = _diff(runs, *EQUIVALENT[name])
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert r["different"] == 0, r["verdict_text"]
    layers = per_step(r, "layer_output")
    assert sorted(layers) == [0, 1, 2], r["steps"]
    assert all(n >= 3 and d == 0 for n, d in layers.values()), layers
    assert per_step(r, "loss") == {k: (1, 0) for k in range(3)}, r["steps"]
    assert "attention" not in str(r["training"]["notes"]), r["training"]["notes"]


@pytest.mark.parametrize("name", _params(BUGGY))
def test_a_mistaken_merge_diverges_at_the_merge(runs: dict[str, str], name: str) -> None:
    """A layer output at step 0; each side's line the merge's (EXPECTATIONS.md), never a
    tower's (the towers agree)."""
    a, b, marks_a, marks_b = BUGGY[name]
    code, r = _diff(runs, a, b)
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "layer_output"), r["verdict_text"]
    (fa, la), (fb, lb) = divergence_lines(r)
    assert fa == A_PROG.name and la in _marked(A_PROG, *marks_a), (fa, la)
    assert fb == B_PROG.name and lb in _marked(B_PROG, *marks_b), (fb, lb)
    assert "attention" not in str(r["training"]["notes"]), r["training"]["notes"]
