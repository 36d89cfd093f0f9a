"""tf1_cnn_bninf.py in Keras (Conv2D, BatchNormalization, GlobalAveragePooling2D, Dense),
train step in tf.function, the model called with training=False.

python tf2_bninf_fn.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

r = np.random.RandomState(5)
batch = r.normal(size=(4, 4, 4, 2)).astype(np.float32)
target = np.array([2, 1, 0, 1], dtype=np.int32)
pretrained = {
    "conv/kernel": r.normal(0.0, 0.6, size=(2, 2, 2, 3)).astype(np.float32),
    "conv/bias": r.uniform(-0.2, 0.2, size=(3,)).astype(np.float32),
    "bn/gamma": r.uniform(0.5, 1.5, size=(3,)).astype(np.float32),
    "bn/beta": r.uniform(-0.3, 0.3, size=(3,)).astype(np.float32),
    "bn/moving_mean": r.uniform(-0.4, 0.4, size=(3,)).astype(np.float32),
    "bn/moving_variance": r.uniform(0.4, 1.6, size=(3,)).astype(np.float32),
    "head/kernel": r.normal(0.0, 0.8, size=(3, 3)).astype(np.float32),
    "head/bias": r.uniform(-0.1, 0.1, size=(3,)).astype(np.float32),
}


class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = tf.keras.layers.Conv2D(3, 2, padding="same")
        self.bn = tf.keras.layers.BatchNormalization(epsilon=1e-3)
        self.pool = tf.keras.layers.GlobalAveragePooling2D()
        self.head = tf.keras.layers.Dense(3)

    def call(self, x, training=False):
        h = self.conv(x)  # CALL:conv
        h = self.bn(h, training=training)  # CALL:bn
        h = tf.nn.relu(h)  # CALL:relu
        return self.head(self.pool(h))  # CALL:logits


net = Net()
net(batch[:1])
net.set_weights([pretrained[k] for k in ["conv/kernel", "conv/bias", "bn/gamma", "bn/beta",  # CALL:restore
                                         "bn/moving_mean", "bn/moving_variance", "head/kernel",
                                         "head/bias"]])
optimizer = tf.keras.optimizers.Adagrad(learning_rate=0.1)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = net(x, training=False)  # CALL:forward
        loss = loss_fn(y, logits)  # CALL:loss
    grads = tape.gradient(loss, net.trainable_variables)
    optimizer.apply_gradients(zip(grads, net.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(batch, target)
    print(f"step {step} loss {float(value)}")
    losses.append(float(value))
if os.environ.get("HELDOUT_TRACE"):
    names = ["conv/kernel", "conv/bias", "bn/gamma", "bn/beta", "head/kernel", "head/bias"]
    print("trace", json.dumps({
        "loss": losses,
        "weights": {n: v.numpy().tolist() for n, v in zip(names, net.trainable_variables)},
        "state": {"bn/moving_mean": net.bn.moving_mean.numpy().tolist(),
                  "bn/moving_variance": net.bn.moving_variance.numpy().tolist()}}))
