"""tf1_distill.py as a Keras Sequential student trained by Model.fit on the teacher's softened
distribution: a loss function T^2 * categorical_crossentropy(soft, logits / T,
from_logits=True); SGD whose rate a LearningRateScheduler callback sets each epoch (one batch
an epoch). The TF1 weights from the saved arrays.

python tf2_distill_fit.py DATA_DIR     (DATA_DIR/distill.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

T = 2.0
RATES = [0.5, 0.3, 0.1]
saved = dict(np.load(os.path.join(sys.argv[1], "distill.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "logits/kernel", "logits/bias"]


def distillation_loss(soft, logits):
    return T * T * tf.keras.losses.categorical_crossentropy(soft, logits / T, from_logits=True)  # CALL:loss


student = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(5, activation="relu", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(3, name="logits"),  # CALL:logits
])
student.set_weights([saved[n] for n in NAMES])  # CALL:restore

soft_targets = tf.nn.softmax(saved["y"] / T).numpy()  # CALL:soft
student.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=RATES[0]), loss=distillation_loss)  # CALL:opt CALL:loss
schedule = tf.keras.callbacks.LearningRateScheduler(lambda epoch: RATES[epoch])  # CALL:lr
history = student.fit(saved["x"], soft_targets, batch_size=6, epochs=3, shuffle=False, verbose=0, callbacks=[schedule])  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND2_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, student.get_weights())}}))
