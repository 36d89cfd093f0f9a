"""The data and restored weights each held-out program draws, rebuilt in numpy (float32
values as the programs hold them, widened to float64), and which program draws which.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

F32 = np.float32
Arrays = dict[str, np.ndarray]


def f64(a: object) -> np.ndarray:
    """A float32 value as the programs hold it, widened for the computation."""
    return np.asarray(a, F32).astype(np.float64)


def mlp_nesterov_data() -> tuple[Arrays, Arrays]:
    rng = np.random.RandomState(1234)
    data = {"x": f64(rng.normal(size=(6, 4))), "y": np.array([0, 2, 1, 1, 0, 2])}
    p = {}
    for name, lim, shape in (("fc1/kernel", 0.6, (4, 16)), ("fc1/bias", 0.1, (16,)),
                             ("fc2/kernel", 0.5, (16, 8)), ("fc2/bias", 0.1, (8,)),
                             ("out/kernel", 0.7, (8, 3)), ("out/bias", 0.1, (3,))):
        p[name] = f64(rng.uniform(-lim, lim, size=shape))
    return data, p


def mlp_piecewise_data() -> tuple[Arrays, Arrays]:
    rng = np.random.RandomState(77)
    data = {"x": f64(rng.normal(0.0, 1.2, size=(8, 5))), "y": np.array([2, 0, 1, 2, 1, 0, 0, 2])}
    p = {"hidden/kernel": f64(rng.uniform(-0.8, 0.8, size=(5, 12))), "hidden/bias": np.zeros(12),
         "logits/kernel": f64(rng.uniform(-0.6, 0.6, size=(12, 3))), "logits/bias": np.zeros(3)}
    return data, p


def cnn_data() -> tuple[Arrays, Arrays]:
    rng = np.random.RandomState(2024)
    data = {"x": f64(rng.normal(size=(4, 6, 6, 2))), "y": np.array([1, 0, 2, 1])}
    p = {"conv/kernel": f64(rng.normal(0.0, 0.35, size=(3, 3, 2, 4))),
         "conv/bias": f64(rng.uniform(-0.1, 0.1, size=(4,))),
         "fc/kernel": f64(rng.normal(0.0, 0.25, size=(36, 3))),
         "fc/bias": f64(rng.uniform(-0.1, 0.1, size=(3,)))}
    return data, p


def bn_data() -> tuple[Arrays, Arrays]:
    """Trainable weights and (apart, as "state/…") the moving statistics of tf1_cnn_bn.py,
    in prepare_data.py's order."""
    rng = np.random.RandomState(99)
    data = {"x": f64(rng.normal(size=(6, 5, 5, 1))), "y": np.array([0, 1, 2, 2, 1, 0])}
    p = {"conv/kernel": f64(rng.normal(0.0, 0.5, size=(3, 3, 1, 3))),
         "bn/gamma": f64(rng.uniform(0.6, 1.4, size=(3,))),
         "bn/beta": f64(rng.uniform(-0.3, 0.3, size=(3,)))}
    data["bn/moving_mean"] = f64(rng.uniform(-0.3, 0.3, size=(3,)))
    data["bn/moving_variance"] = f64(rng.uniform(0.5, 2.0, size=(3,)))
    p["dense/kernel"] = f64(rng.normal(0.0, 0.3, size=(27, 3)))
    p["dense/bias"] = f64(rng.uniform(-0.1, 0.1, size=(3,)))
    return data, p


def bninf_data() -> tuple[Arrays, Arrays]:
    r = np.random.RandomState(5)
    data = {"x": f64(r.normal(size=(4, 4, 4, 2))), "y": np.array([2, 1, 0, 1])}
    p = {"conv/kernel": f64(r.normal(0.0, 0.6, size=(2, 2, 2, 3))),
         "conv/bias": f64(r.uniform(-0.2, 0.2, size=(3,))),
         "bn/gamma": f64(r.uniform(0.5, 1.5, size=(3,))),
         "bn/beta": f64(r.uniform(-0.3, 0.3, size=(3,)))}
    data["bn/moving_mean"] = f64(r.uniform(-0.4, 0.4, size=(3,)))
    data["bn/moving_variance"] = f64(r.uniform(0.4, 1.6, size=(3,)))
    p["head/kernel"] = f64(r.normal(0.0, 0.8, size=(3, 3)))
    p["head/bias"] = f64(r.uniform(-0.1, 0.1, size=(3,)))
    return data, p


def embed_data() -> tuple[Arrays, Arrays]:
    s = np.random.RandomState(31)
    tokens = np.array([[15, 5, 22, 26, 18], [14, 13, 2, 16, 1], [17, 27, 7, 12, 4],
                       [23, 6, 20, 9, 11], [29, 19, 21, 0, 8], [28, 3, 25, 24, 10]])
    data = {"x": tokens, "y": np.array([0, 2, 1, 1, 0, 2])}
    p = {"embedding": f64(s.normal(0.0, 0.8, size=(30, 4))),
         "head/kernel": f64(s.normal(0.0, 0.9, size=(4, 3))),
         "head/bias": f64(s.uniform(-0.2, 0.2, size=(3,)))}
    return data, p


def gru_data() -> tuple[Arrays, Arrays]:
    rs = np.random.RandomState(8)
    data = {"x": f64(rs.normal(size=(4, 5, 3))), "y": np.array([1, 0, 0, 1])}
    p = {"gru/kernel": f64(rs.uniform(-0.7, 0.7, size=(3, 12))),
         "gru/recurrent_kernel": f64(rs.uniform(-0.7, 0.7, size=(4, 12))),
         "gru/bias": f64(rs.uniform(-0.2, 0.2, size=(12,))),
         "out/kernel": f64(rs.uniform(-1.0, 1.0, size=(4, 2))), "out/bias": np.zeros(2)}
    return data, p


def attention_data() -> tuple[Arrays, Arrays]:
    rng = np.random.RandomState(404)
    data = {"x": f64(rng.normal(size=(3, 4, 6))), "y": np.array([1, 0, 1])}
    p = {}
    for name, std, shape in (("query/kernel", 0.5, (6, 4)), ("query/bias", 0.1, (4,)),
                             ("key/kernel", 0.5, (6, 4)), ("key/bias", 0.1, (4,)),
                             ("value/kernel", 0.5, (6, 4)), ("value/bias", 0.1, (4,)),
                             ("output/kernel", 0.5, (4, 6)), ("output/bias", 0.1, (6,)),
                             ("classifier/kernel", 0.5, (6, 2))):
        p[name] = f64(rng.normal(0, std, shape))
    p["classifier/bias"] = np.zeros(2)
    return data, p


def resblock_data() -> tuple[Arrays, Arrays]:
    rng = np.random.RandomState(60)
    data = {"x": f64(rng.normal(size=(8, 6))),
            "y": np.eye(3)[[0, 1, 2, 1, 0, 2, 2, 1]]}
    shapes = [("stem/kernel", 0.5, (6, 8)), ("stem/bias", 0.1, (8,)),
              ("block_a/kernel", 0.4, (8, 8)), ("block_a/bias", 0.1, (8,)),
              ("block_b/kernel", 0.4, (8, 8)), ("block_b/bias", 0.1, (8,)),
              ("head/kernel", 0.5, (8, 3)), ("head/bias", 0.1, (3,))]
    return data, {name: f64(rng.normal(0, std, shape)) for name, std, shape in shapes}



_BY_PROGRAM: dict[str, Callable[[], tuple[Arrays, Arrays]]] = {
    "tf1_mlp_nesterov.py": mlp_nesterov_data, "tf2_mlp_nesterov_fn.py": mlp_nesterov_data,
    "tf1_mlp_piecewise.py": mlp_piecewise_data,
    "tf2_mlp_momentum_schedule_eager.py": mlp_piecewise_data,
    "tf1_cnn_adam.py": cnn_data, "tf2_cnn_flatten_eager.py": cnn_data,
    "tf2_cnn_adam_beta2_fn.py": cnn_data, "tf2_cnn_fit.py": cnn_data,
    "tf2_cnn_fit_avgpool.py": cnn_data,
    "tf1_cnn_bn.py": bn_data, "tf2_bn_train_eager.py": bn_data, "tf2_bn_momentum_fn.py": bn_data,
    "tf2_bn_fit_epsilon.py": bn_data,
    "tf1_cnn_bninf.py": bninf_data, "tf2_bninf_fn.py": bninf_data,
    "tf2_bninf_training_eager.py": bninf_data,
    "tf1_embed_rmsprop.py": embed_data, "tf2_embed_fit.py": embed_data,
    "tf2_embed_l2_eager.py": embed_data,
    "tf1_gru_adam.py": gru_data, "tf2_gru_eager.py": gru_data, "tf2_gru_clipnorm_fn.py": gru_data,
    "tf1_attention.py": attention_data, "tf2_attention_fn.py": attention_data,
    "tf2_attention_fit.py": attention_data,
    "tf1_resblock.py": resblock_data, "tf2_resblock_fn.py": resblock_data,
    "tf2_resblock_weight_decay_eager.py": resblock_data,
    "tf2_resblock_label_smoothing_fn.py": resblock_data,
}


def program_data(program: str) -> tuple[Arrays, Arrays]:
    """(data, trainable weights) of `program` (BN moving statistics are in data)."""
    return _BY_PROGRAM[program]()
