"""The seeds' programs for the core (the 2017 announcement and the eager guide) print what
the seeds show, with only the import changed."""
import contextlib
import io
import textwrap


def run(src):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(textwrap.dedent(src), {"__name__": "__seed__"})
    return out.getvalue()


def test_matmul_2017():
    out = run("""
        import fasteager as tf
        import fasteager.contrib.eager as tfe
        tfe.enable_eager_execution()
        x = [[2.]]
        m = tf.matmul(x, x)
        print(m)
    """)
    assert out == "fe.Tensor([[4.]], shape=(1, 1), dtype=float32)\n"


def test_collatz():
    out = run("""
        import fasteager as tf
        a = tf.constant(12)
        counter = 0
        while not tf.equal(a, 1):
          if tf.equal(a % 2, 0):
            a = a / 2
          else:
            a = 3 * a + 1
          print(a)
    """)
    values = [float(line.split("(")[1].split(",")[0]) for line in out.splitlines()]
    assert values == [6, 3, 10, 5, 16, 8, 4, 2, 1]
    assert "dtype=float64" in out.splitlines()[0]


def test_fizzbuzz():
    out = run("""
        import fasteager as tf
        def fizzbuzz(max_num):
          counter = tf.constant(0)
          max_num = tf.convert_to_tensor(max_num)
          for num in range(1, max_num.numpy()+1):
            num = tf.constant(num)
            if int(num % 3) == 0 and int(num % 5) == 0:
              print('FizzBuzz')
            elif int(num % 3) == 0:
              print('Fizz')
            elif int(num % 5) == 0:
              print('Buzz')
            else:
              print(num.numpy())
            counter += 1
        fizzbuzz(15)
    """)
    assert out.split() == ["1", "2", "Fizz", "4", "Buzz", "Fizz", "7", "8", "Fizz", "Buzz",
                           "11", "Fizz", "13", "14", "FizzBuzz"]


def test_guide_basics():
    out = run("""
        import fasteager as tf
        print(tf.executing_eagerly())
        x = [[2.]]
        m = tf.matmul(x, x)
        print(f"hello, {m}")
        a = tf.constant([[1, 2],
                         [3, 4]])
        print(a)
        b = tf.add(a, 1)
        print(b)
        print(a * b)
        import numpy as np
        c = np.multiply(a, b)
        print(c)
        print(a.numpy())
    """)
    assert out == (
        "True\nhello, [[4.]]\n"
        "fe.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)\n"
        "fe.Tensor(\n[[2 3]\n [4 5]], shape=(2, 2), dtype=int32)\n"
        "fe.Tensor(\n[[ 2  6]\n [12 20]], shape=(2, 2), dtype=int32)\n"
        "[[ 2  6]\n [12 20]]\n[[1 2]\n [3 4]]\n")


def test_gradients_2017():
    out = run("""
        import fasteager as tf
        import fasteager.contrib.eager as tfe
        def square(x):
          return tf.multiply(x, x)
        grad = tfe.gradients_function(square)
        print(square(3.).numpy(), grad(3.)[0].numpy())
        gradgrad = tfe.gradients_function(lambda x: grad(x)[0])
        print(gradgrad(3.)[0].numpy())
        def abs(x):
          return x if x > 0. else -x
        grad = tfe.gradients_function(abs)
        print(grad(2.0)[0].numpy(), grad(-2.0)[0].numpy())
        def log1pexp(x):
          return tf.log(1 + tf.exp(x))
        grad_log1pexp = tfe.gradients_function(log1pexp)
        print(grad_log1pexp(0.)[0].numpy(), grad_log1pexp(100.)[0].numpy())
        @tfe.custom_gradient
        def log1pexp(x):
          e = tf.exp(x)
          def grad(dy):
            return dy * (1 - 1 / (1 + e))
          return tf.log(1 + e), grad
        grad_log1pexp = tfe.gradients_function(log1pexp)
        print(grad_log1pexp(0.)[0].numpy(), grad_log1pexp(100.)[0].numpy())
    """)
    assert out.split("\n")[:5] == ["9.0 6.0", "2.0", "1.0 -1.0", "0.5 nan", "0.5 1.0"]


def test_guide_tape_and_custom_gradient():
    out = run("""
        import fasteager as tf
        w = tf.Variable([[1.0]])
        with tf.GradientTape() as tape:
          loss = w * w
        grad = tape.gradient(loss, w)
        print(grad)
        def log1pexp(x):
          return tf.math.log(1 + tf.exp(x))
        def grad_log1pexp(x):
          with tf.GradientTape() as tape:
            tape.watch(x)
            value = log1pexp(x)
          return tape.gradient(value, x)
        print(grad_log1pexp(tf.constant(0.)).numpy())
        print(grad_log1pexp(tf.constant(100.)).numpy())
        @tf.custom_gradient
        def log1pexp(x):
          e = tf.exp(x)
          def grad(dy):
            return dy * (1 - 1 / (1 + e))
          return tf.math.log(1 + e), grad
        print(grad_log1pexp(tf.constant(0.)).numpy())
        print(grad_log1pexp(tf.constant(100.)).numpy())
    """)
    assert out.splitlines() == ["fe.Tensor([[2.]], shape=(1, 1), dtype=float32)",
                                "0.5", "nan", "0.5", "1.0"]
