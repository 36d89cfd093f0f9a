"""tf1_mlp_bn.py as a functional Keras model, the train step in tf.function (the model called
with training=True); every variable, the moving statistics included, assigned from the TF1
checkpoint by name (tf.train.load_checkpoint); SGD with clipvalue; MeanSquaredError.

python tf2_mlp_bn_ckpt_fn.py DATA_DIR     (DATA_DIR/mlp_bn.ckpt: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(5555)
features = rng.normal(size=(6, 5)).astype(np.float32)
target = rng.normal(size=(6, 1)).astype(np.float32)

inputs = tf.keras.Input(shape=(5,))
hidden = tf.keras.layers.Dense(8, use_bias=False, name="hidden")  # CALL:hidden
bn = tf.keras.layers.BatchNormalization(momentum=0.9, epsilon=1e-3, name="bn")  # CALL:bn
head = tf.keras.layers.Dense(1, name="out")  # CALL:head
model = tf.keras.Model(inputs, head(tf.keras.layers.ReLU(name="relu")(bn(hidden(inputs)))))  # CALL:relu

checkpoint = tf.train.load_checkpoint(os.path.join(sys.argv[1], "mlp_bn.ckpt"))
mapping = {"hidden/kernel": hidden.kernel, "bn/gamma": bn.gamma, "bn/beta": bn.beta,
           "bn/moving_mean": bn.moving_mean, "bn/moving_variance": bn.moving_variance,
           "out/kernel": head.kernel, "out/bias": head.bias}
for name, variable in mapping.items():
    variable.assign(checkpoint.get_tensor(name))  # CALL:restore

optimizer = tf.keras.optimizers.SGD(learning_rate=0.05, clipvalue=0.2)  # CALL:opt
loss_fn = tf.keras.losses.MeanSquaredError()  # CALL:loss


@tf.function
def train_step(x, t):
    with tf.GradientTape() as tape:
        prediction = model(x, training=True)  # CALL:forward
        loss = loss_fn(t, prediction)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    loss = train_step(features, target)
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("WILD_TRACE"):
    names = ["hidden/kernel", "bn/gamma", "bn/beta", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(names, model.trainable_variables)},
        "state": {"bn/moving_mean": bn.moving_mean.numpy().tolist(), "bn/moving_variance": bn.moving_variance.numpy().tolist()}}))
