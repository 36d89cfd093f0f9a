"""A TensorFlow program with one NaN/∞ bug per diagnosis rule, each in a tf.function and eagerly.

Usage: python diag_program.py LOGDIR MODE CASES_JSON

Every case takes its input from a recorded eager op (`tf.constant(data) * 1.0`), so the
diagnosis can see the input's health across the eager → tf.function boundary. The program
writes CASES_JSON describing each case — the input data, the tf.function's name for the graph
variant and the eager output's tensor id for the eager variant — so the tests can compute the
expected counts with numpy and find the tensors to diagnose without trusting the diagnosis.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

tf.get_logger().setLevel("ERROR")  # one tf.function per case: retracing warnings are expected

# name → (python function of the inputs, input arrays); the same body runs both ways
DATA = {
    "log_zero": ([0.0, 1.0, 2.0, 0.0, 0.5],),
    "log_negative": ([-1.0, 2.0, -3.0, 4.0],),
    "sqrt_negative": ([-4.0, 4.0, -1.0, 9.0, 0.0, -0.5],),
    "div_zero": ([1.0, -2.0, 3.0, 0.0], [0.0, 0.0, 1.0, 1.0]),
    "zero_div_zero": ([0.0, 0.0, 1.0], [0.0, 1.0, 1.0]),
    "exp_overflow": ([1.0, 100.0, 200.0, -5.0],),
    "inf_minus_inf": ([100.0, 1.0, 95.0], [200.0, 2.0, 3.0]),
    "zero_times_inf": ([100.0, 1.0, 100.0], [0.0, 3.0, 2.0]),
}


def body(name: str, *xs: tf.Tensor) -> tf.Tensor:
    if name == "log_zero" or name == "log_negative":
        return tf.math.log(xs[0])
    if name == "sqrt_negative":
        return tf.math.sqrt(xs[0])
    if name in ("div_zero", "zero_div_zero"):
        return tf.math.divide(xs[0], xs[1])
    if name == "exp_overflow":
        return tf.math.exp(xs[0])
    if name == "inf_minus_inf":
        return tf.math.exp(xs[0]) - tf.math.exp(xs[1])
    if name == "zero_times_inf":
        return tf.math.exp(xs[0]) * xs[1]
    raise ValueError(name)


def make_function(name: str) -> tf.types.experimental.PolymorphicFunction:
    def f(*xs: tf.Tensor) -> tf.Tensor:
        return body(name, *xs)

    f.__name__ = f"g_{name}"
    return tf.function(f)


@tf.function
def g_upstream(x):
    return tf.math.sqrt(x) * 2.0


@tf.function
def g_downstream(a, w):
    return tf.matmul(a, w)


@tf.function
def g_nested(x, w):
    a = g_upstream(x)
    return tf.matmul(a, w)


def main() -> None:
    logdir, mode, cases_path = sys.argv[1:4]
    tf.debugging.experimental.enable_dump_debug_info(
        logdir, tensor_debug_mode=mode, circular_buffer_size=-1)
    cases = []
    for name, arrays in DATA.items():
        inputs = [tf.constant(np.asarray(a, np.float32)) * 1.0 for a in arrays]
        make_function(name)(*inputs)
        eager_out = body(name, *[tf.constant(np.asarray(a, np.float32)) * 1.0 for a in arrays])
        cases.append({"name": name, "data": [list(a) for a in arrays],
                      "graph": f"g_{name}", "eager_tensor_id": int(eager_out._id)})
    # a NaN made in one tf.function, fed into MatMul in another (called eagerly, and nested)
    x_data = [[-1.0, 4.0], [9.0, -16.0]]
    w_data = [[1.0, 0.0], [0.0, 1.0]]
    x = tf.constant(np.asarray(x_data, np.float32)) * 1.0
    w = tf.constant(np.asarray(w_data, np.float32)) * 1.0
    g_downstream(g_upstream(x), w)
    g_nested(x, w)
    eager_mm = tf.matmul(g_upstream(x), w)
    cases.append({"name": "matmul_upstream", "data": [x_data, w_data], "graph": "g_downstream",
                  "nested_graph": "g_nested", "upstream_graph": "g_upstream",
                  "eager_tensor_id": int(eager_mm._id)})
    tf.debugging.experimental.disable_dump_debug_info()
    with open(cases_path, "w") as f:
        json.dump(cases, f)


if __name__ == "__main__":
    main()
