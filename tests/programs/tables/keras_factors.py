"""tf1_factors.py in Keras: two Embedding layers (each looks up every example's id), a Dot,
a trainable global bias, SGD(0.5). FORM "function": the step in a tf.function; "fit":
Model.fit on the 12 ratings as one batch. VARIANT "ok" sets TF1's starting weights,
"wrong_items" starts the item table from the user table's first six rows (a mistake).

python keras_factors.py FORM VARIANT
"""
import json
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import LR, STEPS, data

form, variant = sys.argv[1], sys.argv[2]
users_value, items_value, ratings_value, init = data()


class Bias(tf.keras.layers.Layer):
    """The dot products [batch, 1] as scores [batch] plus b, one trainable scalar."""

    def build(self, input_shape):
        self.b = self.add_weight(name="b", shape=(1,))

    def call(self, inputs):
        return tf.squeeze(inputs, -1) + self.b


user_in = tf.keras.Input(shape=(), dtype="int32")
item_in = tf.keras.Input(shape=(), dtype="int32")
u = tf.keras.layers.Embedding(8, 3, name="users")(user_in)
v = tf.keras.layers.Embedding(6, 3, name="items")(item_in)
score = Bias()(tf.keras.layers.Dot(axes=1)([u, v]))
model = tf.keras.Model([user_in, item_in], score)
items_init = init["users"][:6] if variant == "wrong_items" else init["items"]
model.set_weights([init["users"], items_init, init["bias"]])  # LINE:restore
optimizer = tf.keras.optimizers.SGD(LR)

if form == "fit":
    model.compile(optimizer=optimizer, loss="mse")
    history = model.fit((users_value, items_value), ratings_value, batch_size=12,
                        epochs=STEPS, shuffle=False, verbose=0)
    for step, value in enumerate(history.history["loss"]):
        print("step", step, "loss", repr(float(value)))
else:
    @tf.function
    def train_step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model((users_value, items_value)) - ratings_value))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    for step in range(STEPS):
        print("step", step, "loss", repr(float(train_step())))
print("final", json.dumps({n: w.numpy().tolist() for n, w in
                           zip(("users", "items", "bias"), model.weights, strict=True)}))
