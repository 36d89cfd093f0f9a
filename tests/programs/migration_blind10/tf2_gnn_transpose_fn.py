"""tf1_gnn.py in Keras, the train step in tf.function: the adjacency as a tf.SparseTensor
(one entry 1.0 per edge, indexed by the edge list as it is stored: [src, dst]) and
tf.sparse.sparse_dense_matmul for the sum of the messages each node receives; Dense
layers, MeanSquaredError; SGD(0.1). The TF1 weights from the saved arrays.

python tf2_gnn_transpose_fn.py DATA_DIR     (DATA_DIR/gnn.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "gnn.npz")))
NAMES = ["msg/kernel", "self/kernel", "self/bias", "out/kernel", "out/bias"]
n = saved["x"].shape[0]
edges = np.stack([saved["src"], saved["dst"]], axis=1).astype(np.int64)  # BUG:gnn_transpose_fn
adjacency = tf.sparse.reorder(tf.SparseTensor(edges, tf.ones(len(edges)), [n, n]))

msg = tf.keras.layers.Dense(4, use_bias=False, name="msg")  # CALL:msg
self_ = tf.keras.layers.Dense(4, name="self")
out = tf.keras.layers.Dense(1, name="out")  # CALL:pred
for layer, width in ((msg, 3), (self_, 3), (out, 4)):
    layer.build((None, width))
msg.set_weights([saved["msg/kernel"]])  # CALL:restore
self_.set_weights([saved["self/kernel"], saved["self/bias"]])  # CALL:restore
out.set_weights([saved["out/kernel"], saved["out/bias"]])  # CALL:restore
variables = msg.trainable_variables + self_.trainable_variables + out.trainable_variables
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)  # CALL:opt
mse = tf.keras.losses.MeanSquaredError()  # CALL:lossfn


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        agg = tf.sparse.sparse_dense_matmul(adjacency, msg(x))  # CALL:agg
        hidden = tf.tanh(agg + self_(x))  # CALL:hidden
        loss = mse(y, out(hidden))  # CALL:loss
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND10_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        name: v.numpy().tolist() for name, v in zip(NAMES, variables)}}))
