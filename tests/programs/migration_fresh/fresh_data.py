"""The data and restored weights each fresh program draws, rebuilt in numpy (float32 values
as the programs hold them, widened to float64), and which program draws which. The draws
repeat the programs' (and prepare_data.py's) RandomState calls in their order.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

F32 = np.float32
Arrays = dict[str, np.ndarray]


def f64(a: object) -> np.ndarray:
    """A float32 value as the programs hold it, widened for the computation."""
    return np.asarray(a, F32).astype(np.float64)


def twohead_data() -> tuple[Arrays, Arrays]:
    rng = np.random.RandomState(515)
    data = {"x": f64(rng.normal(size=(6, 5))), "y": np.array([0, 2, 1, 2, 0, 1]),
            "target": f64(rng.normal(0.0, 0.5, size=(6, 2)))}
    p = {"trunk/kernel": f64(rng.normal(0.0, 0.5, size=(5, 8))),
         "trunk/bias": f64(rng.normal(0.0, 0.1, size=(8,))),
         "cls/kernel": f64(rng.normal(0.0, 0.5, size=(8, 3))), "cls/bias": np.zeros(3),
         "reg/kernel": f64(rng.normal(0.0, 0.5, size=(8, 2))),
         "reg/bias": f64(rng.normal(0.0, 0.1, size=(2,)))}
    return data, p


def conv1d_data() -> tuple[Arrays, Arrays]:
    rng = np.random.RandomState(616)
    data = {"x": f64(rng.normal(size=(4, 6, 3))), "y": np.array([1, 0, 0, 1])}
    p = {"conv/kernel": f64(rng.normal(0.0, 0.5, size=(3, 3, 4))),
         "conv/bias": f64(rng.normal(0.0, 0.1, size=(4,))),
         "ln/gamma": f64(rng.uniform(0.8, 1.2, size=(4,))),
         "ln/beta": f64(rng.normal(0.0, 0.1, size=(4,))),
         "out/kernel": f64(rng.normal(0.0, 0.4, size=(24, 2))), "out/bias": np.zeros(2)}
    return data, p


def depthwise_data() -> tuple[Arrays, Arrays]:
    """Trainable weights and (in data, as "bn/…") the moving statistics of the TF1 checkpoint
    prepare_data.py writes."""
    rng = np.random.RandomState(717)
    data = {"x": f64(rng.normal(size=(4, 5, 5, 2))), "y": np.array([2, 0, 1, 1])}
    p = {"dw/depthwise_kernel": f64(rng.normal(0.0, 0.4, size=(3, 3, 2, 2))),
         "bn/gamma": f64(rng.uniform(0.7, 1.3, size=(4,))),
         "bn/beta": f64(rng.uniform(-0.2, 0.2, size=(4,)))}
    data["bn/moving_mean"] = f64(rng.uniform(-0.2, 0.2, size=(4,)))
    data["bn/moving_variance"] = f64(rng.uniform(0.6, 1.5, size=(4,)))
    p["head/kernel"] = f64(rng.normal(0.0, 0.6, size=(4, 3)))
    p["head/bias"] = f64(rng.uniform(-0.1, 0.1, size=(3,)))
    return data, p


def mlp_data() -> tuple[Arrays, Arrays]:
    rng = np.random.RandomState(818)
    data = {"x": f64(rng.normal(size=(6, 6))), "y": np.eye(4)[[3, 0, 1, 2, 3, 1]],
            "w": f64([1.0, 0.5, 2.0, 1.0, 1.5, 0.5])}
    p = {"hidden/kernel": f64(rng.normal(0.0, 0.4, size=(6, 10))),
         "hidden/bias": f64(rng.normal(0.0, 0.1, size=(10,))),
         "out/kernel": f64(rng.normal(0.0, 0.4, size=(10, 4))),
         "out/bias": f64(rng.normal(0.0, 0.1, size=(4,)))}
    return data, p


def cnn_data() -> tuple[Arrays, Arrays]:
    rng = np.random.RandomState(919)
    data = {"x": f64(rng.normal(size=(4, 4, 4, 2))), "y": np.array([0, 2, 1, 0])}
    p = {"conv/kernel": f64(rng.normal(0.0, 0.4, size=(3, 3, 2, 3))),
         "conv/bias": f64(rng.uniform(-0.1, 0.1, size=(3,))),
         "fc/kernel": f64(rng.normal(0.0, 0.4, size=(12, 3))),
         "fc/bias": f64(rng.uniform(-0.1, 0.1, size=(3,)))}
    return data, p


def cnn_bias_not_restored() -> tuple[Arrays, Arrays]:
    """tf2_cnn_restore_bias_fn.py: the conv bias keeps Keras' zeros initializer."""
    data, p = cnn_data()
    p["conv/bias"] = np.zeros(3)
    return data, p


_BY_PROGRAM: dict[str, Callable[[], tuple[Arrays, Arrays]]] = {
    "tf1_twohead_adam.py": twohead_data, "tf2_twohead_functional_fit.py": twohead_data,
    "tf2_twohead_eager.py": twohead_data, "tf2_twohead_beta1_eager.py": twohead_data,
    "tf2_twohead_sum_reduction_fn.py": twohead_data,
    "tf1_conv1d_layernorm.py": conv1d_data, "tf2_conv1d_seq_fit.py": conv1d_data,
    "tf2_conv1d_clip_forgotten_eager.py": conv1d_data,
    "tf2_conv1d_lr_subclass_fn.py": conv1d_data, "tf2_conv1d_ln_epsilon_fn.py": conv1d_data,
    "tf1_depthwise_bn.py": depthwise_data, "tf1_depthwise_bn_no_update_ops.py": depthwise_data,
    "tf2_depthwise_fn.py": depthwise_data, "tf2_depthwise_eager.py": depthwise_data,
    "tf2_depthwise_accumulator_fn.py": depthwise_data,
    "tf2_depthwise_bn_momentum_eager.py": depthwise_data,
    "tf2_depthwise_piecewise_fit.py": depthwise_data,
    "tf1_mlp_smooth.py": mlp_data, "tf2_mlp_l2_eager.py": mlp_data,
    "tf2_mlp_train_step_fit.py": mlp_data, "tf2_mlp_penalty_forgotten_fit.py": mlp_data,
    "tf2_mlp_sample_weight_forgotten_fn.py": mlp_data,
    "tf1_cnn_rmsprop.py": cnn_data, "tf2_cnn_rmsprop_fit.py": cnn_data,
    "tf2_cnn_rmsprop_init_eager.py": cnn_data, "tf2_cnn_restore_bias_fn.py": cnn_bias_not_restored,
}


def program_data(program: str) -> tuple[Arrays, Arrays]:
    """(data, trainable weights) of `program` (BN moving statistics are in data)."""
    return _BY_PROGRAM[program]()
