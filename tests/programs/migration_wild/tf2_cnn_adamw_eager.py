"""tf1_cnn_adamw.py as a Keras Sequential model (Conv2D same, MaxPooling2D, Dropout, Flatten,
Dense) called with training=False in an eager GradientTape loop; the weights from the
.weights.h5 of the earlier run (load_weights); AdamW on ExponentialDecay(staircase=True):
Keras decays each variable by lr * weight_decay before the Adam step, as the TF1 program did.

python tf2_cnn_adamw_eager.py DATA_DIR     (DATA_DIR/cnn.weights.h5: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(2222)
images = rng.normal(size=(4, 4, 4, 2)).astype(np.float32)
labels = np.array([2, 0, 1, 1], dtype=np.int32)

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4, 4, 2)),
    tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu", name="conv"),  # CALL:conv
    tf.keras.layers.MaxPooling2D(2, name="pool"),  # CALL:pool
    tf.keras.layers.Dropout(0.25, name="dropout"),  # CALL:dropout
    tf.keras.layers.Flatten(name="flatten"),  # CALL:flatten
    tf.keras.layers.Dense(3, name="fc"),  # CALL:logits
])
model.load_weights(os.path.join(sys.argv[1], "cnn.weights.h5"))  # CALL:restore

schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.01, decay_steps=2, decay_rate=0.5, staircase=True)  # CALL:lr
optimizer = tf.keras.optimizers.AdamW(learning_rate=schedule, weight_decay=0.05, epsilon=1e-8)  # CALL:opt
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        logits = model(images, training=False)  # CALL:forward
        loss = loss_fn(labels, logits)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("WILD_TRACE"):
    names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)}}))
