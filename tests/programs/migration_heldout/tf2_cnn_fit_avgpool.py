"""tf1_cnn_adam.py as a Keras Sequential model trained by Model.fit, weights from a .weights.h5.

python tf2_cnn_fit_avgpool.py DATA_DIR     (DATA_DIR holds cnn.weights.h5)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(2024)
images = rng.normal(size=(4, 6, 6, 2)).astype(np.float32)
classes = np.array([1, 0, 2, 1], dtype=np.int32)

model = tf.keras.Sequential([
    tf.keras.Input(shape=(6, 6, 2)),
    tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu", name="conv"),  # CALL:conv
    tf.keras.layers.AveragePooling2D(2, name="pool"),  # BUG:cnn_fit_avgpool
    tf.keras.layers.Flatten(name="flatten"),  # CALL:flatten
    tf.keras.layers.Dense(3, name="fc"),  # CALL:logits
])
model.load_weights(os.path.join(sys.argv[1], "cnn.weights.h5"))  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.Adam(0.01, beta_2=0.99),
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))  # CALL:loss
history = model.fit(images, classes, batch_size=4, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("HELDOUT_TRACE"):
    names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
    print("trace", json.dumps({"loss": history.history["loss"],
                               "weights": {n: w.tolist() for n, w in zip(names, model.get_weights())}}))
