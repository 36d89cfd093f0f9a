"""tf1_cnn_adam.py in Keras (Conv2D, MaxPooling2D, Flatten, Dense), trained eagerly.

python tf2_cnn_flatten_eager.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(2024)
images = rng.normal(size=(4, 6, 6, 2)).astype(np.float32)
classes = np.array([1, 0, 2, 1], dtype=np.int32)
conv_k = rng.normal(0.0, 0.35, size=(3, 3, 2, 4)).astype(np.float32)
conv_b = rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32)
fc_k = rng.normal(0.0, 0.25, size=(36, 3)).astype(np.float32)
fc_b = rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32)

conv = tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu")
pool = tf.keras.layers.MaxPooling2D(2)
flatten = tf.keras.layers.Flatten()
fc = tf.keras.layers.Dense(3)
conv.build((None, 6, 6, 2))
conv.set_weights([conv_k, conv_b])  # CALL:restore
fc.build((None, 36))
fc.set_weights([fc_k, fc_b])  # CALL:restore
variables = conv.trainable_variables + fc.trainable_variables

optimizer = tf.keras.optimizers.Adam(learning_rate=0.01, beta_2=0.99)


def forward(x):
    h = conv(x)  # CALL:conv
    h = pool(h)  # CALL:pool
    h = flatten(h)  # CALL:flatten
    return fc(h)  # CALL:logits


losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        logits = forward(images)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(classes, logits))  # CALL:loss
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))  # CALL:update
    print("step %d loss %.6f" % (step, loss))
    losses.append(float(loss))

if os.environ.get("HELDOUT_TRACE"):
    names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
    print("trace", json.dumps({"loss": losses,
                               "weights": {n: v.numpy().tolist() for n, v in zip(names, variables)}}))
