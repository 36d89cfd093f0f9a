"""A keras.Model subclass with its own train_step: class weights from empty classes.

The user overrides train_step to weight each example by the inverse frequency of its class
in the batch, computed as 1 / count and normalised to sum to 1. A class absent from the batch
has count 0: 1/0 = inf, and the normalisation turns the weights into inf/inf = NaN for that
class and finite/inf = 0 for every other: the loss is 0 and nothing trains.
"""
# EXPECT origin_op: RealDiv|Reciprocal
# EXPECT cause: zero
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
tf.keras.utils.set_random_seed(31)

NUM_CLASSES = 4


class BalancedClassifier(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(16, activation="relu")
        self.logits = tf.keras.layers.Dense(NUM_CLASSES)

    def call(self, x):
        return self.logits(self.hidden(x))

    def train_step(self, data):
        x, y = data
        counts = tf.reduce_sum(tf.one_hot(y, NUM_CLASSES), axis=0)
        class_weight = 1.0 / counts  # FIX
        class_weight = class_weight / tf.reduce_sum(class_weight)
        with tf.GradientTape() as tape:
            logits = self(x, training=True)
            ce = tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
            loss = tf.reduce_sum(ce * tf.gather(class_weight, y)) / NUM_CLASSES
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables, strict=True))
        return {"loss": loss}


rng = np.random.RandomState(31)
x = rng.rand(32, 6).astype("float32")
y = rng.randint(0, 3, 32)  # class 3 never occurs in this data
model = BalancedClassifier()
model.compile(optimizer="adam")
model.fit(x, y, epochs=1, batch_size=16, verbose=0)

tf.debugging.experimental.disable_dump_debug_info()
