"""tf1_gnn.py as a Keras Sequential model trained by Model.fit: a custom MessagePassing layer
(the messages gathered along the edges' sources and aggregated into their destinations, the
node's own transform, tanh), Dense(1), loss="mse"; SGD(0.1), the whole graph one batch. The
TF1 weights from the saved arrays, set layer by layer.

python tf2_gnn_mean_fit.py DATA_DIR     (DATA_DIR/gnn.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "gnn.npz")))
NAMES = ["msg/kernel", "self/kernel", "self/bias", "out/kernel", "out/bias"]
n = saved["x"].shape[0]


class MessagePassing(tf.keras.layers.Layer):
    def __init__(self, units, src, dst, num_nodes, **kwargs):
        super().__init__(**kwargs)
        self.units, self.num_nodes = units, num_nodes
        self.src, self.dst = tf.constant(src), tf.constant(dst)

    def build(self, input_shape):
        self.msg_kernel = self.add_weight(name="msg_kernel", shape=(input_shape[-1], self.units))
        self.self_kernel = self.add_weight(name="self_kernel", shape=(input_shape[-1], self.units))
        self.self_bias = self.add_weight(name="self_bias", shape=(self.units,), initializer="zeros")

    def call(self, x):
        messages = tf.gather(tf.matmul(x, self.msg_kernel), self.src)  # CALL:msg
        agg = tf.math.unsorted_segment_mean(messages, self.dst, num_segments=self.num_nodes)  # BUG:gnn_mean_fit
        return tf.tanh(agg + tf.matmul(x, self.self_kernel) + self.self_bias)  # CALL:hidden


model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    MessagePassing(4, saved["src"], saved["dst"], n, name="mp"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="out"),  # CALL:pred
])
model.get_layer("mp").set_weights([saved["msg/kernel"], saved["self/kernel"], saved["self/bias"]])  # CALL:restore
model.get_layer("out").set_weights([saved["out/kernel"], saved["out/bias"]])  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.1), loss="mse")  # CALL:loss CALL:opt
history = model.fit(saved["x"], saved["y"], batch_size=n, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND10_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        name: v.numpy().tolist() for name, v in zip(NAMES, model.trainable_variables)}}))
