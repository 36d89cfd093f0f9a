"""tf1_depthwise_bn.py as a subclassed Keras model (DepthwiseConv2D, BatchNormalization,
GlobalAveragePooling2D, Dense), the train step in tf.function; Adagrad on a
PiecewiseConstantDecay (the accumulator's start left to Keras). Every variable, the moving statistics included, assigned from the
TF1 checkpoint (tf.train.load_checkpoint + assign).

python tf2_depthwise_accumulator_fn.py DATA_DIR     (DATA_DIR/depthwise.ckpt: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(717)
images = rng.normal(size=(4, 5, 5, 2)).astype(np.float32)
labels = np.array([2, 0, 1, 1], dtype=np.int32)


class DepthwiseNet(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dw = tf.keras.layers.DepthwiseConv2D(3, depth_multiplier=2, use_bias=False)
        self.bn = tf.keras.layers.BatchNormalization(momentum=0.95, epsilon=1e-3)
        self.pool = tf.keras.layers.GlobalAveragePooling2D()
        self.head = tf.keras.layers.Dense(3)

    def call(self, x, training=False):
        h = self.dw(x)  # CALL:dw
        h = self.bn(h, training=training)  # CALL:bn
        h = tf.nn.relu(h)  # CALL:relu
        return self.head(self.pool(h))  # CALL:logits


model = DepthwiseNet()
model(images[:1])  # CALL:build
checkpoint = tf.train.load_checkpoint(os.path.join(sys.argv[1], "depthwise.ckpt"))
for variable, name in ((model.dw.kernel, "dw/depthwise_kernel"), (model.bn.gamma, "bn/gamma"),
                       (model.bn.beta, "bn/beta"), (model.bn.moving_mean, "bn/moving_mean"),
                       (model.bn.moving_variance, "bn/moving_variance"),
                       (model.head.kernel, "head/kernel"), (model.head.bias, "head/bias")):
    variable.assign(checkpoint.get_tensor(name))  # CALL:restore

schedule = tf.keras.optimizers.schedules.PiecewiseConstantDecay(boundaries=[1], values=[0.1, 0.05])
optimizer = tf.keras.optimizers.Adagrad(learning_rate=schedule)  # BUG:depthwise_accumulator_fn
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)  # CALL:forward
        loss = loss_fn(y, logits)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    loss = train_step(images, labels)
    print("step", step, "loss", loss.numpy())
    losses.append(float(loss))
if os.environ.get("FRESH_TRACE"):
    names = ["dw/depthwise_kernel", "bn/gamma", "bn/beta", "head/kernel", "head/bias"]
    print("trace", json.dumps({
        "loss": losses,
        "weights": {n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)},
        "state": {"bn/moving_mean": model.bn.moving_mean.numpy().tolist(),
                  "bn/moving_variance": model.bn.moving_variance.numpy().tolist()}}))
