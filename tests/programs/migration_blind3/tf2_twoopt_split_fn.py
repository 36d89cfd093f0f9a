"""tf1_twoopt.py in Keras: Dense(5, tanh) encoder, Dense(3) head, KLDivergence on the head's
softmax; Adam (0.01, TF1's epsilon) for the encoder and SGD with momentum 0.9 at 0.1 for the
head, the model's variables split between them; the train step in tf.function. The TF1
weights from the saved arrays.

python tf2_twoopt_split_fn.py DATA_DIR     (DATA_DIR/twoopt.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "twoopt.npz")))
NAMES = ["encoder/kernel", "encoder/bias", "head/kernel", "head/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(5, activation="tanh", name="encoder"),  # CALL:encoder
    tf.keras.layers.Dense(3, name="head"),  # CALL:head
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

encoder_optimizer = tf.keras.optimizers.Adam(learning_rate=0.01, epsilon=1e-8)  # CALL:opt
head_optimizer = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)  # CALL:opt
kl = tf.keras.losses.KLDivergence()  # CALL:loss
ENCODER_VARIABLES = 1  # the encoder is the first layer  # BUG:twoopt_split_fn


@tf.function
def train_step(x, target):
    variables = model.trainable_variables
    with tf.GradientTape() as tape:
        loss = kl(target, tf.nn.softmax(model(x, training=True)))  # CALL:loss
    grads = tape.gradient(loss, variables)  # CALL:grads
    encoder_optimizer.apply_gradients(zip(grads[:ENCODER_VARIABLES], variables[:ENCODER_VARIABLES]))  # CALL:update
    head_optimizer.apply_gradients(zip(grads[ENCODER_VARIABLES:], variables[ENCODER_VARIABLES:]))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND3_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
