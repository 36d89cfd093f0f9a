"""tf1_gated.py as a functional Keras model trained by Model.fit: Dense(6) value, Dense(6)
gate with Keras 2's hard sigmoid written out, Multiply, Dense(1) score; loss="squared_hinge"
on the 0/1 labels; SGD on PolynomialDecay(0.1, 2, 0.01, cycle=True). The TF1 weights set
layer by layer.

python tf2_gated_fit.py DATA_DIR     (DATA_DIR/gated.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "gated.npz")))
LAYERS = ["value", "gate", "out"]


def keras2_hard_sigmoid(z):
    """tf.keras.backend.hard_sigmoid as TF 1.x had it."""
    return tf.clip_by_value(0.2 * z + 0.5, 0.0, 1.0)  # CALL:gate


inputs = tf.keras.Input(shape=(5,))
value = tf.keras.layers.Dense(6, name="value")(inputs)  # CALL:value
gate = tf.keras.layers.Dense(6, activation=keras2_hard_sigmoid, name="gate")(inputs)  # CALL:gate
gated = tf.keras.layers.Multiply()([value, gate])  # CALL:gated
score = tf.keras.layers.Dense(1, name="out")(gated)  # CALL:score
model = tf.keras.Model(inputs, score)
for name in LAYERS:
    model.get_layer(name).set_weights([saved[name + "/kernel"], saved[name + "/bias"]])  # CALL:restore

schedule = tf.keras.optimizers.schedules.PolynomialDecay(0.1, decay_steps=2, end_learning_rate=0.01, power=1.0, cycle=True)  # CALL:lr
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=schedule), loss="squared_hinge")  # CALL:opt CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=8, epochs=4, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND4_TRACE"):
    weights = {}
    for name in LAYERS:
        kernel, bias = model.get_layer(name).get_weights()
        weights[name + "/kernel"], weights[name + "/bias"] = kernel.tolist(), bias.tolist()
    print("trace", json.dumps({"loss": history.history["loss"], "weights": weights}))
