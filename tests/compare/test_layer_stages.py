"""Stages of a model without weights of their own, compared as layer outputs, and the line
of a layer an eager model call ran (issue 29; tfdbg_tui/core/compare/contract/layer_groups.py
`pooling` and its resampling/combiner ops, tfdbg_tui/core/compare/layer_weights.py).

Programs unlike the fourth blind corpus's (tests/programs/stages/: a sequence classifier
pooling its frames by their max, an image regressor downscaling 6×6 to 4×4; stages_data.py
holds their data, weights and numpy models). Expectations written before the tool was run
on them, each claim proven first with numpy (`test_numpy_proof`):

- pool_fit_ok: `reduce_max(h, axis=1)` against `GlobalMaxPooling1D` in `fit` — equivalent,
  and the pooled [8, 5] is compared at every step beside the frames and the logits (3 layer
  outputs); before, a reduction was no layer output and only 2 were;
- pool_avg_eager: `GlobalAveragePooling1D` for the max — the frames agree, the pooled
  vectors do not: step 0, layer_output, A's `reduce_max` line, B's pooling construction
  (before: the logits, one layer late);
- pool_tanh_eager: the per-frame Dense with `activation="tanh"` — step 0, layer_output at
  the frames; B's line the `Dense(5, activation=..., name="frame")` construction, though the
  program constructs `Dense` twice and the eager model call is the op's only user line
  (before: the model call). A first version used `"elu"`: the tool called it equivalent,
  rightly — every series has a positive pre-activation in each feature, so the max never
  reads elu's negative branch and the loss, gradients and updates agree (the numpy proof
  had checked the frames only; it now checks the pooled values and the loss too);
- cnn_eager_ok / cnn_tanh_eager: an eager Sequential CNN (Conv2D relu, MaxPooling2D,
  Flatten, Dense) — equivalent, the conv's output compared beside the pool's; with the
  conv's activation tanh: step 0, layer_output at the conv, B's line its `Conv2D(`
  (before: the pooling's output stood for the conv's, at the MaxPooling2D line);
- shrink_fn_ok: a layer calling `tf.compat.v1.image.resize_bilinear` in a `tf.function` —
  equivalent, the resized [4, 4, 4, 2] compared beside the conv's, the flatten's and the
  output (4 layer outputs; 3 before);
- shrink_fit_resizing: Keras' `Resizing(4, 4)` (half-pixel centers) for TF 1.x's grid in
  `fit` — step 0, layer_output at the resize: A's `resize_bilinear` line, B's `Resizing(`
  line (before: the output layer's).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest
from compare.migration_fixtures import diff_json
from support.paths import PROGRAMS
from support.recordings import recorded_run

STAGES = PROGRAMS / "stages"
sys.path[:0] = [str(STAGES)]
import stages_data as sd  # noqa: E402

TF1, KERAS = STAGES / "tf1_stages.py", STAGES / "keras_stages.py"
RUNS = {"tf1_pool": (TF1, "pool"), "tf1_shrink": (TF1, "shrink"),
        "pool_fit_ok": (KERAS, "pool", "fit", "ok"),
        "pool_avg_eager": (KERAS, "pool", "eager", "avg"),
        "pool_tanh_eager": (KERAS, "pool", "eager", "tanh"),
        "tf1_cnn": (TF1, "cnn"), "cnn_eager_ok": (KERAS, "cnn", "eager", "ok"),
        "cnn_tanh_eager": (KERAS, "cnn", "eager", "tanh"),
        "shrink_fn_ok": (KERAS, "shrink", "function", "ok"),
        "shrink_fit_resizing": (KERAS, "shrink", "fit", "resizing")}
RTOL, ATOL = 1e-5, 1e-6


def _apart(a: np.ndarray, b: np.ndarray) -> float:
    """How far beyond the diff's tolerance two arrays are (> 1: they differ)."""
    return float(np.max(np.abs(a - b) / (ATOL + RTOL * np.abs(b))))


def test_numpy_proof() -> None:
    """Each claim the expectations rest on, with numpy from the programs' own data."""
    x, _, w = sd.pool_data()
    frames, pooled, _ = sd.pool_forward(x, w)
    _, avg, avg_logits = sd.pool_forward(x, w, pooling="mean")
    tanh, tanh_pooled, tanh_logits = sd.pool_forward(x, w, activation="tanh")
    _, _, logits = sd.pool_forward(x, w)
    assert _apart(avg, pooled) > 1e3  # the pooled vectors: max against mean
    assert _apart(tanh, frames) > 1e3  # the frames: tanh against relu
    assert _apart(tanh_pooled, pooled) > 1e3  # ... and what reaches the loss
    y = sd.pool_data()[1]
    assert abs(sd.pool_loss(tanh_logits, y) - sd.pool_loss(logits, y)) > 1e-3
    assert abs(sd.pool_loss(avg_logits, y) - sd.pool_loss(logits, y)) > 1e-3
    x, _, w = sd.cnn_data()
    relu_f, relu_p, relu_out = sd.cnn_forward(x, w)
    tanh_f, tanh_p, tanh_out = sd.cnn_forward(x, w, activation="tanh")
    assert _apart(tanh_f, relu_f) > 1e3 and _apart(tanh_p, relu_p) > 1e3
    assert _apart(tanh_out, relu_out) > 1e2  # ... and what reaches the loss
    x, _, w = sd.shrink_data()
    features, legacy, out = sd.shrink_forward(x, w)
    _, half, half_out = sd.shrink_forward(x, w, half_pixel=True)
    assert _apart(half_out, out) > 1e2  # ... and what reaches the loss
    assert features.shape == (4, 6, 6, 2) and legacy.shape == (4, 4, 4, 2)
    assert _apart(half, legacy) > 1e3  # 6 → 4: source rows 0, 1.5, 3, 4.5 against 0.25, …
    # the grids: TF 1.x samples row i·1.5, the half-pixel grid (i + ½)·1.5 − ½
    one = np.arange(6.0).reshape(1, 6, 1, 1) * np.ones((1, 1, 6, 1))
    assert np.allclose(sd._bilinear(one, 4, False)[0, :, 0, 0], [0, 1.5, 3, 4.5])
    assert np.allclose(sd._bilinear(one, 4, True)[0, :, 0, 0], [0.25, 1.75, 3.25, 4.75])


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The ten recordings (FULL_TENSOR), built once per test run."""
    pytest.importorskip("tensorflow")
    return {name: recorded_run(tmp_path_factory, f"layer-stages-{name}", program, *args,
                               options=("--mode", "FULL_TENSOR"))[0]
            for name, (program, *args) in RUNS.items()}


def _diff(runs: dict[str, str], a: str, b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs[a], runs[b], "--rtol", str(RTOL), "--atol", str(ATOL))


def _layers(r: dict[str, Any]) -> dict[int, tuple[int, int]]:
    """Per step, (compared, different) of its layer outputs."""
    return {s["step"]: (s["quantities"]["layer_output"]["compared"],
                        s["quantities"]["layer_output"]["different"])
            for s in r["steps"] if "layer_output" in s["quantities"]}


@pytest.mark.tf
@pytest.mark.timeout(900)
@pytest.mark.parametrize(("a", "b", "stages"), [("tf1_pool", "pool_fit_ok", 3),
                                                ("tf1_shrink", "shrink_fn_ok", 4)])
def test_a_stage_without_weights_is_compared(runs: dict[str, str], a: str, b: str,
                                             stages: int) -> None:
    """Equivalent runs: exit 0, and at both steps every stage of the model compared and
    equal: the frames, their max and the logits (3); the conv, the resize, the flatten
    and the output (4). (Written first as "at least 3", which the engine before the change
    also met for shrink — its flatten counted — so tightened to every stage.)"""
    code, r = _diff(runs, a, b)
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert _layers(r) == {0: (stages, 0), 1: (stages, 0)}, _layers(r)


@pytest.mark.tf
@pytest.mark.timeout(900)
def test_a_pooled_conv_keeps_its_own_output_in_an_eager_model_call(
        runs: dict[str, str]) -> None:
    """An eager Sequential CNN runs conv and pooling on the model call's one line: the
    conv's output is compared beside the pool's and the output (3 at least; 2 before, the
    pooling standing for the conv), and equal."""
    code, r = _diff(runs, "tf1_cnn", "cnn_eager_ok")
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    got = _layers(r)
    assert sorted(got) == [0, 1] and all(n >= 3 and d == 0 for n, d in got.values()), got


def _line(fd: dict[str, Any], side: str) -> str:
    return str(fd[side]["user_frame"]["code"])


@pytest.mark.tf
@pytest.mark.timeout(900)
@pytest.mark.parametrize(("a", "b", "line_a", "line_b"), [
    ("tf1_pool", "pool_avg_eager", "pooled = tf.reduce_max(",
     "pooled = tf.keras.layers.GlobalAveragePooling1D("),
    ("tf1_pool", "pool_tanh_eager", "frames = tf.nn.relu(",
     "frames = tf.keras.layers.Dense(5, activation=activation"),
    # the conv's activation: shown at the conv, not at the pooling after it
    ("tf1_cnn", "cnn_tanh_eager", "features = tf.nn.relu(",
     'tf.keras.layers.Conv2D(3, 3, padding="same", activation=activation'),
    ("tf1_shrink", "shrink_fit_resizing", "small = tf.compat.v1.image.resize_bilinear(",
     "resize = tf.keras.layers.Resizing(4, 4"),
])
def test_the_first_differing_stage_is_shown(runs: dict[str, str], a: str, b: str,
                                            line_a: str, line_b: str) -> None:
    """Step 0's layer output where the runs part, at the line computing it in A and the
    line constructing the layer in B."""
    code, r = _diff(runs, a, b)
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "layer_output"), r["verdict_text"]
    assert _line(fd, "a").startswith(line_a), _line(fd, "a")
    assert _line(fd, "b").startswith(line_b), _line(fd, "b")
