"""A real TensorFlow program that dumps tensors of every kind in FULL_TENSOR mode.

Usage: python values_program.py LOGDIR [--big N]

One run writes many tensors: the inputs of one tf.function become graph traces of its
Placeholders (op names = argument names), so each input array below is dumped exactly once,
byte for byte, and the tests can recompute every statistic with numpy from `make_inputs()`.
A few eager ops add eager executions with FULL_TENSOR outputs.

TensorFlow is imported inside `main()` so the tests can import `make_inputs` cheaply.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

SEED = 1234
BIG = 10_000_000
# Strings that must never reach the terminal raw: an escape sequence, Rich markup, a newline.
STRINGS = [b"plain", b"\x1b[31mred\x1b[0m", b"[bold red]markup[/]", b"two\nlines", b"caf\xc3\xa9",
           b"\xff\xfe"]


def make_inputs(big: int = BIG) -> dict[str, np.ndarray]:
    """The seeded arrays the program feeds to its tf.function, by argument name."""
    rng = np.random.default_rng(SEED)
    floats = rng.normal(size=(6, 7)).astype(np.float32) * 3
    floats[1, 2] = np.nan
    floats[3, 0] = np.inf
    floats[4, 5] = -np.inf
    floats[0, 6] = 0.0
    rank4 = rng.uniform(-1, 1, size=(2, 3, 4, 5)).astype(np.float32)
    rank4[1, 2, 3, 4] = np.nan
    out = {
        "floats": floats,
        "ints": rng.integers(-50, 50, size=(5, 4)).astype(np.int32),
        "int64s": rng.integers(-(2**40), 2**40, size=(30,)).astype(np.int64),
        "bools": rng.random(size=(3, 8)) > 0.5,
        "rank4": rank4,
        "halfs": rng.normal(size=(4, 4)).astype(np.float16),
        "big": rng.standard_normal(size=(big,), dtype=np.float32),
    }
    out["big"][big // 2 + 7] = np.nan
    return out


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    p = argparse.ArgumentParser()
    p.add_argument("logdir")
    p.add_argument("--big", type=int, default=BIG)
    args = p.parse_args()
    inputs = make_inputs(args.big)
    tensors = {k: tf.constant(v) for k, v in inputs.items()}  # before dumping starts
    strings = tf.constant(STRINGS)
    tf.debugging.experimental.enable_dump_debug_info(
        args.logdir, tensor_debug_mode="FULL_TENSOR", circular_buffer_size=-1)

    @tf.function(autograph=False)
    def f(inputs):
        # Neither Placeholders nor Identity ops are traced; a Reshape to the same shape is,
        # so each input array is dumped exactly once, under its own name.
        named = {k: tf.reshape(v, v.shape, name=k) for k, v in inputs.items()}
        bf = tf.cast(named["floats"], tf.bfloat16, name="bf16")
        return (tf.reduce_max(named["big"]), tf.strings.length(named["strings"]),
                tf.reduce_any(named["bools"]), tf.reduce_sum(named["ints"]),
                tf.reduce_sum(named["int64s"]), tf.reduce_mean(named["rank4"]),
                tf.reduce_mean(named["halfs"]), tf.reduce_sum(bf))

    f({**tensors, "strings": strings})
    # eager ops: FULL_TENSOR outputs in .execution
    tf.math.log(tf.constant([1.0, 0.0, 2.0]))
    tf.math.sqrt(tf.constant([[4.0, -1.0], [9.0, 16.0]]))
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
