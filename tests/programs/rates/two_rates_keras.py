"""two_rates_tf1.py's net in Keras, its two layers trained by two Keras optimizers: the first
layer by OPT1 ("adagrad": Adagrad(0.1) with TF1's starting accumulator; "adamax":
Adamax(0.02), its update written as ops, no fused kernel), the second by SGD(0.05); the step
eager (FORM "eager") or in a tf.function ("function"). SPLIT is how many of the model's
variables go to the first optimizer: 2 is the first layer (as TF1), 1 hands the first
layer's bias to SGD by mistake.

python two_rates_keras.py OPT1 FORM SPLIT
"""
import sys

import numpy as np
import tensorflow as tf

first, form, split = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = np.random.RandomState(1)
x = tf.constant(rng.normal(size=(8, 4)).astype(np.float32))
y = tf.constant(rng.normal(size=(8, 1)).astype(np.float32))
init = {"w1": rng.normal(size=(4, 3)), "b1": rng.normal(size=(3,)) * 0.1,
        "w2": rng.normal(size=(3, 1)), "b2": np.array([0.3])}
model = tf.keras.Sequential([tf.keras.Input(shape=(4,)),
                             tf.keras.layers.Dense(3, activation="tanh"),
                             tf.keras.layers.Dense(1)])
model.set_weights([a.astype(np.float32) for a in init.values()])
if first == "adagrad":
    opt1 = tf.keras.optimizers.Adagrad(0.1, initial_accumulator_value=0.1, epsilon=1e-7)
else:
    opt1 = tf.keras.optimizers.Adamax(0.02, beta_1=0.9, beta_2=0.999, epsilon=1e-7)
opt2 = tf.keras.optimizers.SGD(0.05)


def train_step():
    variables = model.trainable_variables
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, variables)
    opt1.apply_gradients(zip(grads[:split], variables[:split], strict=True))
    opt2.apply_gradients(zip(grads[split:], variables[split:], strict=True))
    return loss


step_fn = tf.function(train_step) if form == "function" else train_step
for step in range(3):
    print(f"step {step} loss {float(step_fn()):.6f}")
