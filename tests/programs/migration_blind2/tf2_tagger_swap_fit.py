"""tf1_tagger.py as a Keras Sequential model trained by Model.fit: Embedding,
Bidirectional(SimpleRNN(3, return_sequences=True)), a Dense per token; the pad tag ignored by
the loss (ignore_class=0); SGD with momentum 0.9. The TF1 weights from the saved arrays,
given to each layer.

python tf2_tagger_swap_fit.py DATA_DIR     (DATA_DIR/tagger.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "tagger.npz")))
NAMES = ["embedding/embeddings", "fwd/kernel", "fwd/recurrent_kernel", "fwd/bias",
         "bwd/kernel", "bwd/recurrent_kernel", "bwd/bias", "tags/kernel", "tags/bias"]
RNN = ["kernel", "recurrent_kernel", "bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,), dtype="int32"),
    tf.keras.layers.Embedding(7, 3, name="embedding"),  # CALL:embed
    tf.keras.layers.Bidirectional(tf.keras.layers.SimpleRNN(3, return_sequences=True), name="birnn"),  # CALL:rnn CALL:build
    tf.keras.layers.Dense(4, name="tags"),  # CALL:logits
])
model.get_layer("embedding").set_weights([saved["embedding/embeddings"]])  # CALL:restore
model.get_layer("birnn").set_weights([saved["bwd/" + n] for n in RNN] + [saved["fwd/" + n] for n in RNN])  # BUG:tagger_swap_fit
model.get_layer("tags").set_weights([saved["tags/kernel"], saved["tags/bias"]])  # CALL:restore

model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9),  # CALL:opt
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0))  # CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=3, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND2_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
