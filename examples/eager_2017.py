"""Every program of the 2017 announcement "Eager Execution: An imperative, define-by-run
interface to TensorFlow", run with ``import fasteager as tf`` and
``import fasteager.contrib.eager as tfe``.

    python examples/eager_2017.py [--quick]

The announcement leaves ``dataset`` undefined; here it is MNIST, found by the examples' data rule
(``examples/_data.py``; offline, the 8x8 digits upscaled to 28x28):
flattened 784-float images in [0, 1] and one-hot labels (``softmax_cross_entropy_with_logits``
wants them), batches of 100. ``--quick`` trains on a few batches only.
"""
import argparse
import sys

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--quick", action="store_true", help="train on a few batches (for tests)")
args = parser.parse_args()


def section(title):
    print("\n=== %s ===" % title)


import fasteager as tf  # noqa: E402              (import tensorflow as tf)
import fasteager.contrib.eager as tfe  # noqa: E402  (import tensorflow.contrib.eager as tfe)
from _data import load_mnist  # noqa: E402  (the examples' data rule)

tfe.enable_eager_execution()

# ---------------------------------------------------------------- using eager execution
section("Using eager execution")
x = [[2.]]
m = tf.matmul(x, x)

print(m)
# The 1x1 matrix [[4.]]

section("Collatz")
a = tf.constant(12)
counter = 0
while not tf.equal(a, 1):
    if tf.equal(a % 2, 0):
        a = a / 2
    else:
        a = 3 * a + 1
    print(a)

# ---------------------------------------------------------------- gradients
section("Gradients")


def square(x):
    return tf.multiply(x, x)


grad = tfe.gradients_function(square)

print(square(3.))    # [9.]
print(grad(3.))      # [6.]

gradgrad = tfe.gradients_function(lambda x: grad(x)[0])

print(gradgrad(3.))  # [2.]


def abs(x):
    return x if x > 0. else -x


grad = tfe.gradients_function(abs)

print(grad(2.0))  # [1.]
print(grad(-2.0))  # [-1.]

# ---------------------------------------------------------------- custom gradients
section("Custom gradients")


def log1pexp(x):
    return tf.log(1 + tf.exp(x))


grad_log1pexp = tfe.gradients_function(log1pexp)

# The gradient computation works fine at x = 0.
print(grad_log1pexp(0.))
# [0.5]
# However it returns a `nan` at x = 100 due to numerical instability.
print(grad_log1pexp(100.))
# [nan]


@tfe.custom_gradient
def log1pexp(x):
    e = tf.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return tf.log(1 + e), grad


grad_log1pexp = tfe.gradients_function(log1pexp)

# Gradient at x = 0 works as before.
print(grad_log1pexp(0.))
# [0.5]
# And now gradient computation at x=100 works as well.
print(grad_log1pexp(100.))
# [1.0]

# ---------------------------------------------------------------- building models
section("Building models")


class MNISTModel(tfe.Network):
    def __init__(self):
        super(MNISTModel, self).__init__()
        self.layer1 = self.track_layer(tf.layers.Dense(units=10))
        self.layer2 = self.track_layer(tf.layers.Dense(units=10))

    def call(self, input):
        """Actually runs the model."""
        result = self.layer1(input)
        result = self.layer2(result)
        return result


# Let's make up a blank input image
model = MNISTModel()
batch = tf.zeros([1, 1, 784])
print(batch.shape)
# (1, 1, 784)
result = model(batch)
print(result)
# tf.Tensor([[[ 0.  0., ...., 0.]]], shape=(1, 1, 10), dtype=float32)


def loss_function(model, x, y):
    y_ = model(x)
    return tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=y_)


# `dataset` (not defined by the announcement): MNIST, flattened images, one-hot labels
_, ((images, labels), _) = load_mnist()  # examples/_data.py: MNIST, or offline digits
images = images.reshape(-1, 784).astype("float32") / 255.
onehot = tf.one_hot(labels, 10)
dataset = tf.data.Dataset.from_tensor_slices((images, onehot)).shuffle(1000).batch(100)
if args.quick:
    dataset = dataset.take(5)
eval_x, eval_y = images[:2000], onehot[:2000]


def mean_loss():
    return float(tf.reduce_mean(loss_function(model, eval_x, eval_y)))


print("mean loss before training: %.4f" % mean_loss())

optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.001)
for (x, y) in tfe.Iterator(dataset):
    grads = tfe.implicit_gradients(loss_function)(model, x, y)
    optimizer.apply_gradients(grads)

print("mean loss after implicit_gradients + apply_gradients: %.4f" % mean_loss())

with tf.device("/gpu:0"):  # no GPU here: soft placement runs it on the CPU (with a warning)
    for (x, y) in tfe.Iterator(dataset):
        optimizer.minimize(lambda: loss_function(model, x, y))

print("mean loss after optimizer.minimize under tf.device('/gpu:0'): %.4f" % mean_loss())
print("\nAll programs of the 2017 announcement ran.")
sys.stdout.flush()
