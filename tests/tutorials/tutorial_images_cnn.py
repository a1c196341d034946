# Convolutional Neural Network (CNN): tensorflow/docs site/en/tutorials/images/cnn.ipynb
# (code cells in order; changes marked EDIT(tfcore)).

import tensorflow as tf

from tensorflow.keras import datasets, layers, models
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: import matplotlib.pyplot as plt

# EDIT(tfcore): generated images of CIFAR-10's shapes instead of the download
# (train_images, train_labels), (test_images, test_labels) = datasets.cifar10.load_data()
from generated_data import cifar10 as _generated
(train_images, train_labels), (test_images, test_labels) = _generated()

# Normalize pixel values to be between 0 and 1
train_images, test_images = train_images / 255.0, test_images / 255.0

class_names = ['airplane', 'automobile', 'bird', 'cat', 'deer',
               'dog', 'frog', 'horse', 'ship', 'truck']

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.figure(figsize=(10,10))
for i in range(25):
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.subplot(5,5,i+1)
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xticks([])
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.yticks([])
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.grid(False)
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.imshow(train_images[i])
    # The CIFAR labels happen to be arrays, 
    # which is why you need the extra index
    pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xlabel(class_names[train_labels[i][0]])
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.show()

model = models.Sequential()
model.add(layers.Conv2D(32, (3, 3), activation='relu', input_shape=(32, 32, 3)))
model.add(layers.MaxPooling2D((2, 2)))
model.add(layers.Conv2D(64, (3, 3), activation='relu'))
model.add(layers.MaxPooling2D((2, 2)))
model.add(layers.Conv2D(64, (3, 3), activation='relu'))

model.summary()

model.add(layers.Flatten())
model.add(layers.Dense(64, activation='relu'))
model.add(layers.Dense(10))

model.summary()

model.compile(optimizer='adam',
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=['accuracy'])

history = model.fit(train_images, train_labels, epochs=2,  # EDIT(tfcore): epochs=10 cut to 2

                    validation_data=(test_images, test_labels))

pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(history.history['accuracy'], label='accuracy')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.plot(history.history['val_accuracy'], label = 'val_accuracy')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.xlabel('Epoch')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.ylabel('Accuracy')
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.ylim([0.5, 1])
pass  # EDIT(tfcore): notebook shell/help/plotting line dropped: plt.legend(loc='lower right')

test_loss, test_acc = model.evaluate(test_images,  test_labels, verbose=2)

print(test_acc)

# EDIT(tfcore): checks that the tutorial's training worked
assert test_acc > 0.5, test_acc
