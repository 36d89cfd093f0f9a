"""The data and restored weights each wild program draws, rebuilt in numpy (float32 values as
the programs hold them, widened to float64), and which program draws which. The draws repeat
the programs' (and prepare_data.py's) RandomState calls in their order.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

F32 = np.float32
Arrays = dict[str, np.ndarray]


def f64(a: object) -> np.ndarray:
    """A float32 value as the programs hold it, widened for the computation."""
    return np.asarray(a, F32).astype(np.float64)


def lstm_data() -> tuple[Arrays, Arrays]:
    rng = np.random.RandomState(1111)
    data = {"x": f64(rng.normal(size=(4, 4, 2))), "y": np.array([1, 0, 1, 0])}
    p = {"lstm/kernel": f64(rng.uniform(-0.6, 0.6, size=(2, 12))),
         "lstm/recurrent_kernel": f64(rng.uniform(-0.6, 0.6, size=(3, 12))),
         "lstm/bias": f64(rng.uniform(-0.2, 0.2, size=(12,))),
         "out/kernel": f64(rng.normal(0.0, 0.6, size=(3, 2))), "out/bias": np.zeros(2)}
    return data, p


def cnn_data() -> tuple[Arrays, Arrays]:
    """tf1_cnn_adamw.py's draws (prepare_data.py's cnn.weights.h5 holds the same)."""
    rng = np.random.RandomState(2222)
    data = {"x": f64(rng.normal(size=(4, 4, 4, 2))), "y": np.array([2, 0, 1, 1])}
    p = {"conv/kernel": f64(rng.normal(0.0, 0.4, size=(3, 3, 2, 4))),
         "conv/bias": f64(rng.uniform(-0.1, 0.1, size=(4,))),
         "fc/kernel": f64(rng.normal(0.0, 0.4, size=(16, 3))),
         "fc/bias": f64(rng.uniform(-0.1, 0.1, size=(3,)))}
    return data, p


def twoinput_data() -> tuple[Arrays, Arrays]:
    rng = np.random.RandomState(3333)
    data = {"xa": f64(rng.normal(size=(6, 3))), "xb": f64(rng.normal(size=(6, 2))),
            "t": f64(rng.normal(0.0, 1.0, size=(6, 1)))}
    p = {"branch_a/kernel": f64(rng.normal(0.0, 0.5, size=(3, 4))),
         "branch_a/bias": f64(rng.uniform(-0.1, 0.1, size=(4,))),
         "branch_b/kernel": f64(rng.normal(0.0, 0.5, size=(2, 4))),
         "branch_b/bias": f64(rng.uniform(-0.1, 0.1, size=(4,))),
         "head/kernel": f64(rng.normal(0.0, 0.5, size=(8, 1))), "head/bias": np.zeros(1)}
    return data, p


def sepconv_data() -> tuple[Arrays, Arrays]:
    rng = np.random.RandomState(4444)
    data = {"x": f64(rng.normal(size=(4, 5, 5, 2))), "y": f64([[1.0], [0.0], [0.0], [1.0]])}
    p = {"sep/depthwise_kernel": f64(rng.normal(0.0, 0.5, size=(3, 3, 2, 1))),
         "sep/pointwise_kernel": f64(rng.normal(0.0, 0.5, size=(1, 1, 2, 4))),
         "sep/bias": f64(rng.uniform(-0.1, 0.1, size=(4,))),
         "gn/gamma": f64(rng.uniform(0.8, 1.2, size=(4,))),
         "gn/beta": f64(rng.uniform(-0.1, 0.1, size=(4,))),
         "head/kernel": f64(rng.normal(0.0, 0.7, size=(4, 1))), "head/bias": np.zeros(1)}
    return data, p


def mlp_bn_data() -> tuple[Arrays, Arrays]:
    """Trainable weights and (in data, as "bn/…") the moving statistics of the checkpoint and
    .weights.h5 prepare_data.py writes."""
    rng = np.random.RandomState(5555)
    data = {"x": f64(rng.normal(size=(6, 5))), "t": f64(rng.normal(size=(6, 1)))}
    p = {"hidden/kernel": f64(rng.normal(0.0, 0.5, size=(5, 8))),
         "bn/gamma": f64(rng.uniform(0.7, 1.3, size=(8,))),
         "bn/beta": f64(rng.uniform(-0.2, 0.2, size=(8,)))}
    data["bn/moving_mean"] = f64(rng.uniform(-0.3, 0.3, size=(8,)))
    data["bn/moving_variance"] = f64(rng.uniform(0.5, 1.5, size=(8,)))
    p["out/kernel"] = f64(rng.normal(0.0, 0.5, size=(8, 1)))
    p["out/bias"] = f64(rng.uniform(-0.1, 0.1, size=(1,)))
    return data, p


def mlp_bn_beta_not_restored() -> tuple[Arrays, Arrays]:
    """tf2_mlp_bn_restore_eager.py: bn/beta keeps Keras' zeros initializer."""
    data, p = mlp_bn_data()
    p["bn/beta"] = np.zeros(8)
    return data, p


_BY_STEM: dict[str, Callable[[], tuple[Arrays, Arrays]]] = {
    "lstm": lstm_data, "cnn": cnn_data, "twoinput": twoinput_data, "sepconv": sepconv_data,
    "mlp": mlp_bn_data,
}


def program_data(program: str) -> tuple[Arrays, Arrays]:
    """(data, trainable weights) of `program` (BN moving statistics are in data)."""
    if program == "tf2_mlp_bn_restore_eager.py":
        return mlp_bn_beta_not_restored()
    return _BY_STEM[program[4:-3].split("_")[0]]()
