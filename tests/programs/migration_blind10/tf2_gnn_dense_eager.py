"""tf1_gnn.py in Keras, trained eagerly: a subclassed model whose message passing is a dense
adjacency matrix (A[dst, src] = 1 for each edge) times the messages, Dense layers for the
message, self and output transforms, MeanSquaredError; SGD(0.1). The TF1 weights from the
saved arrays, set layer by layer after a first call builds the model.

python tf2_gnn_dense_eager.py DATA_DIR     (DATA_DIR/gnn.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "gnn.npz")))
NAMES = ["msg/kernel", "self/kernel", "self/bias", "out/kernel", "out/bias"]
n = saved["x"].shape[0]
adjacency = np.zeros((n, n), np.float32)
adjacency[saved["dst"], saved["src"]] = 1.0  # row = receiver, column = sender


class GraphRegressor(tf.keras.Model):
    def __init__(self, adjacency):
        super().__init__()
        self.adjacency = tf.constant(adjacency)
        self.msg = tf.keras.layers.Dense(4, use_bias=False, name="msg")  # CALL:msg
        self.self_ = tf.keras.layers.Dense(4, name="self")
        self.out = tf.keras.layers.Dense(1, name="out")  # CALL:pred

    def call(self, x):
        agg = tf.matmul(self.adjacency, self.msg(x))  # CALL:agg
        hidden = tf.tanh(agg + self.self_(x))  # CALL:hidden
        return self.out(hidden)


model = GraphRegressor(adjacency)
model(saved["x"])  # builds the layers
model.msg.set_weights([saved["msg/kernel"]])  # CALL:restore
model.self_.set_weights([saved["self/kernel"], saved["self/bias"]])  # CALL:restore
model.out.set_weights([saved["out/kernel"], saved["out/bias"]])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)  # CALL:opt
mse = tf.keras.losses.MeanSquaredError()  # CALL:lossfn

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = mse(saved["y"], model(saved["x"]))  # CALL:loss CALL:forward
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND10_TRACE"):
    layers = {"msg": model.msg, "self": model.self_, "out": model.out}
    weights = {}
    for name in NAMES:
        layer, part = name.split("/")
        weights[name] = layers[layer].get_weights()[0 if part == "kernel" else 1].tolist()
    print("trace", json.dumps({"loss": losses, "weights": weights}))
