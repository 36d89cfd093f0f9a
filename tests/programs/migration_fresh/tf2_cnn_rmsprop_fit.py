"""tf1_cnn_rmsprop.py as a Keras functional model trained by Model.fit, weights from a
.weights.h5 (load_weights); clipping by value done by the optimizer (clipvalue). TF1's
RMSProp starts its mean square at 1.0 and Keras' at 0.0: the optimizer is built before fit
and its velocities set to 1.0.

python tf2_cnn_rmsprop_fit.py DATA_DIR     (DATA_DIR/cnn.weights.h5: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(919)
images = rng.normal(size=(4, 4, 4, 2)).astype(np.float32)
labels = np.array([0, 2, 1, 0], dtype=np.int32)

inputs = tf.keras.Input(shape=(4, 4, 2))
h = tf.keras.layers.Conv2D(3, 3, padding="same", activation="relu", name="conv")(inputs)  # CALL:conv
h = tf.keras.layers.MaxPooling2D(2, name="pool")(h)  # CALL:pool
h = tf.keras.layers.Flatten(name="flatten")(h)  # CALL:flatten
model = tf.keras.Model(inputs, tf.keras.layers.Dense(3, name="fc")(h))  # CALL:logits
model.load_weights(os.path.join(sys.argv[1], "cnn.weights.h5"))  # CALL:restore

optimizer = tf.keras.optimizers.RMSprop(learning_rate=0.01, rho=0.9, epsilon=1e-6, clipvalue=0.05)  # CALL:opt
optimizer.build(model.trainable_variables)
for slot in optimizer.variables:
    if "velocity" in slot.path:
        slot.assign(tf.ones(slot.shape))  # CALL:slots
model.compile(optimizer=optimizer, loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))  # CALL:loss
history = model.fit(images, labels, batch_size=4, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("FRESH_TRACE"):
    names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
