"""tf1_frozen.py without Keras, run eagerly: a tf.Module holding raw tf.Variables (the feature
layer's with trainable=False), a plain Python loop that takes the gradient of the module's
trainable variables and applies gradient descent by hand (assign_sub) at the inverse-time
decay's rate, the step numbered from 1 in the formula.

python tf2_frozen_offbyone_eager.py DATA_DIR     (DATA_DIR/frozen.npz: prepare_data.py)
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
x, y = saved["x"], saved["y"]
losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        logits = net(x)  # CALL:forward
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))  # CALL:loss
    grads = tape.gradient(loss, net.trainable_variables)  # CALL:grads
    learning_rate = 0.5 / (1.0 + 0.5 * (step + 1))  # BUG:frozen_offbyone_eager
    for variable, grad in zip(net.trainable_variables, grads):
        variable.assign_sub(learning_rate * grad)  # CALL:update
    print("step %d lr %.4f loss %.6f" % (step, learning_rate, float(loss)))
    losses.append(float(loss))
if os.environ.get("BLIND_TRACE"):
    final = [net.hidden_kernel, net.hidden_bias, net.out_kernel, net.out_bias]
    names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {n: v.numpy().tolist() for n, v in zip(names, final)}}))
