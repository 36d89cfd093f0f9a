"""tf1_cnn_adamw.py as a functional Keras model, the train step in tf.function, the dropout
layer called with training=False; weights from the .weights.h5 of the earlier run; AdamW on
the same staircase schedule, its weight decay taken from the TF1 code's `lr * WD`.

python tf2_cnn_decay_fn.py DATA_DIR     (DATA_DIR/cnn.weights.h5: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(2222)
images = rng.normal(size=(4, 4, 4, 2)).astype(np.float32)
labels = np.array([2, 0, 1, 1], dtype=np.int32)

inputs = tf.keras.Input(shape=(4, 4, 2))
h = tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu", name="conv")(inputs)  # CALL:conv
h = tf.keras.layers.MaxPooling2D(2, name="pool")(h)  # CALL:pool
h = tf.keras.layers.Dropout(0.25, name="dropout")(h)  # CALL:dropout
h = tf.keras.layers.Flatten(name="flatten")(h)  # CALL:flatten
model = tf.keras.Model(inputs, tf.keras.layers.Dense(3, name="fc")(h))  # CALL:logits
model.load_weights(os.path.join(sys.argv[1], "cnn.weights.h5"))  # CALL:restore

schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.01, decay_steps=2, decay_rate=0.5, staircase=True)  # CALL:lr
optimizer = tf.keras.optimizers.AdamW(learning_rate=schedule, weight_decay=0.01 * 0.05, epsilon=1e-8)  # BUG:cnn_decay_fn
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=False)  # CALL:forward
        loss = loss_fn(y, logits)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    loss = train_step(images, labels)
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("WILD_TRACE"):
    names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)}}))
