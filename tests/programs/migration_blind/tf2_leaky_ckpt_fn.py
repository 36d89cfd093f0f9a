"""tf1_leaky_ckpt.py in Keras: a Sequential model (Dense(7, activation="leaky_relu") with an
L1(1e-2) activity regularizer, Dense(4)) restored from the TF2 object checkpoint an earlier run
wrote (tf.train.Checkpoint(net=model)); the loss plus model.losses; SGD(0.2); the train step
in tf.function.

python tf2_leaky_ckpt_fn.py DATA_DIR     (DATA_DIR/leaky_tf2-1 and leaky.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

data = np.load(os.path.join(sys.argv[1], "leaky.npz"))

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5,)),
    tf.keras.layers.Dense(7, activation="leaky_relu", activity_regularizer=tf.keras.regularizers.L1(1e-2), name="hidden"),  # CALL:hidden CALL:reg CALL:build
    tf.keras.layers.Dense(4, name="out"),  # CALL:logits CALL:build
])
checkpoint = tf.train.Checkpoint(net=model)  # CALL:restore
checkpoint.restore(os.path.join(sys.argv[1], "leaky_tf2-1")).assert_existing_objects_matched()  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.2)  # CALL:opt
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)  # CALL:forward
        loss = loss_fn(y, logits) + tf.add_n(model.losses)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    loss = train_step(data["x"], data["y"])
    print("step %d loss %.6f" % (step, float(loss)))
    losses.append(float(loss))
if os.environ.get("BLIND_TRACE"):
    names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
