"""tf1_frozen.py without Keras: a tf.Module holding raw tf.Variables (the feature layer's with
trainable=False), a tf.function train step that takes the gradient of the module's trainable
variables and applies gradient descent by hand (assign_sub), the inverse-time decay computed
from a step counter the step advances after the update.

python tf2_frozen_module_fn.py DATA_DIR     (DATA_DIR/frozen.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "frozen.npz")))


class MultiLabelNet(tf.Module):
    def __init__(self, weights):
        super().__init__()
        self.hidden_kernel = tf.Variable(weights["hidden/kernel"], trainable=False, name="hidden/kernel")  # CALL:frozen
        self.hidden_bias = tf.Variable(weights["hidden/bias"], trainable=False, name="hidden/bias")  # CALL:frozen
        self.out_kernel = tf.Variable(weights["out/kernel"], name="out/kernel")  # CALL:var
        self.out_bias = tf.Variable(weights["out/bias"], name="out/bias")  # CALL:var

    def __call__(self, x):
        hidden = tf.tanh(tf.matmul(x, self.hidden_kernel) + self.hidden_bias)  # CALL:hidden
        return tf.matmul(hidden, self.out_kernel) + self.out_bias  # CALL:logits


net = MultiLabelNet(saved)
step_counter = tf.Variable(0, dtype=tf.int64, trainable=False)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = net(x)  # CALL:forward
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))  # CALL:loss
    variables = net.trainable_variables
    grads = tape.gradient(loss, variables)  # CALL:grads
    learning_rate = 0.5 / (1.0 + 0.5 * tf.cast(step_counter, tf.float32))  # CALL:lr
    for variable, grad in zip(variables, grads):
        variable.assign_sub(learning_rate * grad)  # CALL:update
    step_counter.assign_add(1)
    return loss


losses = []
for step in range(3):
    loss = train_step(saved["x"], saved["y"])
    print("step %d loss %.6f" % (step, float(loss)))
    losses.append(float(loss))
if os.environ.get("BLIND_TRACE"):
    final = [net.hidden_kernel, net.hidden_bias, net.out_kernel, net.out_bias]
    names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {n: v.numpy().tolist() for n, v in zip(names, final)}}))
