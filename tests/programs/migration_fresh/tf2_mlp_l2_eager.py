"""tf1_mlp_smooth.py as a subclassed Keras model trained eagerly by a hand-written loop: an L2
kernel_regularizer on both Dense layers (l2(5e-4) = 1e-3 * tf.nn.l2_loss), Dropout called
with training=False, label smoothing and sample weights given to the loss object.

python tf2_mlp_l2_eager.py [DATA_DIR]     (DATA_DIR unused)
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


class SmoothMLP(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(10, activation="relu", kernel_regularizer=tf.keras.regularizers.l2(5e-4))
        self.dropout = tf.keras.layers.Dropout(0.3)
        self.out = tf.keras.layers.Dense(4, kernel_regularizer=tf.keras.regularizers.l2(5e-4))

    def call(self, x, training=False):
        h = self.hidden(x)  # CALL:hidden
        h = self.dropout(h, training=training)  # CALL:dropout
        return self.out(h)  # CALL:logits


model = SmoothMLP()
model(inputs[:1])  # CALL:build
model.set_weights(saved)  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)
loss_fn = tf.keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        logits = model(inputs, training=False)  # CALL:forward
        data_loss = loss_fn(onehot, logits, sample_weight=example_weights)  # CALL:loss
        total_loss = data_loss + tf.add_n(model.losses)  # CALL:reg
    grads = tape.gradient(total_loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step %d loss %.7f" % (step, float(total_loss)))
    losses.append(float(total_loss))
if os.environ.get("FRESH_TRACE"):
    names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)}}))
