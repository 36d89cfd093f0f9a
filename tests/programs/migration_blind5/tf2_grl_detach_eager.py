"""tf1_grl.py in Keras, trained eagerly, the gradient reversal replaced by tf.stop_gradient
on the domain head's input (the domain head still trains; the features no longer get its
reversed gradient); BinaryCrossentropy(from_logits=True) on each head, added; SGD(0.1).
The TF1 weights from the saved arrays.

python tf2_grl_detach_eager.py DATA_DIR     (DATA_DIR/grl.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "grl.npz")))

feature_layer = tf.keras.layers.Dense(6, activation="tanh", name="feature")  # CALL:feature
label_layer = tf.keras.layers.Dense(1, name="label")  # CALL:label
domain_layer = tf.keras.layers.Dense(1, name="domain")  # CALL:domain
layers = (feature_layer, label_layer, domain_layer)
for layer, n_in in zip(layers, (5, 6, 6)):
    layer.build((None, n_in))
    layer.set_weights([saved[layer.name + "/kernel"], saved[layer.name + "/bias"]])  # CALL:restore

bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)  # CALL:loss
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)  # CALL:opt

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        feature = feature_layer(saved["x"])  # CALL:feature
        label_out = label_layer(feature)  # CALL:label
        domain_out = domain_layer(tf.stop_gradient(feature))  # BUG:grl_detach_eager
        loss = bce(saved["y"], label_out) + bce(saved["d"], domain_out)  # CALL:loss
    variables = [v for layer in layers for v in layer.trainable_variables]
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND5_TRACE"):
    weights = {}
    for layer in layers:
        kernel, bias = layer.get_weights()
        weights[layer.name + "/kernel"], weights[layer.name + "/bias"] = kernel.tolist(), bias.tolist()
    print("trace", json.dumps({"loss": losses, "weights": weights}))
