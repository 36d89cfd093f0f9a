"""tf1_cnn_adamw.py as a Keras Sequential model trained by Model.fit (no Dropout layer: the
TF1 run fed keep_prob 1.0, and fit would train with it on); weights from the .weights.h5 of
the earlier run; AdamW on an ExponentialDecay schedule.

python tf2_cnn_staircase_fit.py DATA_DIR     (DATA_DIR/cnn.weights.h5: prepare_data.py)
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
    tf.keras.layers.Flatten(name="flatten"),  # CALL:flatten
    tf.keras.layers.Dense(3, name="fc"),  # CALL:logits
])
model.load_weights(os.path.join(sys.argv[1], "cnn.weights.h5"))  # CALL:restore

schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.01, decay_steps=2, decay_rate=0.5)  # BUG:cnn_staircase_fit
optimizer = tf.keras.optimizers.AdamW(learning_rate=schedule, weight_decay=0.05, epsilon=1e-8)  # CALL:opt
model.compile(optimizer=optimizer, loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))  # CALL:loss
history = model.fit(images, labels, batch_size=4, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("WILD_TRACE"):
    names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
