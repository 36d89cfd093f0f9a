"""tf1_grl.py as a functional Keras model with two outputs trained by Model.fit: the
gradient reversal a Layer whose call uses tf.custom_gradient (-0.3 x the gradient);
loss=[BinaryCrossentropy(from_logits=True)] * 2 (the total is their sum); SGD(0.1). The TF1
weights set layer by layer.

python tf2_grl_fit.py DATA_DIR     (DATA_DIR/grl.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "grl.npz")))


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
domain_logit = tf.keras.layers.Dense(1, name="domain")(GradientReversal(0.3, name="grl")(feature))  # CALL:domain CALL:grl
model = tf.keras.Model(inputs, [label_logit, domain_logit])
for name in ("feature", "label", "domain"):
    model.get_layer(name).set_weights([saved[name + "/kernel"], saved[name + "/bias"]])  # CALL:restore

model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.1),  # CALL:opt
              loss=[tf.keras.losses.BinaryCrossentropy(from_logits=True), tf.keras.losses.BinaryCrossentropy(from_logits=True)])  # CALL:loss
history = model.fit(saved["x"], [saved["y"], saved["d"]], batch_size=8, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND5_TRACE"):
    weights = {}
    for name in ("feature", "label", "domain"):
        kernel, bias = model.get_layer(name).get_weights()
        weights[name + "/kernel"], weights[name + "/bias"] = kernel.tolist(), bias.tolist()
    print("trace", json.dumps({"loss": history.history["loss"], "weights": weights}))
