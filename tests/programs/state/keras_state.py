"""tf1_state.py in Keras: Dense(3, tanh), Dense(1), gradient descent at 0.1, three steps, the
state kept another way (tests/compare/test_state_between_steps.py):

- `ema function apart`: the step in a `tf.function`; the moving average kept by another
  `tf.function` called after it (`tf.train.ExponentialMovingAverage(0.9, num_updates=n)`);
- `ema eager byhand`: an eager step; the averages as `tf.Variable`s assigned
  `decay · average + (1 − decay) · weight` after the update, decay min(0.9, (1 + n)/(10 + n));
- `teacher eager ok|early`: an eager step; the teacher a second model (`trainable = False`)
  given the weights by eager assignments after every second step (`ok`: after steps 1, 3…,
  as TF1; `early`: after steps 0, 2…);
- `teacher fit ok`: `Model.fit`, the teacher's term in the loss function, the teacher given
  the weights by a callback after every second batch.

python keras_state.py MODE FORM VARIANT
"""
import sys

import numpy as np
import tensorflow as tf

MODE, FORM, VARIANT = sys.argv[1:4]
rng = np.random.RandomState(7)
X, Y = rng.randn(8, 4).astype("float32"), rng.randn(8, 1).astype("float32")
INIT = [0.5 * rng.randn(4, 3), np.full(3, 0.1), 0.5 * rng.randn(3, 1), np.zeros(1)]


def make():
    return tf.keras.Sequential([tf.keras.Input(shape=(4,)),
                                tf.keras.layers.Dense(3, activation="tanh", name="hidden"),
                                tf.keras.layers.Dense(1, name="out")])


model = make()
model.set_weights([v.astype("float32") for v in INIT])
optimizer = tf.keras.optimizers.SGD(0.1)
teacher = None
if MODE == "teacher":
    teacher = make()
    teacher.set_weights(model.get_weights())
    teacher.trainable = False


def sync_teacher():
    for copy, weight in zip(teacher.weights, model.weights, strict=True):
        copy.assign(weight)  # the teacher's copy


def train_step(x, y):
    target = teacher(x) if teacher is not None else None
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        loss = tf.reduce_mean(tf.square(pred - y))
        if target is not None:
            loss = loss + 0.5 * tf.reduce_mean(tf.square(target - pred))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    return loss


if FORM == "function":
    train_step = tf.function(train_step)
weights = [w.value for w in model.trainable_variables]  # Keras 3's tf.Variables
if MODE == "ema" and VARIANT == "apart":
    counter = tf.Variable(0, dtype=tf.int64, trainable=False)
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=counter)
    ema.apply(weights)  # the averages start from the weights

    @tf.function
    def keep_averages():
        counter.assign_add(1)
        ema.apply(weights)  # the averages
if MODE == "ema" and VARIANT == "byhand":
    averages = [tf.Variable(w, trainable=False) for w in model.get_weights()]


class SyncEverySecond(tf.keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        if int(self.model.optimizer.iterations.numpy()) % 2 == 0:
            sync_teacher()


if FORM == "fit":
    inputs = tf.constant(X)

    def loss_fn(y_true, y_pred):
        return (tf.reduce_mean(tf.square(y_pred - y_true))
                + 0.5 * tf.reduce_mean(tf.square(teacher(inputs) - y_pred)))

    model.compile(optimizer=optimizer, loss=loss_fn)
    model.fit(X, Y, batch_size=8, epochs=3, shuffle=False, verbose=0,
              callbacks=[SyncEverySecond()])
else:
    for step in range(3):
        value = train_step(X, Y)
        if MODE == "ema" and VARIANT == "apart":
            keep_averages()
        if MODE == "ema" and VARIANT == "byhand":
            n = float(step + 1)
            decay = min(0.9, (1.0 + n) / (10.0 + n))
            for average, weight in zip(averages, weights, strict=True):
                average.assign(decay * average + (1.0 - decay) * weight)  # the averages
        if MODE == "teacher" and (step + 1 if VARIANT == "ok" else step) % 2 == 0:
            sync_teacher()
        print("step", step, "loss", float(value))
