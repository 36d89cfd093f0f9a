"""tf1_twoinput_huber.py as a two-input functional Keras model trained by Model.fit; Huber
with delta 0.5; centered RMSprop with momentum, its velocities set to 1.0 before training
(TF1's mean square starts at 1.0, Keras' at 0.0); each layer's weights copied in with
set_weights.

python tf2_twoinput_fit.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(3333)
feats_a = rng.normal(size=(6, 3)).astype(np.float32)
feats_b = rng.normal(size=(6, 2)).astype(np.float32)
target = rng.normal(0.0, 1.0, size=(6, 1)).astype(np.float32)
init = [rng.normal(0.0, 0.5, size=(3, 4)).astype(np.float32),
        rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32),
        rng.normal(0.0, 0.5, size=(2, 4)).astype(np.float32),
        rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32),
        rng.normal(0.0, 0.5, size=(8, 1)).astype(np.float32),
        np.zeros(1, np.float32)]

in_a = tf.keras.Input(shape=(3,), name="a")
in_b = tf.keras.Input(shape=(2,), name="b")
branch_a = tf.keras.layers.Dense(4, activation="relu", name="branch_a")  # CALL:branch_a
branch_b = tf.keras.layers.Dense(4, activation="tanh", name="branch_b")  # CALL:branch_b
merged = tf.keras.layers.Concatenate(name="concat")([branch_a(in_a), branch_b(in_b)])  # CALL:concat
head = tf.keras.layers.Dense(1, name="head")  # CALL:head
model = tf.keras.Model([in_a, in_b], head(merged))
branch_a.set_weights(init[0:2])  # CALL:restore
branch_b.set_weights(init[2:4])  # CALL:restore
head.set_weights(init[4:6])  # CALL:restore

optimizer = tf.keras.optimizers.RMSprop(learning_rate=0.01, rho=0.9, momentum=0.5, epsilon=1e-6, centered=True)  # CALL:opt
optimizer.build(model.trainable_variables)
for slot in optimizer.variables:
    if "velocity" in slot.path:
        slot.assign(tf.ones(slot.shape))  # CALL:slots
model.compile(optimizer=optimizer, loss=tf.keras.losses.Huber(delta=0.5))  # CALL:loss
history = model.fit([feats_a, feats_b], target, batch_size=6, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("WILD_TRACE"):
    names = ["branch_a/kernel", "branch_a/bias", "branch_b/kernel", "branch_b/bias", "head/kernel", "head/bias"]
    weights = branch_a.get_weights() + branch_b.get_weights() + head.get_weights()
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(names, weights)}}))
