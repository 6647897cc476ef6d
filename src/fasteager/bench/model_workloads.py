"""Workloads for whole training steps, convolution, elementwise ops and input pipelines."""
import numpy as np

from .workloads import _fasteager, _torch, all_workloads, workload

# ---- elementwise and reductions at 1e3 / 1e6 elements -------------------------------------
for _n in (1000, 1000000):
    _w = workload("elementwise_%d" % _n, "tanh(a * b + a) on %d float32 elements" % _n)

    def _make_fe(quick, n=_n):
        fe = _fasteager()
        a = fe.constant(np.linspace(-1, 1, n, dtype=np.float32))
        b = fe.constant(np.linspace(1, 2, n, dtype=np.float32))
        return lambda: fe.tanh(a * b + a)

    def _make_np(quick, n=_n):
        a = np.linspace(-1, 1, n, dtype=np.float32)
        b = np.linspace(1, 2, n, dtype=np.float32)
        return lambda: np.tanh(a * b + a)

    def _make_torch(quick, n=_n):
        torch = _torch()
        a = torch.linspace(-1, 1, n)
        b = torch.linspace(1, 2, n)
        return lambda: torch.tanh(a * b + a)
    _w.entry("fasteager")(_make_fe)
    _w.entry("numpy")(_make_np)
    _w.entry("torch")(_make_torch)

    _r = workload("reduce_sum_%d" % _n, "sum over %d float32 elements" % _n)

    def _r_fe(quick, n=_n):
        fe = _fasteager()
        a = fe.constant(np.linspace(-1, 1, n, dtype=np.float32))
        return lambda: fe.reduce_sum(a)

    def _r_np(quick, n=_n):
        a = np.linspace(-1, 1, n, dtype=np.float32)
        return lambda: np.sum(a)

    def _r_torch(quick, n=_n):
        torch = _torch()
        a = torch.linspace(-1, 1, n)
        return lambda: torch.sum(a)
    _r.entry("fasteager")(_r_fe)
    _r.entry("numpy")(_r_np)
    _r.entry("torch")(_r_torch)


# ---- conv2d at the guide's shapes -------------------------------------------------------------
conv = workload("conv2d_guide_fwd_bwd",
                "conv 3x3 (32,28,28,1)->16 then 16->16, VALID: forward + both gradients")


def _conv_run(tf):
    """Two 3x3 VALID convolutions at the guide's shapes, forward and both gradients."""
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((32, 28, 28, 1)).astype(np.float32))
    w1 = tf.Variable(rng.standard_normal((3, 3, 1, 16)).astype(np.float32) * 0.1)
    w2 = tf.Variable(rng.standard_normal((3, 3, 16, 16)).astype(np.float32) * 0.1)

    def run():
        with tf.GradientTape() as tape:
            h = tf.nn.conv2d(x, w1, 1, "VALID")
            y = tf.reduce_sum(tf.nn.conv2d(h, w2, 1, "VALID"))
        tape.gradient(y, [w1, w2])
    return run


@conv.entry("fasteager")
def _(quick):
    return _conv_run(_fasteager())


@conv.entry("torch")
def _(quick):
    torch = _torch()
    x = torch.randn(32, 1, 28, 28)
    w1 = torch.randn(16, 1, 3, 3, requires_grad=True)
    w2 = torch.randn(16, 16, 3, 3, requires_grad=True)

    def run():
        y = torch.nn.functional.conv2d(torch.nn.functional.conv2d(x, w1), w2).sum()
        y.backward()
        w1.grad = w2.grad = None
    return run


# ---- Keras training steps: ONE piece of code for fasteager and TensorFlow ---------------------
# (the project's promise: TF eager code runs on fasteager with only the import changed)

def _mlp_layers(tf):
    return [tf.keras.layers.Dense(128, activation="relu"), tf.keras.layers.Dense(10)]


def _convnet_layers(tf):
    return [tf.keras.layers.Conv2D(16, [3, 3], activation="relu"),
            tf.keras.layers.Conv2D(16, [3, 3], activation="relu"),
            tf.keras.layers.GlobalAveragePooling2D(),
            tf.keras.layers.Dense(10)]


def _keras_model(tf, layers, x_shape):
    """(model, loss, x, y): a built Sequential of ``layers``, sparse cross-entropy on
    logits, and a batch of random inputs and labels."""
    tf.random.set_seed(0)
    model = tf.keras.Sequential(layers(tf))
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    rng = np.random.default_rng(0)
    x = tf.constant(rng.random(x_shape, dtype=np.float32))
    y = tf.constant(rng.integers(0, 10, x_shape[0]))
    model(x)
    return model, loss_fn, x, y


def _keras_step(tf, layers, optimizer, x_shape, traced=False):
    """A custom training step (forward, loss, tape gradient, update) in TF's eager API;
    ``traced``: under ``tf.function`` (``fe.function`` for fasteager), traced here."""
    model, loss_fn, x, y = _keras_model(tf, layers, x_shape)
    opt = optimizer(tf)

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    if traced:
        step = tf.function(step)
        step(x, y)
    return lambda: step(x, y)


def _sgd(tf):
    return tf.keras.optimizers.SGD(0.01)


def _adam(tf):
    return tf.keras.optimizers.Adam()


# ---- MLP 784-128-10 training step, batch 32 ----------------------------------------------------
mlp = workload("mlp_train_step", "MLP 784-128-10, batch 32: forward, loss, backward, SGD update")


@mlp.entry("fasteager")
def _(quick):
    return _keras_step(_fasteager(), _mlp_layers, _sgd, (32, 784))


@mlp.entry("torch")
def _(quick):
    torch = _torch()
    model = torch.nn.Sequential(torch.nn.Linear(784, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.rand(32, 784)
    y = torch.randint(0, 10, (32,))

    def run():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return run


# ---- the guide's convnet training step, batch 32 --------------------------------------------
convnet = workload("convnet_train_step",
                   "the guide's convnet (conv16-conv16-GAP-dense10), batch 32, Adam step")


@convnet.entry("fasteager")
def _(quick):
    return _keras_step(_fasteager(), _convnet_layers, _adam, (32, 28, 28, 1))


@convnet.entry("torch")
def _(quick):
    torch = _torch()
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 16, 3), torch.nn.ReLU(),
                                torch.nn.Conv2d(16, 16, 3), torch.nn.ReLU(),
                                torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                                torch.nn.Linear(16, 10))
    opt = torch.optim.Adam(model.parameters())
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.rand(32, 1, 28, 28)
    y = torch.randint(0, 10, (32,))

    def run():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return run


# ---- input pipeline ----------------------------------------------------------------------------
pipeline = workload("dataset_shuffle_batch_epoch",
                    "from_tensor_slices(60000x28x28x1).shuffle(1000).batch(32): one epoch")


def _images(quick):
    n = 6000 if quick else 60000
    rng = np.random.default_rng(0)
    return rng.random((n, 28, 28, 1), dtype=np.float32), rng.integers(0, 10, n)


def _pipeline_run(tf, quick):
    """One epoch of the guide's input pipeline, in TF's API (fasteager's is the same)."""
    x, y = _images(quick)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000).batch(32)

    def run():
        for _ in ds:
            pass
    return run


@pipeline.entry("fasteager")
def _(quick):
    return _pipeline_run(_fasteager(), quick)


@pipeline.entry("tensorflow")
def _(quick):
    return _pipeline_run(_tf(), quick)


@pipeline.entry("torch")
def _(quick):
    torch = _torch()
    x, y = _images(quick)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.from_numpy(x), torch.from_numpy(y)),
        batch_size=32, shuffle=True)

    def run():
        for _ in loader:
            pass
    return run


# ---- fe.function: 100 small ops, and the MLP training step traced --------------------------
chain = workload("function_chain100",
                 "100 small elementwise ops on float32 (64,): fe.function vs eager")


def _chain100(fe_or_torch, x):
    y = x
    for _ in range(25):
        y = fe_or_torch.tanh(y * 0.5 + 0.25) - y * 0.125
    return y


def _traced_chain100(tf):
    """The chain under ``tf.function``: the same code for fasteager and TensorFlow."""
    f = tf.function(lambda x: _chain100(tf, x))
    x = tf.constant(np.linspace(-1, 1, 64, dtype=np.float32))
    f(x)
    return lambda: f(x)


@chain.entry("fasteager")
def _(quick):
    return _traced_chain100(_fasteager())


@chain.entry("fasteager_eager")
def _(quick):
    fe = _fasteager()
    x = fe.constant(np.linspace(-1, 1, 64, dtype=np.float32))
    return lambda: _chain100(fe, x)


@chain.entry("torch")
def _(quick):
    torch = _torch()
    x = torch.linspace(-1, 1, 64)
    return lambda: _chain100(torch, x)


mlp_fn = workload("mlp_train_step_function",
                  "MLP 784-128-10, batch 32, SGD step: fe.function vs eager vs torch")


@mlp_fn.entry("fasteager")
def _(quick):
    return _keras_step(_fasteager(), _mlp_layers, _sgd, (32, 784), traced=True)


@mlp_fn.entry("fasteager_eager")
def _(quick):
    return _keras_step(_fasteager(), _mlp_layers, _sgd, (32, 784))


# the same PyTorch and JAX steps as mlp_train_step's
mlp_fn.entry("torch")(mlp.entries["torch"])


grad_outside = workload("function_grad_outside",
                        "MLP 784-128-10 loss under fe.function, its gradient taken by a tape "
                        "outside (batch 32): traced vs eager vs tf.function")


def _loss_grad_outside(tf, traced):
    """Only the loss is traced; the tape and its gradient stay outside (one piece of code
    for fasteager and TensorFlow)."""
    model, loss_fn, x, y = _keras_model(tf, _mlp_layers, (32, 784))

    def loss(x, y):
        return loss_fn(y, model(x, training=True))
    if traced:
        loss = tf.function(loss)

    def run():
        with tf.GradientTape() as tape:
            value = loss(x, y)
        return tape.gradient(value, model.trainable_variables)
    run()
    return run


@grad_outside.entry("fasteager")
def _(quick):
    return _loss_grad_outside(_fasteager(), True)


@grad_outside.entry("fasteager_eager")
def _(quick):
    return _loss_grad_outside(_fasteager(), False)


# ---- TensorFlow and JAX entries (run only where installed) -----------------------------------

def _tf():
    import os
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    return tf


@mlp.entry("tensorflow")
def _(quick):
    return _keras_step(_tf(), _mlp_layers, _sgd, (32, 784))


@convnet.entry("tensorflow")
def _(quick):
    return _keras_step(_tf(), _convnet_layers, _adam, (32, 28, 28, 1))


@conv.entry("tensorflow")
def _(quick):
    return _conv_run(_tf())


# the fe.function workloads against tf.function and jax.jit
@mlp_fn.entry("tensorflow_function")
def _(quick):
    return _keras_step(_tf(), _mlp_layers, _sgd, (32, 784), traced=True)


@grad_outside.entry("tensorflow_function")
def _(quick):
    return _loss_grad_outside(_tf(), True)


@chain.entry("tensorflow_function")
def _(quick):
    return _traced_chain100(_tf())


@chain.entry("jax_jit")
def _(quick):
    import jax
    import jax.numpy as jnp
    f = jax.jit(lambda x: _chain100(jnp, x))
    x = jnp.linspace(-1, 1, 64, dtype=jnp.float32)
    f(x).block_until_ready()
    return lambda: f(x).block_until_ready()


def _jax_mlp_params(jax, jnp):
    k1, k2 = jax.random.split(jax.random.PRNGKey(0))
    return {"w1": jax.random.normal(k1, (784, 128)) * 0.05, "b1": jnp.zeros(128),
            "w2": jax.random.normal(k2, (128, 10)) * 0.05, "b2": jnp.zeros(10)}


def _jax_mlp_step(jax, jnp):
    def loss(p, x, y):
        h = jax.nn.relu(x @ p["w1"] + p["b1"])
        logits = h @ p["w2"] + p["b2"]
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    def step(p, x, y):
        g = jax.grad(loss)(p, x, y)
        return jax.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g)
    return step


@mlp.entry("jax")
def _(quick):
    import jax
    import jax.numpy as jnp
    params = _jax_mlp_params(jax, jnp)
    step = _jax_mlp_step(jax, jnp)
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.random((32, 784), dtype=np.float32))
    y = jnp.asarray(rng.integers(0, 10, 32))
    state = [params]

    def run():
        state[0] = step(state[0], x, y)
        jax.block_until_ready(state[0])
    return run


@mlp.entry("jax_jit")
def _(quick):
    import jax
    import jax.numpy as jnp
    params = _jax_mlp_params(jax, jnp)
    step = jax.jit(_jax_mlp_step(jax, jnp))
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.random((32, 784), dtype=np.float32))
    y = jnp.asarray(rng.integers(0, 10, 32))
    state = [params]

    def run():
        state[0] = step(state[0], x, y)
        jax.block_until_ready(state[0])
    return run


mlp_fn.entry("jax_jit")(mlp.entries["jax_jit"])


# ---- the guide's linear regression: 300 SGD steps on 2,000 points ------------------------------
linreg = workload("linear_regression_300", "the guide's Linear model: 300 SGD steps, 2000 points")


def _linreg_run(tf):
    """The guide's Linear model trained for 300 SGD steps, in TF's eager API."""
    rng = np.random.default_rng(0)
    xs = tf.constant(rng.standard_normal(2000).astype(np.float32))
    ys = xs * 3 + 2 + tf.constant(rng.standard_normal(2000).astype(np.float32))

    def run():
        w, b = tf.Variable(5.0), tf.Variable(10.0)
        opt = tf.keras.optimizers.SGD(learning_rate=0.01)
        for _ in range(300):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(xs * w + b - ys))
            opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
    return run


@linreg.entry("fasteager")
def _(quick):
    return _linreg_run(_fasteager())


@linreg.entry("torch")
def _(quick):
    torch = _torch()
    rng = np.random.default_rng(0)
    xs = torch.from_numpy(rng.standard_normal(2000).astype(np.float32))
    ys = xs * 3 + 2 + torch.from_numpy(rng.standard_normal(2000).astype(np.float32))

    def run():
        w = torch.tensor(5.0, requires_grad=True)
        b = torch.tensor(10.0, requires_grad=True)
        opt = torch.optim.SGD([w, b], lr=0.01)
        for _ in range(300):
            opt.zero_grad()
            loss = torch.mean(torch.square(xs * w + b - ys))
            loss.backward()
            opt.step()
    return run


@linreg.entry("tensorflow")
def _(quick):
    return _linreg_run(_tf())


# ---- matmul sizes 64 .. 2048 ---------------------------------------------------------------------
for _n in (64, 256, 1024, 2048):
    _m = workload("matmul_%d" % _n, "one %dx%d float32 matmul" % (_n, _n))

    def _m_fe(quick, n=_n):
        fe = _fasteager()
        a = fe.random.normal((n, n))
        return lambda: fe.matmul(a, a)

    def _m_np(quick, n=_n):
        a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
        return lambda: np.matmul(a, a)

    def _m_torch(quick, n=_n):
        torch = _torch()
        a = torch.randn(n, n)
        return lambda: torch.matmul(a, a)
    _m.entry("fasteager")(_m_fe)
    _m.entry("numpy")(_m_np)
    _m.entry("torch")(_m_torch)


# ---- a NumPy program through fasteager.numpy (issue: NumPy embedding) -------------------------

def _np_program(np_mod):
    """A tanh MLP's softmax cross-entropy, written against a NumPy-like module."""
    def loss(w1, w2, x, labels):
        h = np_mod.tanh(np_mod.dot(x, w1))
        logits = np_mod.dot(h, w2)
        z = logits - np_mod.max(logits, axis=1, keepdims=True)
        logp = z - np_mod.log(np_mod.sum(np_mod.exp(z), axis=1, keepdims=True))
        return -np_mod.mean(logp[np_mod.arange(x.shape[0]), labels])
    return loss


def _np_program_data():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((64, 32)) * 0.1, rng.standard_normal((32, 10)) * 0.1,
            rng.standard_normal((128, 64)), rng.integers(0, 10, 128))


numpy_grad = workload("numpy_program_grad",
                      "a NumPy-style tanh MLP loss and its gradients (fasteager.numpy vs autograd)")
numpy_fwd = workload("numpy_program_forward",
                     "the same NumPy program, no tape (fasteager.numpy vs NumPy)")


@numpy_grad.entry("fasteager")
def _(quick):
    fe = _fasteager()
    fnp = fe.numpy
    g = fe.gradients_function(_np_program(fnp), params=[0, 1])
    w1, w2, x, labels = _np_program_data()
    w1, w2, x, labels = fnp.asarray(w1), fnp.asarray(w2), fnp.asarray(x), fnp.asarray(labels)
    return lambda: g(w1, w2, x, labels)


@numpy_grad.entry("autograd")
def _(quick):
    import autograd
    import autograd.numpy as anp
    g = autograd.grad(_np_program(anp), argnum=(0, 1))
    w1, w2, x, labels = _np_program_data()
    return lambda: g(w1, w2, x, labels)


@numpy_fwd.entry("fasteager")
def _(quick):
    fnp = _fasteager().numpy
    f = _np_program(fnp)
    w1, w2, x, labels = _np_program_data()
    w1, w2, x, labels = fnp.asarray(w1), fnp.asarray(w2), fnp.asarray(x), fnp.asarray(labels)
    return lambda: f(w1, w2, x, labels)


@numpy_fwd.entry("numpy")
def _(quick):
    f = _np_program(np)
    w1, w2, x, labels = _np_program_data()
    return lambda: f(w1, w2, x, labels)


# ---- more JAX entries (eager and jitted) ------------------------------------------------------
from .workloads import chain_bwd, dispatch, matmul as _matmul_loop  # noqa: E402


@dispatch.entry("jax_jit")
def _(quick):
    import jax
    import jax.numpy as jnp
    a, b = jnp.ones(1), jnp.ones(1)
    add = jax.jit(lambda u, v: u + v)
    return lambda: add(a, b).block_until_ready()


def _jax_chain(jnp, x):
    y = x
    for _ in range(34):
        y = jnp.tanh(y) * 0.9 + 0.1
    return jnp.sum(y)


@chain_bwd.entry("jax")
def _(quick):
    import jax
    import jax.numpy as jnp
    x = jnp.linspace(-1, 1, 16)
    g = jax.grad(lambda v: _jax_chain(jnp, v))
    return lambda: g(x).block_until_ready()


@chain_bwd.entry("jax_jit")
def _(quick):
    import jax
    import jax.numpy as jnp
    x = jnp.linspace(-1, 1, 16)
    g = jax.jit(jax.grad(lambda v: _jax_chain(jnp, v)))
    return lambda: g(x).block_until_ready()


@_matmul_loop.entry("jax")
def _(quick):
    import jax
    import jax.numpy as jnp
    n, steps = (300, 20) if quick else (1000, 200)
    x0 = jax.random.normal(jax.random.PRNGKey(0), (n, n)) / np.sqrt(n)

    def run():
        x = x0
        for _ in range(steps):
            x = jnp.matmul(x, x)
        x.block_until_ready()
    return run


@_matmul_loop.entry("tensorflow")
def _(quick):
    tf = _tf()
    n, steps = (300, 20) if quick else (1000, 200)
    x0 = tf.random.normal((n, n)) / np.sqrt(n)

    def run():
        x = x0
        for _ in range(steps):
            x = tf.matmul(x, x)
        x.numpy()
    return run


for _wl in [w for w in all_workloads() if w.name == "elementwise_1000000"]:
    def _e_jax(quick):
        import jax.numpy as jnp
        a = jnp.linspace(-1, 1, 1000000, dtype=jnp.float32)
        b = jnp.linspace(1, 2, 1000000, dtype=jnp.float32)
        return lambda: jnp.tanh(a * b + a).block_until_ready()

    def _e_jax_jit(quick):
        import jax
        import jax.numpy as jnp
        a = jnp.linspace(-1, 1, 1000000, dtype=jnp.float32)
        b = jnp.linspace(1, 2, 1000000, dtype=jnp.float32)
        f = jax.jit(lambda u, v: jnp.tanh(u * v + u))
        return lambda: f(a, b).block_until_ready()
    _wl.entry("jax")(_e_jax)
    _wl.entry("jax_jit")(_e_jax_jit)


# ---- fe.function fusion on a large array: 20 elementwise ops on float32 (1_000_000,) ------
chain_large = workload("function_chain_large",
                       "20 elementwise ops on float32 (1_000_000,): fe.function (fused) vs "
                       "eager vs NumPy")


def _chain_large(m, x):
    y = x
    for _ in range(5):
        y = m.tanh(y * 0.5 + 0.25) - y * 0.125
    return y


def _chain_large_x():
    return np.linspace(-1, 1, 1_000_000, dtype=np.float32)


@chain_large.entry("fasteager")
def _(quick):
    fe = _fasteager()
    f = fe.function(lambda x: _chain_large(fe, x))
    x = fe.constant(_chain_large_x())
    f(x)
    return lambda: f(x)


@chain_large.entry("fasteager_eager")
def _(quick):
    fe = _fasteager()
    x = fe.constant(_chain_large_x())
    return lambda: _chain_large(fe, x)


@chain_large.entry("numpy")
def _(quick):
    x = _chain_large_x()
    return lambda: _chain_large(np, x)


# ---- fe.function buffer reuse: large intermediates kept between calls ----------------------
buffers = workload("function_buffers",
                   "sin/cos/log1p/expm1 chain with a bias on float32 (3072, 3072) (36 MB "
                   "unfused intermediates): fe.function with kept buffers vs allocating ones")


def _buffers_chain(m, x, b):
    # float32 sin/cos/log1p/expm1 on large arrays are steps of their own in fe.function
    # (NumPy's SIMD loops), so every intermediate is a full-size array
    log1p = getattr(m, "log1p", None) or m.math.log1p     # TF-style APIs: tf.math.*
    expm1 = getattr(m, "expm1", None) or m.math.expm1
    y = m.cos(m.sin(x) + b) * 0.5
    y = expm1(log1p(m.abs(y))) - b
    return m.reduce_sum(y * y) if hasattr(m, "reduce_sum") else (y * y).sum()


def _buffers_inputs(quick):
    n = 512 if quick else 3072
    rng = np.random.default_rng(0)
    return rng.random((n, n), dtype=np.float32), rng.random(n, dtype=np.float32) + 1


def _fe_buffers(quick, **options):
    fe = _fasteager()
    x, b = (fe.constant(a) for a in _buffers_inputs(quick))
    f = fe.function(lambda x, b: _buffers_chain(fe, x, b), **options)
    f(x, b)
    return lambda: f(x, b)


@buffers.entry("fasteager")
def _(quick):
    return _fe_buffers(quick)


@buffers.entry("fasteager_no_reuse")
def _(quick):
    return _fe_buffers(quick, reuse_buffers=False)


@buffers.entry("numpy")
def _(quick):
    x, b = _buffers_inputs(quick)
    return lambda: _buffers_chain(np, x, b)


@buffers.entry("torch")
def _(quick):
    torch = _torch()
    x, b = (torch.from_numpy(a) for a in _buffers_inputs(quick))
    return lambda: _buffers_chain(torch, x, b).item()


# tf.function and jax.jit on the two large-array fe.function workloads
def _compiled_peers(wl, fn, inputs):
    """Register tensorflow_function and jax_jit entries of ``wl``: ``fn(module, *arrays)``
    on ``inputs(quick)``, traced by tf.function / jax.jit."""
    def tf_entry(quick):
        tf = _tf()
        args = [tf.constant(a) for a in inputs(quick)]
        f = tf.function(lambda *a: fn(tf, *a))
        f(*args)
        return lambda: f(*args)

    def jax_entry(quick):
        import jax
        import jax.numpy as jnp
        args = [jnp.asarray(a) for a in inputs(quick)]
        f = jax.jit(lambda *a: fn(jnp, *a))
        f(*args).block_until_ready()
        return lambda: f(*args).block_until_ready()
    wl.entry("tensorflow_function")(tf_entry)
    wl.entry("jax_jit")(jax_entry)


_compiled_peers(chain_large, _chain_large, lambda quick: [_chain_large_x()])
_compiled_peers(buffers, _buffers_chain, _buffers_inputs)


# ---- coexistence: does importing and using fasteager slow its neighbours? -------------------
# The same NumPy / PyTorch MLP step in a process that imported fasteager and ran its own
# training steps first (ratio base), or only imported it, and in one that never imported
# it. Target: within 5%. Each side is measured in five fresh processes: one process's luck
# (the heap layout NumPy's temporaries land in moves the same NumPy step by 30% from one
# process to the next) would otherwise decide the ratio.
def _numpy_mlp_step():
    """An MLP 784-128-10 SGD step (batch 32) by hand in NumPy."""
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((784, 128)) * 0.05).astype(np.float32)
    w2 = (rng.standard_normal((128, 10)) * 0.05).astype(np.float32)
    b1, b2 = np.zeros(128, np.float32), np.zeros(10, np.float32)
    x = rng.random((32, 784), dtype=np.float32)
    onehot = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 32)]

    def run():
        h = np.maximum(x @ w1 + b1, 0)
        z = h @ w2 + b2
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        dz = (p - onehot) / len(x)
        dh = (dz @ w2.T) * (h > 0)
        w2[...] -= 0.01 * (h.T @ dz)
        b2[...] -= 0.01 * (dz.sum(axis=0))
        w1[...] -= 0.01 * (x.T @ dh)
        b1[...] -= 0.01 * (dh.sum(axis=0))
    return run


def _after_fasteager_work(make_step):
    """Import fasteager and run its convnet and MLP steps, then build the peer's step."""
    fe = _fasteager()
    for step in (_keras_step(fe, _convnet_layers, _adam, (32, 28, 28, 1)),
                 _keras_step(fe, _mlp_layers, _sgd, (32, 784))):
        for _ in range(20):
            step()
    return make_step()


def _torch_mlp_step():
    torch = _torch()
    model = torch.nn.Sequential(torch.nn.Linear(784, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = torch.rand(32, 784), torch.randint(0, 10, (32,))

    def run():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    return run


def _after_import(make_step):
    """Import fasteager (and do nothing with it), then build the peer's step: the
    literal question, does importing fasteager change its neighbours?"""
    _fasteager()
    return make_step()


for _peer, _make in (("numpy", _numpy_mlp_step), ("torch", _torch_mlp_step)):
    for _suffix, _with, _what, _prepare in (
            ("", "after_fasteager", "after fasteager ran in the same process",
             _after_fasteager_work),
            ("_import", "after_import", "in a process that only imported fasteager",
             _after_import)):
        _with = "%s_%s" % (_peer, _with)
        _co = workload("coexist_%s_mlp%s" % (_peer, _suffix),
                       "%s's MLP step %s, vs a process without fasteager (ratio: with / "
                       "without; target <= 1.05)" % (_peer, _what),
                       base=_with, with_fasteager=(_with,), processes=5)
        _co.entry(_with)(lambda quick, _make=_make, _prepare=_prepare: _prepare(_make))
        _co.entry("%s_alone" % _peer)(lambda quick, _make=_make: _make())

# the NumPy floor for the MLP step: the same math by hand, no framework
mlp.entry("numpy_by_hand")(lambda quick: _numpy_mlp_step())


# ---- workloads beyond the guide: a wide-batch MLP, convnet batch scaling, a ResNet -----------
def _torch_step(torch, model, opt, x, y):
    loss_fn = torch.nn.CrossEntropyLoss()

    def run():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    return run


mlp256 = workload("mlp_train_step_b256",
                  "MLP 784-128-10, batch 256: forward, loss, backward, SGD update")
mlp256.entry("fasteager")(
    lambda quick: _keras_step(_fasteager(), _mlp_layers, _sgd, (256, 784)))


@mlp256.entry("torch")
def _(quick):
    torch = _torch()
    model = torch.nn.Sequential(torch.nn.Linear(784, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 10))
    return _torch_step(torch, model, torch.optim.SGD(model.parameters(), lr=0.01),
                       torch.rand(256, 784), torch.randint(0, 10, (256,)))


def _torch_convnet(torch):
    return torch.nn.Sequential(torch.nn.Conv2d(1, 16, 3), torch.nn.ReLU(),
                               torch.nn.Conv2d(16, 16, 3), torch.nn.ReLU(),
                               torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                               torch.nn.Linear(16, 10))


for _batch in (8, 128):
    _cb = workload("convnet_train_step_b%d" % _batch,
                   "the guide's convnet, batch %d, Adam step (batch 32: convnet_train_step)"
                   % _batch)
    _cb.entry("fasteager")(lambda quick, _b=_batch: _keras_step(
        _fasteager(), _convnet_layers, _adam, (_b, 28, 28, 1)))

    def _cb_torch(quick, _b=_batch):
        torch = _torch()
        model = _torch_convnet(torch)
        return _torch_step(torch, model, torch.optim.Adam(model.parameters()),
                           torch.rand(_b, 1, 28, 28), torch.randint(0, 10, (_b,)))
    _cb.entry("torch")(_cb_torch)


def _keras_resnet(tf):
    """A small ResNet (CIFAR-style) in TF's Keras API: a 3x3 stem, three stages of one
    BasicBlock each (16, 32, 64 channels; stride 2 and a 1x1 projection from stage 2 on),
    global average pooling, a 10-way Dense. BatchNorm after every convolution."""
    layers = tf.keras.layers

    class BasicBlock(tf.keras.layers.Layer):
        def __init__(self, channels, stride):
            super().__init__()
            self.conv1 = layers.Conv2D(channels, 3, strides=stride, padding="same",
                                       use_bias=False)
            self.bn1 = layers.BatchNormalization()
            self.conv2 = layers.Conv2D(channels, 3, padding="same", use_bias=False)
            self.bn2 = layers.BatchNormalization()
            self.proj = None
            if stride != 1:
                self.proj = layers.Conv2D(channels, 1, strides=stride, use_bias=False)
                self.proj_bn = layers.BatchNormalization()

        def call(self, x, training=None):
            h = tf.nn.relu(self.bn1(self.conv1(x), training=training))
            h = self.bn2(self.conv2(h), training=training)
            skip = x if self.proj is None else self.proj_bn(self.proj(x), training=training)
            return tf.nn.relu(h + skip)

    class ResNet(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.stem = layers.Conv2D(16, 3, padding="same", use_bias=False)
            self.stem_bn = layers.BatchNormalization()
            self.blocks = [BasicBlock(16, 1), BasicBlock(32, 2), BasicBlock(64, 2)]
            self.pool = layers.GlobalAveragePooling2D()
            self.head = layers.Dense(10)

        def call(self, x, training=None):
            h = tf.nn.relu(self.stem_bn(self.stem(x), training=training))
            for block in self.blocks:
                h = block(h, training=training)
            return self.head(self.pool(h))
    return ResNet()


def _keras_resnet_step(tf, batch):
    tf.random.set_seed(0)
    model = _keras_resnet(tf)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = tf.keras.optimizers.SGD(0.01, momentum=0.9)
    rng = np.random.default_rng(0)
    x = tf.constant(rng.random((batch, 32, 32, 3), dtype=np.float32))
    y = tf.constant(rng.integers(0, 10, batch))
    model(x, training=True)

    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
    return step


def _torch_resnet(torch):
    nn = torch.nn

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.proj = None
            if stride != 1:
                self.proj = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

        def forward(self, x):
            h = torch.relu(self.bn1(self.conv1(x)))
            h = self.bn2(self.conv2(h))
            return torch.relu(h + (x if self.proj is None else self.proj(x)))

    return nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                         BasicBlock(16, 16, 1), BasicBlock(16, 32, 2), BasicBlock(32, 64, 2),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


resnet = workload("resnet_train_step",
                  "ResNet-style CNN on 32x32x3 (stem + 3 BasicBlocks with BatchNorm, 16-32-64 "
                  "channels), batch 64, SGD momentum step")
resnet.entry("fasteager")(lambda quick: _keras_resnet_step(_fasteager(), 16 if quick else 64))


@resnet.entry("torch")
def _(quick):
    torch = _torch()
    torch.manual_seed(0)
    model = _torch_resnet(torch)
    batch = 16 if quick else 64
    return _torch_step(torch, model, torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9),
                       torch.rand(batch, 3, 32, 32), torch.randint(0, 10, (batch,)))


@resnet.entry("tensorflow")
def _(quick):
    return _keras_resnet_step(_tf(), 16 if quick else 64)
