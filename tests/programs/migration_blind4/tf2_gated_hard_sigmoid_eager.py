"""tf1_gated.py as a functional Keras model trained eagerly: Dense(6) value, Dense(6,
activation="hard_sigmoid") gate, Multiply, Dense(1) score; SquaredHinge() on the 0/1 labels;
SGD on PolynomialDecay(0.1, 2, 0.01, cycle=True). The TF1 weights set layer by layer.

python tf2_gated_hard_sigmoid_eager.py DATA_DIR     (DATA_DIR/gated.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "gated.npz")))
LAYERS = ["value", "gate", "out"]

inputs = tf.keras.Input(shape=(5,))
value = tf.keras.layers.Dense(6, name="value")(inputs)  # CALL:value
gate = tf.keras.layers.Dense(6, activation="hard_sigmoid", name="gate")(inputs)  # BUG:gated_hard_sigmoid_eager
gated = tf.keras.layers.Multiply()([value, gate])  # CALL:gated
score = tf.keras.layers.Dense(1, name="out")(gated)  # CALL:score
model = tf.keras.Model(inputs, score)
for name in LAYERS:
    model.get_layer(name).set_weights([saved[name + "/kernel"], saved[name + "/bias"]])  # CALL:restore

schedule = tf.keras.optimizers.schedules.PolynomialDecay(0.1, decay_steps=2, end_learning_rate=0.01, power=1.0, cycle=True)  # CALL:lr
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule)  # CALL:opt
loss_fn = tf.keras.losses.SquaredHinge()  # CALL:loss

losses = []
for step in range(4):
    with tf.GradientTape() as tape:
        value_ = loss_fn(saved["y"], model(saved["x"], training=True))  # CALL:loss
    grads = tape.gradient(value_, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(value_))
    losses.append(float(value_))
if os.environ.get("BLIND4_TRACE"):
    weights = {}
    for name in LAYERS:
        kernel, bias = model.get_layer(name).get_weights()
        weights[name + "/kernel"], weights[name + "/bias"] = kernel.tolist(), bias.tolist()
    print("trace", json.dumps({"loss": losses, "weights": weights}))
