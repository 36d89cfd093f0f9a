"""tf1_grl.py in Keras, trained eagerly: the gradient reversal a Layer whose call uses
tf.custom_gradient (identity forward, -0.3 x the gradient backward); a functional model with
two outputs; BinaryCrossentropy(from_logits=True) on each head, added; SGD(0.1). The TF1
weights from the saved arrays.

python tf2_grl_eager.py DATA_DIR     (DATA_DIR/grl.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "grl.npz")))
NAMES = ["feature/kernel", "feature/bias", "label/kernel", "label/bias", "domain/kernel", "domain/bias"]


class GradientReversal(tf.keras.layers.Layer):
    def __init__(self, scale, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def call(self, x):
        @tf.custom_gradient
        def reverse(x):
            def grad(dy):
                return -self.scale * dy  # CALL:grl
            return tf.identity(x), grad
        return reverse(x)  # CALL:grl


inputs = tf.keras.Input(shape=(5,))
feature = tf.keras.layers.Dense(6, activation="tanh", name="feature")(inputs)  # CALL:feature
label_logit = tf.keras.layers.Dense(1, name="label")(feature)  # CALL:label
domain_logit = tf.keras.layers.Dense(1, name="domain")(GradientReversal(0.3)(feature))  # CALL:domain CALL:grl
model = tf.keras.Model(inputs, [label_logit, domain_logit])
for name in ("feature", "label", "domain"):
    model.get_layer(name).set_weights([saved[name + "/kernel"], saved[name + "/bias"]])  # CALL:restore

bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)  # CALL:loss
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)  # CALL:opt

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        label_out, domain_out = model(saved["x"], training=True)
        loss = bce(saved["y"], label_out) + bce(saved["d"], domain_out)  # CALL:loss
    variables = model.trainable_variables
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND5_TRACE"):
    weights = {}
    for name in ("feature", "label", "domain"):
        kernel, bias = model.get_layer(name).get_weights()
        weights[name + "/kernel"], weights[name + "/bias"] = kernel.tolist(), bias.tolist()
    print("trace", json.dumps({"loss": losses, "weights": weights}))
