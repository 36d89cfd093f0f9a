"""tf1_depthwise_bn.py as a Keras functional model trained eagerly by a hand-written loop; the
weights (moving statistics included) set with model.set_weights from the TF1 checkpoint; the
batch norm given TF1's epsilon.

python tf2_depthwise_bn_momentum_eager.py DATA_DIR     (DATA_DIR/depthwise.ckpt: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(717)
images = rng.normal(size=(4, 5, 5, 2)).astype(np.float32)
labels = np.array([2, 0, 1, 1], dtype=np.int32)

inputs = tf.keras.Input(shape=(5, 5, 2))
h = tf.keras.layers.DepthwiseConv2D(3, depth_multiplier=2, use_bias=False, name="dw")(inputs)  # CALL:dw
h = tf.keras.layers.BatchNormalization(epsilon=1e-3, name="bn")(h)  # CALL:bn BUG:depthwise_bn_momentum_eager
h = tf.keras.layers.ReLU(name="relu")(h)  # CALL:relu
h = tf.keras.layers.GlobalAveragePooling2D(name="pool")(h)  # CALL:pool
logits = tf.keras.layers.Dense(3, name="head")(h)  # CALL:logits
model = tf.keras.Model(inputs, logits)

checkpoint = tf.train.load_checkpoint(os.path.join(sys.argv[1], "depthwise.ckpt"))
model.set_weights([checkpoint.get_tensor(name) for name in [  # CALL:restore
    "dw/depthwise_kernel", "bn/gamma", "bn/beta", "bn/moving_mean", "bn/moving_variance",
    "head/kernel", "head/bias"]])

schedule = tf.keras.optimizers.schedules.PiecewiseConstantDecay(boundaries=[1], values=[0.1, 0.05])
optimizer = tf.keras.optimizers.Adagrad(learning_rate=schedule, initial_accumulator_value=0.5)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)  # CALL:forward
        loss = loss_fn(labels, logits)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("FRESH_TRACE"):
    names = ["dw/depthwise_kernel", "bn/gamma", "bn/beta", "head/kernel", "head/bias"]
    bn = model.get_layer("bn")
    print("trace", json.dumps({
        "loss": losses,
        "weights": {n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)},
        "state": {"bn/moving_mean": bn.moving_mean.numpy().tolist(),
                  "bn/moving_variance": bn.moving_variance.numpy().tolist()}}))
