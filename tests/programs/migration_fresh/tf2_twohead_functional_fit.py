"""tf1_twohead_adam.py as a Keras functional model with two outputs, trained by Model.fit
with a loss per output and loss_weights.

python tf2_twohead_functional_fit.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(515)
features = rng.normal(size=(6, 5)).astype(np.float32)
classes = np.array([0, 2, 1, 2, 0, 1], dtype=np.int32)
targets = rng.normal(0.0, 0.5, size=(6, 2)).astype(np.float32)
saved = {
    "trunk/kernel": rng.normal(0.0, 0.5, size=(5, 8)), "trunk/bias": rng.normal(0.0, 0.1, size=(8,)),
    "cls/kernel": rng.normal(0.0, 0.5, size=(8, 3)), "cls/bias": np.zeros(3),
    "reg/kernel": rng.normal(0.0, 0.5, size=(8, 2)), "reg/bias": rng.normal(0.0, 0.1, size=(2,)),
}
saved = {k: v.astype(np.float32) for k, v in saved.items()}

inputs = tf.keras.Input(shape=(5,))
h = tf.keras.layers.Dense(8, activation="relu", name="trunk")(inputs)  # CALL:trunk
cls_logits = tf.keras.layers.Dense(3, name="cls")(h)  # CALL:cls
reg_out = tf.keras.layers.Dense(2, name="reg")(h)  # CALL:reg
model = tf.keras.Model(inputs, [cls_logits, reg_out])
for layer in ("trunk", "cls", "reg"):
    model.get_layer(layer).set_weights([saved[layer + "/kernel"], saved[layer + "/bias"]])  # CALL:restore

model.compile(optimizer=tf.keras.optimizers.Adam(0.02, beta_1=0.8, beta_2=0.95, epsilon=1e-6),  # CALL:opt
              loss=[tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),  # CALL:loss_cls
                    tf.keras.losses.MeanSquaredError()],  # CALL:loss_reg
              loss_weights=[1.0, 0.5])
history = model.fit(features, (classes, targets), batch_size=6, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("FRESH_TRACE"):
    final = {}
    for layer in ("trunk", "cls", "reg"):
        kernel, bias = model.get_layer(layer).get_weights()
        final[layer + "/kernel"], final[layer + "/bias"] = kernel.tolist(), bias.tolist()
    print("trace", json.dumps({"loss": history.history["loss"], "weights": final}))
