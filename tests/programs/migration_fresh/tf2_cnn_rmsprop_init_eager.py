"""tf1_cnn_rmsprop.py as a Keras Sequential model trained eagerly by a hand-written loop that
clips the gradients by value itself, as the TF1 program did; weights from the .weights.h5.

python tf2_cnn_rmsprop_init_eager.py DATA_DIR     (DATA_DIR/cnn.weights.h5: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(919)
images = rng.normal(size=(4, 4, 4, 2)).astype(np.float32)
labels = np.array([0, 2, 1, 0], dtype=np.int32)

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4, 4, 2)),
    tf.keras.layers.Conv2D(3, 3, padding="same", activation="relu", name="conv"),  # CALL:conv
    tf.keras.layers.MaxPooling2D(2, name="pool"),  # CALL:pool
    tf.keras.layers.Flatten(name="flatten"),  # CALL:flatten
    tf.keras.layers.Dense(3, name="fc"),  # CALL:logits
])
model.load_weights(os.path.join(sys.argv[1], "cnn.weights.h5"))  # CALL:restore

optimizer = tf.keras.optimizers.RMSprop(learning_rate=0.01, rho=0.9, epsilon=1e-6)  # BUG:cnn_rmsprop_init_eager
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        logits = model(images)  # CALL:forward
        loss = loss_fn(labels, logits)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    grads = [tf.clip_by_value(g, -0.05, 0.05) for g in grads]  # CALL:clip
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("FRESH_TRACE"):
    names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)}}))
