"""Solving with a triangular factor that has a zero on its diagonal.

A lower-triangular scale matrix is built from raw parameters with relu on the diagonal;
one diagonal entry is 0, so the triangular system is singular and the solve gives ±inf.
"""
# EXPECT origin_op: MatrixTriangularSolve
# EXPECT cause: singular|zero on the diagonal|diagonal
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


raw = np.array([[0.5, 0.0, 0.0], [0.3, -0.2, 0.0], [0.1, 0.4, 0.8]], np.float32)
rhs = np.ones((3, 1), np.float32)


@tf.function
def solve(raw, b):
    diag = tf.nn.relu(tf.linalg.diag_part(raw))
    scale = tf.linalg.set_diag(tf.linalg.band_part(raw, -1, 0), diag)
    return tf.linalg.triangular_solve(scale, b, lower=True)  # FIX


print(solve(raw, rhs).numpy().ravel())
tf.debugging.experimental.disable_dump_debug_info()
