"""tf1_depthwise_bn.py as a Keras Sequential model trained by Model.fit, weights set from the
TF1 checkpoint; Adagrad on a PiecewiseConstantDecay.

python tf2_depthwise_piecewise_fit.py DATA_DIR     (DATA_DIR/depthwise.ckpt: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(717)
images = rng.normal(size=(4, 5, 5, 2)).astype(np.float32)
labels = np.array([2, 0, 1, 1], dtype=np.int32)

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5, 5, 2)),
    tf.keras.layers.DepthwiseConv2D(3, depth_multiplier=2, use_bias=False, name="dw"),  # CALL:dw
    tf.keras.layers.BatchNormalization(momentum=0.95, epsilon=1e-3, name="bn"),  # CALL:bn
    tf.keras.layers.Activation("relu", name="relu"),  # CALL:relu
    tf.keras.layers.GlobalAveragePooling2D(name="pool"),  # CALL:pool
    tf.keras.layers.Dense(3, name="head"),  # CALL:logits
])
checkpoint = tf.train.load_checkpoint(os.path.join(sys.argv[1], "depthwise.ckpt"))
model.set_weights([checkpoint.get_tensor(name) for name in [  # CALL:restore
    "dw/depthwise_kernel", "bn/gamma", "bn/beta", "bn/moving_mean", "bn/moving_variance",
    "head/kernel", "head/bias"]])

# TF1: piecewise_constant(global_step, [1], [0.1, 0.05])
schedule = tf.keras.optimizers.schedules.PiecewiseConstantDecay(boundaries=[2], values=[0.1, 0.05])  # BUG:depthwise_piecewise_fit
model.compile(optimizer=tf.keras.optimizers.Adagrad(learning_rate=schedule, initial_accumulator_value=0.5),  # CALL:opt
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))  # CALL:loss
history = model.fit(images, labels, batch_size=4, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("FRESH_TRACE"):
    names = ["dw/depthwise_kernel", "bn/gamma", "bn/beta", "head/kernel", "head/bias"]
    bn = model.get_layer("bn")
    print("trace", json.dumps({
        "loss": history.history["loss"],
        "weights": {n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)},
        "state": {"bn/moving_mean": bn.moving_mean.numpy().tolist(),
                  "bn/moving_variance": bn.moving_variance.numpy().tolist()}}))
