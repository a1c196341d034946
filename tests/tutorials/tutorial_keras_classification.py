# Basic classification: Classify images of clothing: tensorflow/docs site/en/tutorials/keras/classification.ipynb
# (code cells in order; changes marked EDIT(tfcore)).

#@title MIT License
#
# Copyright (c) 2017 François Chollet
#
# Permission is hereby granted, free of charge, to any person obtaining a
# copy of this software and associated documentation files (the "Software"),
# to deal in the Software without restriction, including without limitation
# the rights to use, copy, modify, merge, publish, distribute, sublicense,
# and/or sell copies of the Software, and to permit persons to whom the
# Software is furnished to do so, subject to the following conditions:
#
# The above copyright notice and this permission notice shall be included in
# all copies or substantial portions of the Software.
#
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
# IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
# FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL
# THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
# LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
# FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
# DEALINGS IN THE SOFTWARE.

# TensorFlow and tf.keras
import tensorflow as tf

# Helper libraries
import numpy as np
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: import matplotlib.pyplot as plt

print(tf.__version__)

fashion_mnist = tf.keras.datasets.fashion_mnist

# EDIT(tfcore): generated images of Fashion-MNIST's shapes instead of the download
# (train_images, train_labels), (test_images, test_labels) = fashion_mnist.load_data()
from generated_data import fashion_mnist as _generated
(train_images, train_labels), (test_images, test_labels) = _generated()

class_names = ['T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat',
               'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot']

train_images.shape

len(train_labels)

train_labels

test_images.shape

len(test_labels)

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.figure()
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.imshow(train_images[0])
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.colorbar()
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.grid(False)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

train_images = train_images / 255.0

test_images = test_images / 255.0

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.figure(figsize=(10,10))
for i in range(25):
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.subplot(5,5,i+1)
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xticks([])
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.yticks([])
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.grid(False)
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.imshow(train_images[i], cmap=plt.cm.binary)
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xlabel(class_names[train_labels[i]])
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

model = tf.keras.Sequential([
    tf.keras.layers.Flatten(input_shape=(28, 28)),
    tf.keras.layers.Dense(128, activation='relu'),
    tf.keras.layers.Dense(10)
])

model.compile(optimizer='adam',
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=['accuracy'])

model.fit(train_images, train_labels, epochs=2)  # EDIT(tfcore): epochs=10 cut to 2

test_loss, test_acc = model.evaluate(test_images,  test_labels, verbose=2)

print('\nTest accuracy:', test_acc)

probability_model = tf.keras.Sequential([model, 
                                         tf.keras.layers.Softmax()])

predictions = probability_model.predict(test_images)

predictions[0]

np.argmax(predictions[0])

test_labels[0]

def plot_image(i, predictions_array, true_label, img):
  true_label, img = true_label[i], img[i]
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.grid(False)
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xticks([])
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.yticks([])

  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.imshow(img, cmap=plt.cm.binary)

  predicted_label = np.argmax(predictions_array)
  if predicted_label == true_label:
    color = 'blue'
  else:
    color = 'red'

  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xlabel("{} {:2.0f}% ({})".format(class_names[predicted_label],
  # EDIT(tfcore): (continued) 100*np.max(predictions_array),
  # EDIT(tfcore): (continued) class_names[true_label]),
  # EDIT(tfcore): (continued) color=color)

def plot_value_array(i, predictions_array, true_label):
  true_label = true_label[i]
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.grid(False)
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xticks(range(10))
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.yticks([])
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: thisplot = plt.bar(range(10), predictions_array, color="#777777")
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.ylim([0, 1])
  predicted_label = np.argmax(predictions_array)

  pass  # EDIT(tfcore): plotting line dropped: thisplot[predicted_label].set_color('red')
  pass  # EDIT(tfcore): plotting line dropped: thisplot[true_label].set_color('blue')

i = 0
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.figure(figsize=(6,3))
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.subplot(1,2,1)
plot_image(i, predictions[i], test_labels, test_images)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.subplot(1,2,2)
plot_value_array(i, predictions[i],  test_labels)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

i = 12
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.figure(figsize=(6,3))
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.subplot(1,2,1)
plot_image(i, predictions[i], test_labels, test_images)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.subplot(1,2,2)
plot_value_array(i, predictions[i],  test_labels)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

# Plot the first X test images, their predicted labels, and the true labels.
# Color correct predictions in blue and incorrect predictions in red.
num_rows = 5
num_cols = 3
num_images = num_rows*num_cols
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.figure(figsize=(2*2*num_cols, 2*num_rows))
for i in range(num_images):
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.subplot(num_rows, 2*num_cols, 2*i+1)
  plot_image(i, predictions[i], test_labels, test_images)
  pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.subplot(num_rows, 2*num_cols, 2*i+2)
  plot_value_array(i, predictions[i], test_labels)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.tight_layout()
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

# Grab an image from the test dataset.
img = test_images[1]

print(img.shape)

# Add the image to a batch where it's the only member.
img = (np.expand_dims(img,0))

print(img.shape)

predictions_single = probability_model.predict(img)

print(predictions_single)

plot_value_array(1, predictions_single[0], test_labels)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: _ = plt.xticks(range(10), class_names, rotation=45)
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

np.argmax(predictions_single[0])

# EDIT(tfcore): checks that the tutorial's training worked
assert test_acc > 0.8, test_acc
