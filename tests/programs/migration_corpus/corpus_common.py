"""What both sides of every migration-corpus pair share: the data, the weights, the trace.

Each program is `python PROGRAM LOGDIR --variant NAME`. LOGDIR is where tfdbg2 records the run
(FULL_TENSOR, unbounded buffer); `-` records nothing and instead prints one line
`trace JSON`: per training step, the values the numpy proof (verify.py) compares, keyed by the
step contract's quantities — variable (as the step reads them), layer_output, loss (the data
loss), regularization, total_loss, gradient (raw), applied_gradient, learning_rate, variable
after the step (verify.py derives the update from it) and state (batch-norm statistics after
the step). A side prints what it can observe; Keras' `fit` hides the gradients.

The weights are "restored": every pair starts both runs from the same numpy arrays (nonzero
biases, non-trivial batch-norm statistics), as a user restoring a TF1 model's weights would.
Everything is tiny, CPU, three steps on one fixed batch.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

STEPS = 3
SEED = 11
CLIP_NORM = 0.5  # global / per-tensor norm clipping
CLIP_VALUE = 0.05
WEIGHT_DECAY = 1e-3  # TF1's decoupled decay per step (= lr * Keras' weight_decay)


def parse(variants: tuple[str, ...]) -> tuple[str, str]:
    """(logdir, variant) from the command line."""
    p = argparse.ArgumentParser()
    p.add_argument("logdir", help="tfdbg2 dump directory, or '-' to print the trace instead")
    p.add_argument("--variant", required=True, choices=variants)
    a = p.parse_args()
    return a.logdir, a.variant


def start(logdir: str) -> None:
    if logdir != "-":
        import tensorflow as tf

        tf.debugging.experimental.enable_dump_debug_info(
            logdir, tensor_debug_mode="FULL_TENSOR", circular_buffer_size=-1)


def stop(logdir: str) -> None:
    if logdir != "-":
        import tensorflow as tf

        tf.debugging.experimental.disable_dump_debug_info()


def _glorot(rng: np.random.RandomState, fan_in: int, fan_out: int, shape: tuple[int, ...]
            ) -> np.ndarray:
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, shape).astype(np.float32)


def _small(rng: np.random.RandomState, n: int) -> np.ndarray:
    return rng.uniform(-0.2, 0.2, (n,)).astype(np.float32)


def dense_data() -> dict[str, np.ndarray]:
    """A batch of 8 rows of 5 features, 3 classes; a 5-6-3 MLP's restored weights."""
    rng = np.random.RandomState(SEED)
    return {
        "x": rng.normal(0.0, 1.5, (8, 5)).astype(np.float32),
        "y": np.array([0, 1, 2, 0, 1, 2, 1, 0], np.int32),
        "hidden/kernel": _glorot(rng, 5, 6, (5, 6)) * 2,
        "hidden/bias": _small(rng, 6),
        "logits/kernel": _glorot(rng, 6, 3, (6, 3)) * 2,
        "logits/bias": _small(rng, 3),
    }


def conv_data() -> dict[str, np.ndarray]:
    """4 images 6x6x2 (NHWC), 3 classes; conv 3x3x2x4 (VALID) → batch norm → relu →
    flatten (4*4*4) → dense 3. Batch-norm statistics as a trained model has them."""
    rng = np.random.RandomState(SEED + 1)
    return {
        "x": rng.normal(0.0, 1.0, (4, 6, 6, 2)).astype(np.float32),
        "y": np.array([0, 1, 2, 1], np.int32),
        "conv/kernel": _glorot(rng, 18, 36, (3, 3, 2, 4)),
        "conv/bias": _small(rng, 4),
        "bn/gamma": rng.uniform(0.8, 1.2, (4,)).astype(np.float32),
        "bn/beta": _small(rng, 4),
        "bn/moving_mean": rng.normal(0.0, 0.3, (4,)).astype(np.float32),
        "bn/moving_variance": rng.uniform(0.5, 1.5, (4,)).astype(np.float32),
        "logits/kernel": _glorot(rng, 64, 3, (64, 3)),
        "logits/bias": _small(rng, 3),
    }


def rnn_data() -> dict[str, np.ndarray]:
    """4 sequences of 5 token ids (vocabulary 8, id 0 appears: a real token, not padding);
    embedding 8x4 → simple RNN (5 units, tanh, last output) → dense 3."""
    rng = np.random.RandomState(SEED + 2)
    return {
        "x": np.array([[1, 0, 3, 4, 2], [5, 6, 0, 7, 1], [2, 2, 4, 0, 3], [0, 7, 6, 5, 4]],
                      np.int32),
        "y": np.array([2, 0, 1, 2], np.int32),
        "embedding/embeddings": rng.normal(0.0, 0.5, (8, 4)).astype(np.float32),
        "rnn/kernel": _glorot(rng, 4, 5, (4, 5)),
        "rnn/recurrent_kernel": _glorot(rng, 5, 5, (5, 5)),
        "rnn/bias": _small(rng, 5),
        "logits/kernel": _glorot(rng, 5, 3, (5, 3)),
        "logits/bias": _small(rng, 3),
    }


def dense_value(v: Any) -> np.ndarray:
    """A fetched or eager value as a numpy array (IndexedSlices made dense)."""
    if hasattr(v, "indices") and hasattr(v, "values"):
        values = np.asarray(getattr(v.values, "numpy", lambda: v.values)())
        indices = np.asarray(getattr(v.indices, "numpy", lambda: v.indices)())
        shape = tuple(int(s) for s in np.asarray(getattr(v.dense_shape, "numpy",
                                                         lambda: v.dense_shape)()))
        out = np.zeros(shape, values.dtype)
        np.add.at(out, indices, values)
        return out
    if hasattr(v, "numpy"):
        v = v.numpy()
    return np.asarray(v)


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    return np.asarray(dense_value(obj), np.float64).tolist()


def emit(trace: list[dict[str, Any]]) -> None:
    """Print the trace line verify.py reads (float32 values exactly: JSON keeps float64)."""
    print("trace " + json.dumps([_jsonable(step) for step in trace]))
    sys.stdout.flush()


def write_tf1_checkpoint(values: dict[str, np.ndarray], folder: str) -> str:
    """A TF1 Saver checkpoint holding `values` under their names (what an earlier TF1 run
    saved); returns its prefix. Run before the recording starts."""
    import tensorflow as tf

    v1 = tf.compat.v1
    with tf.Graph().as_default() as graph, v1.Session(graph=graph) as sess:
        variables = [v1.get_variable(name, initializer=value) for name, value in values.items()]
        sess.run(v1.global_variables_initializer())
        del variables
        return str(v1.train.Saver().save(sess, os.path.join(folder, "model.ckpt")))
