"""tf1_mlp_bn.py as a Keras Sequential model trained eagerly under GradientTape (training=True);
weights and moving statistics from the .weights.h5 of the earlier run; the TF1 clipping moved
into the optimizer; MeanSquaredError.

python tf2_mlp_bn_clipnorm_eager.py DATA_DIR     (DATA_DIR/mlp_bn.weights.h5: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(5555)
features = rng.normal(size=(6, 5)).astype(np.float32)
target = rng.normal(size=(6, 1)).astype(np.float32)

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5,)),
    tf.keras.layers.Dense(8, use_bias=False, name="hidden"),  # CALL:hidden
    tf.keras.layers.BatchNormalization(momentum=0.9, epsilon=1e-3, name="bn"),  # CALL:bn
    tf.keras.layers.ReLU(name="relu"),  # CALL:relu
    tf.keras.layers.Dense(1, name="out"),  # CALL:head
])
model.load_weights(os.path.join(sys.argv[1], "mlp_bn.weights.h5"))  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.05, clipnorm=0.2)  # BUG:mlp_bn_clipnorm_eager
loss_fn = tf.keras.losses.MeanSquaredError()

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        prediction = model(features, training=True)  # CALL:forward
        loss = loss_fn(target, prediction)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("WILD_TRACE"):
    names = ["hidden/kernel", "bn/gamma", "bn/beta", "out/kernel", "out/bias"]
    bn = model.get_layer("bn")
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)},
        "state": {"bn/moving_mean": bn.moving_mean.numpy().tolist(), "bn/moving_variance": bn.moving_variance.numpy().tolist()}}))
