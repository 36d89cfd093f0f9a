"""A transform without weights of the last weighted layer's output (a row normalization, a
bound `2·tanh(z)`), computed as a layer in TF1 and elsewhere, otherwise or not at all in the
rewrite (tests/programs/output_transform/, expectations in its EXPECTATIONS.md, proven with
numpy by its verify.py; written before the tool was run). Weighted outputs are compared with
weighted outputs; a transform only with the same transform in the other run, never with the
other run's `z`: so the equivalent pairs have no layer output that differs, and a mistake in
the transform is found at the transform's lines.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from compare.migration_fixtures import diff_json, per_step, recorded
from support.paths import PROGRAMS

HERE = PROGRAMS / "output_transform"
EMBED, K_EMBED = HERE / "tf1_embed.py", HERE / "keras_embed.py"
BOUNDED, K_BOUNDED = HERE / "tf1_bounded.py", HERE / "keras_bounded.py"
RUNS = {"tf1_embed": (EMBED,), "cos_eager": (K_EMBED, "eager", "cos"),
        "norm_eager": (K_EMBED, "eager", "norm"), "unit_fit": (K_EMBED, "fit", "unit"),
        "axis0_eager": (K_EMBED, "eager", "axis0"),
        "tf1_bounded": (BOUNDED,), "step_eager": (K_BOUNDED, "eager", "step"),
        "rescale_fn": (K_BOUNDED, "function", "rescale"),
        "scale_eager": (K_BOUNDED, "eager", "scale")}
A_OF = {"cos_eager": "tf1_embed", "norm_eager": "tf1_embed", "unit_fit": "tf1_embed",
        "axis0_eager": "tf1_embed", "step_eager": "tf1_bounded", "rescale_fn": "tf1_bounded",
        "scale_eager": "tf1_bounded"}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The nine recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "output_transform", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _marked(program: Path, mark: str) -> set[int]:
    """The 1-based lines whose comment carries `mark` among its words (`# CALL:z BUG:x`)."""
    return {n for n, line in enumerate(program.read_text().splitlines(), 1)
            if "#" in line and mark in line.split("#", 1)[1].split()}


def _diff(runs: dict[str, str], b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs[A_OF[b]], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


@pytest.mark.parametrize("b", ["cos_eager", "norm_eager", "unit_fit", "step_eager",
                               "rescale_fn"])
def test_equivalent_transforms_differ_nowhere(runs: dict[str, str], b: str) -> None:
    """Equivalent (numpy): exit 0, nothing different; at every step the hidden layer and z
    (at least) compared and equal, with the loss and the 4 gradients; 4 updates."""
    code, r = _diff(runs, b)
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert r["different"] == 0 and r["divergent_tensors"] == [], r["verdict_text"]
    layers = per_step(r, "layer_output")
    assert sorted(layers) == [0, 1, 2], r["steps"]
    assert all(c >= 2 and d == 0 for c, d in layers.values()), layers
    assert per_step(r, "loss") == {k: (1, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "gradient") == {k: (4, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "update") == {k: (4, 0) for k in range(2)}, r["steps"]


@pytest.mark.parametrize(("b", "a_mark", "b_mark"), [("axis0_eager", "AT:unit", "BUG:axis0"),
                                                     ("scale_eager", "AT:pred", "BUG:scale")])
def test_a_wrong_transform_is_found_at_its_lines(runs: dict[str, str], b: str, a_mark: str,
                                                 b_mark: str) -> None:
    """The mistake in the transform: step 0, layer_output, both transforms' lines."""
    code, r = _diff(runs, b)
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "layer_output"), r["verdict_text"]
    a_prog = EMBED if A_OF[b] == "tf1_embed" else BOUNDED
    b_prog = K_EMBED if A_OF[b] == "tf1_embed" else K_BOUNDED
    a, bf = fd["a"]["user_frame"], fd["b"]["user_frame"]
    assert Path(a["file"]).name == a_prog.name and a["line"] in _marked(a_prog, a_mark), a
    assert Path(bf["file"]).name == b_prog.name, bf
    assert bf["line"] in _marked(b_prog, b_mark), bf
