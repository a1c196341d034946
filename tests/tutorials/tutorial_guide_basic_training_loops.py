# Basic training loops: tensorflow/docs site/en/guide/basic_training_loops.ipynb
# (code cells in order; changes marked EDIT(tfcore)).
import tensorflow as tf

# EDIT(tfcore): plotting dropped (no matplotlib in the test environment): `import matplotlib.pyplot as plt`,
# `colors = ...` and the plt.* cells below

# The actual line
TRUE_W = 3.0
TRUE_B = 2.0

NUM_EXAMPLES = 201

# A vector of random x values
x = tf.linspace(-2,2, NUM_EXAMPLES)
x = tf.cast(x, tf.float32)

def f(x):
  return x * TRUE_W + TRUE_B

# Generate some noise
noise = tf.random.normal(shape=[NUM_EXAMPLES])

# Calculate y
y = f(x) + noise

class MyModel(tf.Module):
  def __init__(self, **kwargs):
    super().__init__(**kwargs)
    # Initialize the weights to `5.0` and the bias to `0.0`
    # In practice, these should be randomly initialized
    self.w = tf.Variable(5.0)
    self.b = tf.Variable(0.0)

  def __call__(self, x):
    return self.w * x + self.b

model = MyModel()

# List the variables tf.modules's built-in variable aggregation.
print("Variables:", model.variables)

# Verify the model works
assert model(3.0).numpy() == 15.0

# This computes a single loss value for an entire batch
def loss(target_y, predicted_y):
  return tf.reduce_mean(tf.square(target_y - predicted_y))

print("Current loss: %1.6f" % loss(y, model(x)).numpy())

# Given a callable model, inputs, outputs, and a learning rate...
def train(model, x, y, learning_rate):

  with tf.GradientTape() as t:
    # Trainable variables are automatically tracked by GradientTape
    current_loss = loss(y, model(x))

  # Use GradientTape to calculate the gradients with respect to W and b
  dw, db = t.gradient(current_loss, [model.w, model.b])

  # Subtract the gradient scaled by the learning rate
  model.w.assign_sub(learning_rate * dw)
  model.b.assign_sub(learning_rate * db)

model = MyModel()

# Collect the history of W-values and b-values to plot later
weights = []
biases = []
epochs = range(10)

# Define a training loop
def report(model, loss):
  return f"W = {model.w.numpy():1.2f}, b = {model.b.numpy():1.2f}, loss={loss:2.5f}"


def training_loop(model, x, y):

  for epoch in epochs:
    # Update the model with the single giant batch
    train(model, x, y, learning_rate=0.1)

    # Track this before I update
    weights.append(model.w.numpy())
    biases.append(model.b.numpy())
    current_loss = loss(y, model(x))

    print(f"Epoch {epoch:2d}:")
    print("    ", report(model, current_loss))

current_loss = loss(y, model(x))

print(f"Starting:")
print("    ", report(model, current_loss))

training_loop(model, x, y)

print("Current loss: %1.6f" % loss(model(x), y).numpy())

# EDIT(tfcore): checks that the tutorial's training worked
assert abs(model.w.numpy() - TRUE_W) < 0.5 and abs(model.b.numpy() - TRUE_B) < 0.5, report(model, 0.0)

class MyModelKeras(tf.keras.Model):
  def __init__(self, **kwargs):
    super().__init__(**kwargs)
    # Initialize the weights to `5.0` and the bias to `0.0`
    # In practice, these should be randomly initialized
    self.w = tf.Variable(5.0)
    self.b = tf.Variable(0.0)

  def call(self, x):
    return self.w * x + self.b

keras_model = MyModelKeras()

# Reuse the training loop with a Keras model
training_loop(keras_model, x, y)

# You can also save a checkpoint using Keras's built-in support
# EDIT(tfcore): Keras 3 (TF 2.16+) saves weights only to a `.weights.h5` file; TF 2.21 refuses "my_checkpoint"
keras_model.save_weights("my_checkpoint.weights.h5")

keras_model = MyModelKeras()

# compile sets the training parameters
keras_model.compile(
    # By default, fit() uses tf.function().  You can
    # turn that off for debugging, but it is on now.
    run_eagerly=False,

    # Using a built-in optimizer, configuring as an object
    optimizer=tf.keras.optimizers.SGD(learning_rate=0.1),

    # Keras comes with built-in MSE error
    # However, you could use the loss function
    # defined above
    # EDIT(tfcore): TF 2.21's tf.keras.losses has `mse` but no `mean_squared_error` (AttributeError)
    loss=tf.keras.losses.mse,
)

print(x.shape[0])
keras_model.fit(x, y, epochs=10, batch_size=1000)

# EDIT(tfcore): checks that the tutorial's training worked, where the model tracks its tf.Variable attributes.
# Keras 3 (TF 2.21) tracks only add_weight/keras.Variable weights: this model has no trainable weights there,
# and fit warns and leaves w and b as they were; tfcore tracks them, as Keras 2 (the guide's Keras) did.
if keras_model.trainable_variables:
  assert abs(keras_model.w.numpy() - TRUE_W) < 0.5 and abs(keras_model.b.numpy() - TRUE_B) < 0.5
