"""Keras rewrites of tf1_stages.py for tests/compare/test_layer_stages.py:

- `pool fit ok`: a functional model, Dense(5, relu) per frame, GlobalMaxPooling1D, Dense(2),
  trained by `fit` (equivalent);
- `pool eager avg`: trained eagerly, GlobalAveragePooling1D for the max (the pooled
  vectors differ);
- `pool eager tanh`: trained eagerly, the per-frame Dense with `activation="tanh"` (the
  frames, their max and the loss differ);
- `cnn eager ok|tanh`: a Sequential CNN, Conv2D(3, 3, same, relu) then MaxPooling2D(2),
  Flatten, Dense(1), trained eagerly (`tanh`: the conv's activation tanh);
- `shrink function ok`: a Sequential model, a layer calling TF 1.x's
  `tf.compat.v1.image.resize_bilinear` (equivalent), the step in a `tf.function`;
- `shrink fit resizing`: `Resizing(4, 4)` (TF 2's half-pixel grid) trained by `fit`.

python keras_stages.py pool|shrink|cnn fit|eager|function ok|avg|tanh|resizing
"""
import sys

import tensorflow as tf

from stages_data import cnn_data, pool_data, shrink_data

MODE, FORM, VARIANT = sys.argv[1:4]


class LegacyResize(tf.keras.layers.Layer):
    def call(self, x):
        return tf.compat.v1.image.resize_bilinear(x, [4, 4])  # CALL:resize


if MODE == "pool":
    data, labels, saved = pool_data()
    inputs = tf.keras.Input(shape=(6, 3))
    activation = "tanh" if VARIANT == "tanh" else "relu"
    frames = tf.keras.layers.Dense(5, activation=activation, name="frame")(inputs)  # CALL:frame
    if VARIANT == "avg":
        pooled = tf.keras.layers.GlobalAveragePooling1D(name="pool")(frames)  # CALL:pool
    else:
        pooled = tf.keras.layers.GlobalMaxPooling1D(name="pool")(frames)  # CALL:pool
    logits = tf.keras.layers.Dense(2, name="out")(pooled)  # CALL:logits
    model = tf.keras.Model(inputs, logits)
    order = ["frame/kernel", "frame/bias", "out/kernel", "out/bias"]
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    rate = 0.2
elif MODE == "cnn":
    data, labels, saved = cnn_data()
    activation = "tanh" if VARIANT == "tanh" else "relu"
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(6, 6, 1)),
        tf.keras.layers.Conv2D(3, 3, padding="same", activation=activation, name="conv1"),  # CALL:conv1
        tf.keras.layers.MaxPooling2D(2, name="pool"),  # CALL:pool
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(1, name="out"),
    ])
    order = ["conv1/kernel", "conv1/bias", "out/kernel", "out/bias"]
    loss_fn = tf.keras.losses.MeanSquaredError()
    rate = 0.1
else:
    data, labels, saved = shrink_data()
    resize = tf.keras.layers.Resizing(4, 4, name="resize") if VARIANT == "resizing" else LegacyResize(name="resize")  # CALL:resize
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(6, 6, 1)),
        tf.keras.layers.Conv2D(2, 3, padding="same", activation="relu", name="conv1"),
        resize,
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(1, name="out"),
    ])
    order = ["conv1/kernel", "conv1/bias", "out/kernel", "out/bias"]
    loss_fn = tf.keras.losses.MeanSquaredError()
    rate = 0.1
model.set_weights([saved[n] for n in order])
optimizer = tf.keras.optimizers.SGD(rate)

if FORM == "fit":
    model.compile(optimizer=optimizer, loss=loss_fn)
    model.fit(data, labels, batch_size=len(data), epochs=2, shuffle=False, verbose=0)
else:
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    step_fn = tf.function(train_step) if FORM == "function" else train_step
    for step in range(2):
        print("step", step, "loss", float(step_fn(tf.constant(data), tf.constant(labels))))
