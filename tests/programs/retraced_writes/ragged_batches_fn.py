"""A tf.function train step fed batches of 8 and of 5 rows in turn (a stream whose batches
are cut where its files end): TensorFlow traces the step once per batch shape, so the two
shapes run two graphs, each with its own read of the weights and its own update op. Step 3's
batch (5 rows) holds an ∞ a broken sensor wrote: its gradient and the update make the
weights NaN/∞; step 4 (8 rows, the other graph) reads them. One bug, entering with step 3's
data; step 4's read was written by the other graph's update.

python ragged_batches_fn.py LOGDIR
"""
import sys

import numpy as np
import tensorflow as tf

STEPS, BAD_STEP = 6, 3


def batches() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.RandomState(7)
    out = []
    for step in range(STEPS):
        n = 8 if step % 2 == 0 else 5
        x = rng.randn(n, 3).astype(np.float32)
        y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
        if step == BAD_STEP:
            x[2, 1] = np.inf  # the broken sensor's reading
        out.append((x, y))
    return out


def main(logdir: str) -> None:
    tf.debugging.experimental.enable_dump_debug_info(
        logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
    w = tf.Variable(tf.zeros([3, 1]))
    opt = tf.keras.optimizers.SGD(0.1)

    @tf.function
    def train_step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        grads = tape.gradient(loss, [w])
        opt.apply_gradients(zip(grads, [w], strict=True))
        return loss

    for step, (x, y) in enumerate(batches()):
        loss = train_step(tf.constant(x), tf.constant(y))  # FIX (the data of step 3)
        print(f"step {step}: loss {float(loss):.4g}")
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main(sys.argv[1])
