"""tf1_resblock.py in Keras: a subclassed model with a residual block and Dropout (off: the
model is called with training=False), kernel_regularizer l2(2.5e-3) (= 5e-3 * tf.nn.l2_loss);
SGD; an eager GradientTape loop. Weights assigned variable by variable.

python tf2_resblock_weight_decay_eager.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(60)
x_np = rng.normal(size=(8, 6)).astype(np.float32)
y_np = np.eye(3, dtype=np.float32)[[0, 1, 2, 1, 0, 2, 2, 1]]
saved = [rng.normal(0, 0.5, (6, 8)), rng.normal(0, 0.1, (8,)),
         rng.normal(0, 0.4, (8, 8)), rng.normal(0, 0.1, (8,)),
         rng.normal(0, 0.4, (8, 8)), rng.normal(0, 0.1, (8,)),
         rng.normal(0, 0.5, (8, 3)), rng.normal(0, 0.1, (3,))]
saved = [a.astype(np.float32) for a in saved]
l2 = tf.keras.regularizers.l2(2.5e-3)


class ResidualMLP(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.stem = tf.keras.layers.Dense(8, activation="relu", kernel_regularizer=l2)
        self.block_a = tf.keras.layers.Dense(8, activation="relu", kernel_regularizer=l2)
        self.block_b = tf.keras.layers.Dense(8, kernel_regularizer=l2)
        self.dropout = tf.keras.layers.Dropout(0.3)
        self.head = tf.keras.layers.Dense(3, kernel_regularizer=l2)

    def call(self, x, training=False):
        stem = self.stem(x)  # CALL:stem
        h = self.block_b(self.block_a(stem))  # CALL:block
        h = tf.nn.relu(stem + h)  # CALL:residual
        h = self.dropout(h, training=training)  # CALL:dropout
        return self.head(h)  # CALL:logits


model = ResidualMLP()
model(x_np[:1])  # builds the layers
for variable, value in zip(model.trainable_variables, saved):
    variable.assign(value)  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.1, weight_decay=5e-3)  # BUG:resblock_weight_decay_eager
loss_fn = tf.keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)


def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=False)  # CALL:forward
        data_loss = loss_fn(y, logits)  # CALL:loss
        total_loss = data_loss + tf.add_n(model.losses)  # CALL:reg
    grads = tape.gradient(total_loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return total_loss


losses = []
for step in range(3):
    loss_value = train_step(x_np, y_np)
    print("step", step, "loss", float(loss_value))
    losses.append(float(loss_value))
if os.environ.get("HELDOUT_TRACE"):
    names = ["stem/kernel", "stem/bias", "block_a/kernel", "block_a/bias", "block_b/kernel",
             "block_b/bias", "head/kernel", "head/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)}}))
