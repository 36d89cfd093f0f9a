"""tf1_cnn_bn.py as a subclassed Keras model, train step in tf.function; weights from the TF1
checkpoint.

python tf2_bn_momentum_fn.py DATA_DIR     (DATA_DIR/bn.ckpt: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(99)
images = rng.normal(size=(6, 5, 5, 1)).astype(np.float32)
labels = np.array([0, 1, 2, 2, 1, 0], dtype=np.int32)


class ConvBN(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = tf.keras.layers.Conv2D(3, 3, use_bias=False)
        self.bn = tf.keras.layers.BatchNormalization(epsilon=1e-5)  # BUG:bn_momentum_fn
        self.dense = tf.keras.layers.Dense(3)

    def call(self, x, training=False):
        h = self.conv(x)  # CALL:conv
        h = self.bn(h, training=training)  # CALL:bn
        h = tf.nn.relu(h)  # CALL:relu
        h = tf.reshape(h, [-1, 27])  # CALL:flatten
        return self.dense(h)  # CALL:logits


model = ConvBN()
model(images[:1])
reader = tf.train.load_checkpoint(os.path.join(sys.argv[1], "bn.ckpt"))
model.set_weights([reader.get_tensor(name) for name in  # CALL:restore
                   ["conv/kernel", "bn/gamma", "bn/beta", "bn/moving_mean",
                    "bn/moving_variance", "dense/kernel", "dense/bias"]])

optimizer = tf.keras.optimizers.SGD(0.05, momentum=0.9)
cross_entropy = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = cross_entropy(y, logits)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


history = []
for step in range(3):
    loss = train_step(images, labels)
    print("step", step, "loss", loss.numpy())
    history.append(float(loss))

if os.environ.get("HELDOUT_TRACE"):
    names = ["conv/kernel", "bn/gamma", "bn/beta", "dense/kernel", "dense/bias"]
    print("trace", json.dumps({
        "loss": history,
        "weights": {n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)},
        "state": {"bn/moving_mean": model.bn.moving_mean.numpy().tolist(),
                  "bn/moving_variance": model.bn.moving_variance.numpy().tolist()}}))
