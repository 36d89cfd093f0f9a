"""Tutorial structure, NaN in the backward pass: an RMSE loss as its own tf.function.

A linear regression written as a tf.Module whose __call__ is a @tf.function, and a separate
@tf.function `rmse` loss, both called eagerly under tf.GradientTape. The batch's targets are
all zero and the model starts at zero, so the prediction is exact: mse = 0, sqrt(0) = 0 is
fine in the forward pass, but the derivative of sqrt at 0 is 1/0 and the gradient goes NaN.
"""
# EXPECT origin_op: SqrtGrad|__inference___backward_rmse_*
# EXPECT forward_op: Sqrt
# EXPECT cause: sqrt, zero|at 0|= 0
# EXPECT kind: gradient

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


class Linear(tf.Module):
    def __init__(self, n_in):
        super().__init__()
        self.w = tf.Variable(tf.zeros([n_in, 1]))
        self.b = tf.Variable(tf.zeros([1]))

    @tf.function
    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


@tf.function
def rmse(y_true, y_pred):
    return tf.sqrt(tf.reduce_mean(tf.square(y_true - y_pred)))  # FIX


rng = np.random.RandomState(1)
x = rng.rand(32, 5).astype("float32")
y = np.zeros((32, 1), dtype="float32")  # this batch: nothing to predict

model = Linear(5)
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)
for step in range(3):
    with tf.GradientTape() as tape:
        loss = rmse(y, model(x))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    print("step", step, "loss", float(loss))

tf.debugging.experimental.disable_dump_debug_info()
