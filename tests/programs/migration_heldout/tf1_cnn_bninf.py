"""conv 2x2 -> fused batch norm in inference (frozen statistics) -> relu -> global average
pool -> dense, Adagrad (TF1, Session). Fine-tuning a pretrained net with its BN frozen.

python tf1_cnn_bninf.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

r = np.random.RandomState(5)
batch = r.normal(size=(4, 4, 4, 2)).astype(np.float32)
target = np.array([2, 1, 0, 1], dtype=np.int32)
pretrained = {
    "conv/kernel": r.normal(0.0, 0.6, size=(2, 2, 2, 3)).astype(np.float32),
    "conv/bias": r.uniform(-0.2, 0.2, size=(3,)).astype(np.float32),
    "bn/gamma": r.uniform(0.5, 1.5, size=(3,)).astype(np.float32),
    "bn/beta": r.uniform(-0.3, 0.3, size=(3,)).astype(np.float32),
    "bn/moving_mean": r.uniform(-0.4, 0.4, size=(3,)).astype(np.float32),
    "bn/moving_variance": r.uniform(0.4, 1.6, size=(3,)).astype(np.float32),
    "head/kernel": r.normal(0.0, 0.8, size=(3, 3)).astype(np.float32),
    "head/bias": r.uniform(-0.1, 0.1, size=(3,)).astype(np.float32),
}


def var(name, trainable=True):
    return tf.compat.v1.get_variable(name, initializer=pretrained[name], trainable=trainable)


x = tf.compat.v1.placeholder(tf.float32, [None, 4, 4, 2])
y = tf.compat.v1.placeholder(tf.int32, [None])
conv_k, conv_b = var("conv/kernel"), var("conv/bias")  # AT:var
gamma, beta = var("bn/gamma"), var("bn/beta")  # AT:var
mean, variance = var("bn/moving_mean", False), var("bn/moving_variance", False)  # AT:var
head_k, head_b = var("head/kernel"), var("head/bias")  # AT:var

h = tf.nn.bias_add(tf.nn.conv2d(x, conv_k, strides=1, padding="SAME"), conv_b)  # AT:conv
h, _, _ = tf.compat.v1.nn.fused_batch_norm(h, gamma, beta, mean=mean, variance=variance, epsilon=1e-3, is_training=False)  # AT:bn
h = tf.nn.relu(h)  # AT:relu
h = tf.reduce_mean(h, axis=[1, 2])  # AT:pool
logits = tf.matmul(h, head_k) + head_b  # AT:logits
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss
train = tf.compat.v1.train.AdagradOptimizer(0.1, initial_accumulator_value=0.1).minimize(loss)  # AT:opt AT:update

sess = tf.compat.v1.Session()
sess.run(tf.compat.v1.global_variables_initializer())
losses = []
for step in range(3):
    _, value = sess.run([train, loss], {x: batch, y: target})
    print(f"step {step} loss {value}")
    losses.append(float(value))
if os.environ.get("HELDOUT_TRACE"):
    names = ["conv/kernel", "conv/bias", "bn/gamma", "bn/beta", "head/kernel", "head/bias"]
    values = sess.run([conv_k, conv_b, gamma, beta, head_k, head_b])
    state = sess.run([mean, variance])
    print("trace", json.dumps({
        "loss": losses, "weights": {n: v.tolist() for n, v in zip(names, values)},
        "state": {"bn/moving_mean": state[0].tolist(), "bn/moving_variance": state[1].tolist()}}))
sess.close()
