# TensorFlow 2 quickstart for beginners: tensorflow/docs site/en/tutorials/quickstart/beginner.ipynb
# (code cells in order; changes marked EDIT(tfcore)).
import tensorflow as tf
print("TensorFlow version:", tf.__version__)

mnist = tf.keras.datasets.mnist

# EDIT(tfcore): generated digits of MNIST's shapes instead of the download
# (x_train, y_train), (x_test, y_test) = mnist.load_data()
from generated_data import mnist as _generated_mnist  # noqa: E402
(x_train, y_train), (x_test, y_test) = _generated_mnist()
x_train, x_test = x_train / 255.0, x_test / 255.0

model = tf.keras.models.Sequential([
  tf.keras.layers.Flatten(input_shape=(28, 28)),
  tf.keras.layers.Dense(128, activation='relu'),
  tf.keras.layers.Dropout(0.2),
  tf.keras.layers.Dense(10)
])

predictions = model(x_train[:1]).numpy()
predictions

tf.nn.softmax(predictions).numpy()

loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

loss_fn(y_train[:1], predictions).numpy()

model.compile(optimizer='adam',
              loss=loss_fn,
              metrics=['accuracy'])

model.fit(x_train, y_train, epochs=5)

model.evaluate(x_test,  y_test, verbose=2)

probability_model = tf.keras.Sequential([
  model,
  tf.keras.layers.Softmax()
])

probability_model(x_test[:5])

# EDIT(tfcore): checks that the tutorial's training worked
_, accuracy = model.evaluate(x_test, y_test, verbose=0)
assert accuracy > 0.9, accuracy
assert probability_model(x_test[:5]).shape == (5, 10)
