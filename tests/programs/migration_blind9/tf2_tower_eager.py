"""tf1_tower.py as a two-input Keras functional model, trained eagerly: Dense(4, "tanh") per
tower, Dot(axes=1) for the logit, BinaryCrossentropy(from_logits=True); SGD(0.5). The TF1
weights from the saved arrays, set tower by tower.

python tf2_tower_eager.py DATA_DIR     (DATA_DIR/tower.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "tower.npz")))
user_in = tf.keras.Input(shape=(3,), name="user_features")
item_in = tf.keras.Input(shape=(3,), name="item_features")
user = tf.keras.layers.Dense(4, activation="tanh", name="user")(user_in)  # CALL:user
item = tf.keras.layers.Dense(4, activation="tanh", name="item")(item_in)  # CALL:item
score = tf.keras.layers.Dot(axes=1, name="score")([user, item])  # CALL:score
model = tf.keras.Model([user_in, item_in], score)
for tower in ("user", "item"):
    model.get_layer(tower).set_weights([saved[tower + "/kernel"], saved[tower + "/bias"]])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)  # CALL:opt
bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)  # CALL:lossfn

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        logit = model([saved["xu"], saved["xv"]], training=True)  # CALL:forward CALL:score
        loss = bce(saved["click"], logit)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND9_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        t + s: w.tolist() for t in ("user", "item") for s, w in zip(("/kernel", "/bias"), model.get_layer(t).get_weights())}}))
