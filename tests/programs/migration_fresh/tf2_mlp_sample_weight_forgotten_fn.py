"""tf1_mlp_smooth.py as a Keras functional model, the train step in tf.function: L2 kernel
regularizers, Dropout (off: training=False), label smoothing; momentum SGD.

python tf2_mlp_sample_weight_forgotten_fn.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(818)
inputs = rng.normal(size=(6, 6)).astype(np.float32)
onehot = np.eye(4, dtype=np.float32)[[3, 0, 1, 2, 3, 1]]
example_weights = np.array([1.0, 0.5, 2.0, 1.0, 1.5, 0.5], dtype=np.float32)
saved = [rng.normal(0.0, 0.4, size=(6, 10)), rng.normal(0.0, 0.1, size=(10,)),
         rng.normal(0.0, 0.4, size=(10, 4)), rng.normal(0.0, 0.1, size=(4,))]
saved = [a.astype(np.float32) for a in saved]

l2 = tf.keras.regularizers.l2(5e-4)
x_in = tf.keras.Input(shape=(6,))
h = tf.keras.layers.Dense(10, activation="relu", kernel_regularizer=l2)(x_in)  # CALL:hidden
h = tf.keras.layers.Dropout(0.3)(h)  # CALL:dropout
logits = tf.keras.layers.Dense(4, kernel_regularizer=l2)(h)  # CALL:logits
model = tf.keras.Model(x_in, logits)
model.set_weights(saved)  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)
loss_fn = tf.keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)


@tf.function
def train_step(x, y, sample_weight):
    with tf.GradientTape() as tape:
        logits = model(x, training=False)  # CALL:forward
        data_loss = loss_fn(y, logits)  # CALL:loss BUG:mlp_sample_weight_forgotten_fn
        total_loss = data_loss + tf.add_n(model.losses)  # CALL:reg
    grads = tape.gradient(total_loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return total_loss


losses = []
for step in range(3):
    loss = train_step(inputs, onehot, example_weights)
    print("step %d loss %.7f" % (step, float(loss)))
    losses.append(float(loss))
if os.environ.get("FRESH_TRACE"):
    names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)}}))
