"""Writes what the blind programs start from, as a user would have it from an earlier run (run
once, not recorded), so that both sides of every pair start from the same values:

  DATA_DIR/<model>.npz          the batch and the weights of each model (mha, conv1d, frozen,
                                accum, leaky, ftrl), float32, by TF1 variable name
  DATA_DIR/leaky_tf1.ckpt.*     a TF1 (name-based) checkpoint of tf1_leaky_ckpt.py's variables
  DATA_DIR/leaky_tf2-1.*        a TF2 object checkpoint, tf.train.Checkpoint(net=model), of the
                                same weights in the Keras model the TF2 rewrites build

python prepare_data.py DATA_DIR

The arrays come from the functions below (numpy only: verify.py's numpy models read the same
values through blind_data.py without TensorFlow).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

F32 = np.float32


def _f(a: object) -> np.ndarray:
    return np.asarray(a, F32)


def mha_arrays() -> dict[str, np.ndarray]:
    """Two-head self-attention (D=4, 2 heads of 2), a gelu feed-forward of 6, 3 classes."""
    rng = np.random.RandomState(7001)
    out = {"x": _f(rng.normal(size=(4, 3, 4))), "y": np.array([0, 2, 1, 2], np.int32)}
    for name in ("query", "key", "value", "output"):
        out[f"{name}/kernel"] = _f(rng.normal(0.0, 0.5, size=(4, 4)))
        out[f"{name}/bias"] = _f(rng.normal(0.0, 0.1, size=(4,)))
    out["ffn/kernel"] = _f(rng.normal(0.0, 0.6, size=(4, 6)))
    out["ffn/bias"] = _f(rng.normal(0.0, 0.1, size=(6,)))
    out["classifier/kernel"] = _f(rng.normal(0.0, 0.5, size=(6, 3)))
    out["classifier/bias"] = np.zeros(3, F32)
    return out


def conv1d_arrays() -> dict[str, np.ndarray]:
    """Causal dilated Conv1D (3 taps, dilation 2, 4 filters) over 8 steps of 2 features."""
    rng = np.random.RandomState(7002)
    return {"x": _f(rng.normal(size=(6, 8, 2))),
            "y": np.array([0, 1, 2, 1, 0, 2], np.int32),
            "conv/kernel": _f(rng.normal(0.0, 0.4, size=(3, 2, 4))),
            "conv/bias": _f(rng.uniform(-0.1, 0.1, size=(4,))),
            "fc/kernel": _f(rng.normal(0.0, 0.5, size=(4, 3))),
            "fc/bias": _f(rng.uniform(-0.1, 0.1, size=(3,)))}


def frozen_arrays() -> dict[str, np.ndarray]:
    """A frozen tanh layer (5 -> 8) under a trained multi-label head (8 -> 3)."""
    rng = np.random.RandomState(7003)
    return {"x": _f(rng.normal(size=(6, 5))),
            "y": _f(rng.randint(0, 2, size=(6, 3))),
            "hidden/kernel": _f(rng.normal(0.0, 0.5, size=(5, 8))),
            "hidden/bias": _f(rng.uniform(-0.1, 0.1, size=(8,))),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(8, 3))),
            "out/bias": np.zeros(3, F32)}


def accum_arrays() -> dict[str, np.ndarray]:
    """An MLP (4 -> 6 relu -> 3) trained on 8 examples in two micro-batches of 4."""
    rng = np.random.RandomState(7004)
    return {"x": _f(rng.normal(size=(8, 4))),
            "y": np.array([0, 1, 2, 2, 1, 0, 1, 2], np.int32),
            "hidden/kernel": _f(rng.normal(0.0, 0.5, size=(4, 6))),
            "hidden/bias": _f(rng.uniform(-0.1, 0.1, size=(6,))),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(6, 3))),
            "out/bias": np.zeros(3, F32)}


def leaky_arrays() -> dict[str, np.ndarray]:
    """An MLP (5 -> 7 leaky relu -> 4): the batch here, the weights in the checkpoints."""
    rng = np.random.RandomState(7005)
    return {"x": _f(rng.normal(size=(6, 5))),
            "y": np.array([3, 0, 1, 2, 1, 3], np.int32),
            "hidden/kernel": _f(rng.normal(0.0, 0.6, size=(5, 7))),
            "hidden/bias": _f(rng.uniform(-0.3, 0.3, size=(7,))),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(7, 4))),
            "out/bias": _f(rng.uniform(-0.1, 0.1, size=(4,)))}


def ftrl_arrays() -> dict[str, np.ndarray]:
    """A logistic regression over 6 features (the 'wide' model FTRL is used for)."""
    rng = np.random.RandomState(7006)
    return {"x": _f(rng.normal(size=(8, 6))),
            "y": _f(rng.randint(0, 2, size=(8, 1))),
            "linear/kernel": _f(rng.normal(0.0, 0.3, size=(6, 1))),
            "linear/bias": np.zeros(1, F32)}


ARRAYS = {"mha": mha_arrays, "conv1d": conv1d_arrays, "frozen": frozen_arrays,
          "accum": accum_arrays, "leaky": leaky_arrays, "ftrl": ftrl_arrays}
LEAKY_WEIGHTS = ("hidden/kernel", "hidden/bias", "out/kernel", "out/bias")


def _checkpoints(out: str) -> None:
    import tensorflow as tf  # only here: the arrays above are read without TensorFlow

    arrays = leaky_arrays()
    graph = tf.Graph()
    with graph.as_default():
        variables = [tf.compat.v1.get_variable(n, initializer=arrays[n]) for n in LEAKY_WEIGHTS]
        saver = tf.compat.v1.train.Saver(variables)
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            saver.save(sess, os.path.join(out, "leaky_tf1.ckpt"), write_meta_graph=False)
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(5,)),
        tf.keras.layers.Dense(7, activation="leaky_relu", name="hidden"),
        tf.keras.layers.Dense(4, name="out"),
    ])
    model.set_weights([arrays[n] for n in LEAKY_WEIGHTS])
    tf.train.Checkpoint(net=model).save(os.path.join(out, "leaky_tf2"))


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    for name, make in ARRAYS.items():
        arrays: dict[str, Any] = make()
        np.savez(os.path.join(out, f"{name}.npz"), **arrays)
    _checkpoints(out)


if __name__ == "__main__":
    main(sys.argv[1])
