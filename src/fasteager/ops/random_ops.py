"""Random numbers (``fe.random``): reproducible given seeds, as TensorFlow's rules.

* ``fe.random.set_seed(s)`` fixes the global seed: the sequence of random ops after it
  is reproducible.
* An op-level ``seed`` with a global seed gives a stream per (global, op) seed pair:
  calling the same op again continues that stream (as TensorFlow does).
* ``fe.random.Generator`` and the ``stateless_*`` ops are counter-based: their whole state
  is a small int64 array, and they give TensorFlow's numbers (``_philox``: TensorFlow's
  Philox4x32-10 and its conversions).
NumPy's PCG64 generates the bits of the global and op-seeded ops (not TensorFlow's
numbers: its op seeds depend on how many ops its context has made).
"""
import itertools
import threading
import weakref

import numpy as np

from .. import _core
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError
from . import _philox
from .elementwise_ops import add, multiply, subtract
from .registry import as_shape, check_output_size, defop, moved_names

_DEFAULT_GLOBAL_SEED = 87654321
_lock = threading.Lock()
_global_seed = None
_global_rng = np.random.default_rng()
_op_streams = {}
_op_counter = 0


def _draw_shape(opname, shape):
    """A draw's shape as ints, checked as every shape-producing op's output is
    (``check_output_size``; the draws fill float64 buffers of that shape)."""
    dims = as_shape(opname, shape)
    check_output_size(opname, dims, np.float64, "shape")
    return dims

def set_seed(seed):
    """Set the global seed: random ops after this call are reproducible."""
    global _global_seed, _global_rng, _op_counter
    with _lock:
        _global_seed = None if seed is None else int(seed)
        _global_rng = np.random.default_rng(_global_seed)
        _op_streams.clear()
        _op_counter = 0


def get_global_seed():
    return _global_seed


def _rng_for(seed, replayed=False):
    """The generator an op with op-level ``seed`` draws from (``replayed``: by a step
    fe.function runs on every call, see ``draw_seed``)."""
    global _op_counter
    tracer = _core.get_tracer()
    if tracer is not None and not replayed:
        tracer.random_draw()     # fe.function cannot replay a fresh draw: it runs eagerly
    if seed is None:
        return _global_rng
    with _lock:
        g = _DEFAULT_GLOBAL_SEED if _global_seed is None else _global_seed
        key = (g, int(seed))
        rng = _op_streams.get(key)
        if rng is None:
            rng = _op_streams[key] = np.random.default_rng([g & 0xFFFFFFFF, int(seed) & 0xFFFFFFFF])
        return rng


def draw_seed(seed):
    """A step for ``fe.function`` traces (``_Tracer.random_seed``): each call draws a new
    seed from the generator an op with op-level ``seed`` draws from (taken anew at each
    call, so ``set_seed`` applies to later calls)."""
    def draw():
        return (_rng_for(seed, replayed=True).integers(0, 2 ** 63 - 1, size=2,
                                                       dtype=np.int64),)
    return draw


def _float_dtype(opname, dtype):
    d = as_dtype(np.float32 if dtype is None else dtype)._np
    if d.kind != "f":
        raise InvalidArgumentError("%s: dtype must be floating (got %s)" % (opname, d))
    return d


def _scalar(v):
    return np.asarray(v).astype(np.float64) if isinstance(v, (_core.Tensor, np.ndarray)) else v


def _is_tensor(v):
    return isinstance(v, (_core.Tensor, _core.VariableBase))


def _affine(opname, z, scale, shift, d):
    """``z * scale + shift`` in dtype ``d``: through fasteager ops (so gradients reach
    them, as in TensorFlow) when ``scale`` or ``shift`` is a tensor, else in NumPy, in
    the precision of ``z`` (``d`` for Philox draws, as TensorFlow's ops compute it)."""
    if _is_tensor(scale) or _is_tensor(shift):
        t = _core.wrap(z.astype(d, copy=False))
        return add(multiply(t, _core.convert_to_tensor(scale, d)),
                            _core.convert_to_tensor(shift, d))
    out = z * np.asarray(_scalar(scale), z.dtype) + np.asarray(_scalar(shift), z.dtype)
    return _core.wrap(np.asarray(out).astype(d, copy=False))


class _NumpySource:
    """Samples from a NumPy Generator (the global and op-seeded ops), in float64."""

    def __init__(self, rng):
        self.rng = rng

    def normal(self, dims, d):
        return self.rng.standard_normal(dims, dtype=np.float64)

    def uniform(self, dims, d):
        return self.rng.random(dims, dtype=np.float64)

    def truncated_normal(self, dims, d):
        # redraw values beyond two standard deviations, as TensorFlow does
        out = self.rng.standard_normal(dims)
        bad = np.abs(out) > 2
        while bad.any():
            out[bad] = self.rng.standard_normal(int(bad.sum()))
            bad = np.abs(out) > 2
        return np.asarray(out)

    def uniform_int(self, dims, d, lo, hi):
        return self.rng.integers(lo, hi, size=dims, dtype=d)

    def full_int(self, dims, d):
        info = np.iinfo(d)
        return self.rng.integers(info.min, info.max, size=dims, dtype=d, endpoint=True)

    def numpy_rng(self):
        return self.rng


class _PhiloxSource:
    """Samples at a Philox key and counter, as TensorFlow's kernels draw them
    (``_philox``), in the output dtype."""

    def __init__(self, key, counter):
        self.key, self.counter = key, counter

    def _draw(self, fn, dims, d, *args):
        return fn(self.key, self.counter, int(np.prod(dims, dtype=np.int64)), d,
                  *args).reshape(dims)

    def normal(self, dims, d):
        return self._draw(_philox.normal, dims, d)

    def uniform(self, dims, d):
        return self._draw(_philox.uniform, dims, d)

    def truncated_normal(self, dims, d):
        return self._draw(_philox.truncated_normal, dims, d)

    def uniform_int(self, dims, d, lo, hi):
        return self._draw(_philox.uniform_int, dims, d, lo, hi)

    def full_int(self, dims, d):
        return self._draw(_philox.full_int, dims, d)

    def numpy_rng(self):
        """A NumPy generator at this key and counter, for the distribution TensorFlow's
        way of sampling is not reproduced for (poisson)."""
        key = self.key[0] | self.key[1] << 32
        c = self.counter
        return np.random.Generator(np.random.Philox(
            key=[key, 0], counter=[c[0] | c[1] << 32, c[2] | c[3] << 32, 0, 0]))


def _source(rng):
    return rng if isinstance(rng, (_NumpySource, _PhiloxSource)) else _NumpySource(rng)


def _normal(src, shape, mean, stddev, dtype, opname="random.normal"):
    d = _float_dtype(opname, dtype)
    z = _source(src).normal(_draw_shape(opname, shape), d)
    return _affine(opname, z, stddev, mean, d)


_INT_DTYPES = (np.int32, np.int64, np.uint32, np.uint64)


def _uniform(src, shape, minval, maxval, dtype, opname="random.uniform"):
    src = _source(src)
    d = as_dtype(np.float32 if dtype is None else dtype)._np
    dims = _draw_shape(opname, shape)
    if d.kind in "iu":
        if maxval is None:
            raise InvalidArgumentError("%s: maxval must be specified for integer dtype %s"
                                       % (opname, d))
        if d not in _INT_DTYPES:
            raise InvalidArgumentError("%s: integer dtype must be int32, int64, uint32 or "
                                       "uint64 (got %s)" % (opname, d))
        lo, hi = int(_scalar(minval)), int(_scalar(maxval))
        if lo >= hi:
            raise InvalidArgumentError("%s: need minval < maxval (got %d >= %d)"
                                       % (opname, lo, hi))
        return _core.wrap(src.uniform_int(dims, d, lo, hi))
    if d.kind != "f":
        raise InvalidArgumentError("%s: dtype must be float or int (got %s)" % (opname, d))
    hi = 1.0 if maxval is None else maxval
    u = src.uniform(dims, d)
    if _is_tensor(hi) or _is_tensor(minval):
        lo_t, hi_t = _core.convert_to_tensor(minval, d), _core.convert_to_tensor(hi, d)
        return _affine(opname, u, subtract(hi_t, lo_t), lo_t, d)
    span = np.asarray(_scalar(hi), u.dtype) - np.asarray(_scalar(minval), u.dtype)
    return _affine(opname, u, span, minval, d)


def _truncated_normal(src, shape, mean, stddev, dtype, opname="random.truncated_normal"):
    d = _float_dtype(opname, dtype)
    z = _source(src).truncated_normal(_draw_shape(opname, shape), d)
    return _affine(opname, z, stddev, mean, d)


def _categorical(src, logits, num_samples, dtype, opname="random.categorical"):
    src = _source(src)
    raw = np.asarray(_core.data_of(_core.convert_to_tensor(logits), opname + " logits"))
    if raw.ndim != 2:
        raise InvalidArgumentError("%s: logits must be 2-D (got shape %s)"
                                   % (opname, list(raw.shape)))
    if isinstance(src, _PhiloxSource):
        out = _inverse_cdf_samples(src, raw, int(num_samples))
    else:
        # Gumbel-max: argmax(logits + Gumbel noise) is a sample from softmax(logits)
        lg = raw.astype(np.float64)
        gumbel = -np.log(-np.log(src.rng.random((lg.shape[0], int(num_samples),
                                                 lg.shape[1]))))
        out = np.argmax(lg[:, None, :] + gumbel, axis=-1)
    return _core.wrap(out.astype(as_dtype(np.int64 if dtype is None else dtype)._np))


def _inverse_cdf_samples(src, raw, num_samples):
    """TensorFlow's CPU multinomial kernel: per row, the running sums of
    exp(logit - max) over the finite logits, and for each sample the first class whose
    sum exceeds a uniform float64 times the total; the uniforms are one stream over the
    rows (TensorFlow's numbers when its kernel runs as one shard, as small draws do)."""
    batch, classes = raw.shape
    finite = np.isfinite(raw)
    lowest = np.finfo(raw.dtype).min if raw.dtype.kind == "f" else np.iinfo(raw.dtype).min
    top = np.where(finite, raw, lowest).max(axis=1, initial=lowest).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        weights = np.exp(raw.astype(np.float64) - top[:, None])
    weights[~finite] = 0.0
    cdf = np.cumsum(weights, axis=1)
    u = src.uniform((batch, num_samples), np.dtype(np.float64))
    out = np.empty((batch, num_samples), np.int64)
    for row in range(batch):
        out[row] = np.searchsorted(cdf[row], u[row] * cdf[row, -1], side="right")
    return out


_DISTRIBUTIONS = {"normal": _normal, "uniform": _uniform,
                  "truncated_normal": _truncated_normal}


def _from_key_fwd(key, dist, shape, params, dtype):
    """A draw of ``dist`` from the NumPy generator seeded by ``key`` (two int64 words):
    the replayed form of a global-seed draw inside fe.function (see ``_replayed_draw``)."""
    words = np.asarray(key).reshape(-1)
    if words.size != 2 or words.dtype.kind not in "iu":
        raise InvalidArgumentError("random_from_key: key must hold 2 integers (got %s of %d)"
                                   % (words.dtype, words.size))
    rng = np.random.default_rng([int(w) & 0xFFFFFFFFFFFFFFFF for w in words])
    with _core.no_tracer():   # the kernel's own arrays are not graph tensors
        return np.asarray(_DISTRIBUTIONS[dist](rng, shape, *params, dtype)._value)


# fe.random.normal/uniform/truncated_normal inside fe.function: a draw from a seed that a
# step of the graph takes anew on every call (deterministic in the key)
random_from_key = defop("random_from_key", _from_key_fwd, kinds="iu", same_dtype=False,
                        nin=1, attrs=("dist", "shape", "params", "dtype"),
                        no_grad="random samples: no gradient with respect to the key")


def _replayed_draw(dist, shape, params, dtype, seed):
    """The draw as a graph op when tracing (top level, Python parameters), else None
    (eager; or a trace that then runs eagerly). A shape tensor is read as numbers: one
    taken from an input's shape (``fe.shape(x)``) ties the trace to its sizes, one from
    values makes the function run eagerly (_src/tracing/tracer.py, ``_Tracer.escape``)."""
    tracer = _core.get_tracer()
    if tracer is None or tracer.parent is not None or not all(
            _is_attr(p) for p in params):
        return None
    dims = _draw_shape("random." + dist, shape)
    d = None if dtype is None else as_dtype(dtype).name
    params = tuple(p.item() if isinstance(p, np.generic) else p for p in params)
    key = tracer.random_seed(draw_seed(seed))
    return _core.execute(random_from_key, (key,),
                         {"dist": dist, "shape": tuple(dims), "params": params, "dtype": d})


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None, name=None):
    """Samples from N(mean, stddev^2) (float32 by default)."""
    out = _replayed_draw("normal", shape, (mean, stddev), dtype, seed)
    return out if out is not None else _normal(_rng_for(seed), shape, mean, stddev, dtype)


def uniform(shape, minval=0, maxval=None, dtype=None, seed=None, name=None):
    """Samples from U[minval, maxval) (maxval defaults to 1 for floats)."""
    out = _replayed_draw("uniform", shape, (minval, maxval), dtype, seed)
    return out if out is not None else _uniform(_rng_for(seed), shape, minval, maxval, dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None, name=None):
    """Normal samples, redrawn when more than two standard deviations from the mean."""
    out = _replayed_draw("truncated_normal", shape, (mean, stddev), dtype, seed)
    return out if out is not None else _truncated_normal(_rng_for(seed), shape, mean,
                                                         stddev, dtype)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Draw class indices from unnormalised log-probabilities ``logits`` of shape (batch, K)."""
    return _categorical(_rng_for(seed), logits, num_samples, dtype)


def shuffle(value, seed=None, name=None):
    """A random permutation along the first axis."""
    x = _core.convert_to_tensor(value)
    if x._value.ndim == 0:
        raise InvalidArgumentError("random.shuffle: value must have rank >= 1")
    perm = _rng_for(seed).permutation(x._value.shape[0])
    return _core.wrap(x._value[perm])


# ---- counter-based generators: fe.random.Generator and the stateless ops -------------------
# A Philox stream is fully described by (key, counter): the Generator's state is an int64
# Variable [counter_lo, counter_hi, key] (TensorFlow's layout for Philox), read before and
# written after every draw, so checkpointing that variable makes later draws repeat. A draw
# of n values samples at the state's key and counter exactly as TensorFlow's kernels do
# (``_philox``) and advances the counter by 256 * n Philox steps, as TensorFlow does.

class Algorithm:
    """RNG algorithm ids, as ``tf.random.Algorithm``. As in TensorFlow outside XLA, only
    Philox draws: a ThreeFry generator or stateless op raises at its first draw."""
    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_ALG_NAMES = {"philox": Algorithm.PHILOX, "threefry": Algorithm.THREEFRY,
              "auto_select": Algorithm.AUTO_SELECT}
_STATE_SIZE = 3
_U32 = 0xFFFFFFFF
_U64 = (1 << 64) - 1


def _alg_id(alg, opname, default=Algorithm.AUTO_SELECT):
    if alg is None:
        return default
    if isinstance(alg, str):
        key = alg.lower()
        if key in _ALG_NAMES:
            return _ALG_NAMES[key]
    elif isinstance(alg, (int, np.integer)) and int(alg) in (1, 2, 3):
        return int(alg)
    elif getattr(alg, "value", None) in (1, 2, 3):
        return int(alg.value)
    raise InvalidArgumentError("%s: unknown RNG algorithm %r (expected 'philox', 'threefry', "
                               "'auto_select' or a tf.random.Algorithm)" % (opname, alg))


def _seed_words(opname, seed):
    """An int (or 1-D ints) seed -> unsigned 64-bit words (two's complement)."""
    arr = np.asarray(_core.data_of(seed, opname + " seed") if _is_tensor(seed) else seed)
    if arr.dtype.kind not in "iu" or arr.ndim > 1:
        raise InvalidArgumentError("%s: seed must be an integer or a 1-D array of integers "
                                   "(got %s of dtype %s)" % (opname, list(arr.shape), arr.dtype))
    return [int(x) & _U64 for x in arr.reshape(-1).tolist()]


def _as_signed(words):
    return np.array([w - (1 << 64) if w >> 63 else w for w in words], np.int64)


def _rng_state(seed, alg, opname="create_rng_state"):
    """TensorFlow's state for ``seed``: a Python int cut into 64-bit words (lowest first);
    integers arrays keep their first words, padded with zeros on the left (the zeros are
    the counter, the seed the key)."""
    _alg_id(alg, opname)
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        seed = int(seed)
        return _as_signed([(seed >> (64 * i)) & _U64 for i in range(_STATE_SIZE)])
    words = _seed_words(opname, seed)[:_STATE_SIZE]
    return _as_signed([0] * (_STATE_SIZE - len(words)) + words)


def create_rng_state(seed, alg):
    """The int64 state (shape [3]) a Generator of ``alg`` seeded with ``seed`` starts
    from: ``create_rng_state(1, "philox")`` is ``[1, 0, 0]``."""
    return _core.wrap(_rng_state(seed, alg))


def _split_words(words):
    """State words (counter low, counter high, key) -> (key, counter) in 32-bit words."""
    lo, hi, key = words
    return (key & _U32, key >> 32), (lo & _U32, lo >> 32, hi & _U32, hi >> 32)


def _check_philox(alg, opname, error=InvalidArgumentError):
    if alg == Algorithm.THREEFRY:
        raise error("%s: the ThreeFry algorithm is not supported outside XLA (as in "
                    "TensorFlow); use 'philox' or 'auto_select'" % opname)


def _stateless_source(opname, seed, alg):
    """The Philox key and counter of a stateless op: TensorFlow's scrambling of the seed
    pair (shape [2] ints), the same for 'philox' and 'auto_select'."""
    _check_philox(_alg_id(alg, opname), opname)
    words = _seed_words(opname, seed)
    if len(words) != 2:
        raise InvalidArgumentError("%s: seed must have shape [2] (got %d values)"
                                   % (opname, len(words)))
    # (a traced fe.function may capture the values as a constant: they depend only on the
    # seed, and a seed computed from the function's inputs was reported by data_of)
    return _PhiloxSource(*_philox.scramble_seed(*words))


# ---- replica streams: how a strategy's replicas draw --------------------------------------
# fe.distribute installs these (set_replica_hooks) when it loads; nothing here imports it.
# creating_strategy() -> the strategy a new Generator belongs to (None outside one);
# replica_stream(gen, traced=False) -> None (draw from the generator's own state) or the
# replica's stream (read(state) -> (lo, hi, key), write(lo, hi), .traced).
_replica_hooks = {"creating_strategy": lambda: None,
                  "replica_stream": lambda gen, traced=False: None}


def set_replica_hooks(creating_strategy, replica_stream):
    """Install the distribution layer's answers (see above)."""
    _replica_hooks["creating_strategy"] = creating_strategy
    _replica_hooks["replica_stream"] = replica_stream


def creating_strategy():
    return _replica_hooks["creating_strategy"]()


def replica_stream(gen, traced=False):
    return _replica_hooks["replica_stream"](gen, traced)


def _count(args):
    """How many values a draw with shape ``args[0]`` makes (its counter advance)."""
    return int(np.prod(as_shape(args[-1], args[0]), dtype=np.int64))


_generator_tokens = itertools.count(1)
_generators = weakref.WeakValueDictionary()   # token -> Generator (a traced draw's stream)


def _advance(words, stream, fn, count):
    """``fn(_PhiloxSource)`` at state ``words`` (counter lo, counter hi, key): (result, the
    new int64 state to store, or None when a replica ``stream`` keeps it)."""
    lo, hi, key = words
    if stream is not None:
        lo, hi, key = stream.read((lo, hi, key))
    philox_key, counter = _split_words((lo, hi, key))
    result = fn(_PhiloxSource(philox_key, counter))
    c = _philox.skip(counter, count * _philox.RESERVED_SAMPLES_PER_OUTPUT)
    lo, hi = c[0] | c[1] << 32, c[2] | c[3] << 32
    if stream is not None:
        stream.write(lo, hi)
        return result, _as_signed([lo, hi, words[2]]) if stream.traced else None
    return result, _as_signed([lo, hi, key])


def _shape_attr(shape):
    """A Python shape as a tuple of ints (a graph attribute); a tensor stays as it is."""
    if isinstance(shape, (list, tuple)) and all(isinstance(d, (int, np.integer))
                                                for d in shape):
        return tuple(int(d) for d in shape)
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return shape


def _is_attr(value):
    if value is None or isinstance(value, (bool, int, float, str, np.generic, np.dtype)):
        return True
    if isinstance(value, tuple):
        return all(isinstance(d, int) for d in value)
    return (isinstance(value, type) and issubclass(value, np.generic)) or \
        type(value).__name__ == "DType"


def _draw_fwd(state, method, args, stream):
    words = [int(x) & _U64 for x in np.asarray(state).reshape(-1).tolist()]
    if len(words) != _STATE_SIZE:
        raise InvalidArgumentError("generator_draw: state must be %d integers (got %d)"
                                   % (_STATE_SIZE, len(words)))
    gen = _generators.get(stream)
    replica = replica_stream(gen, traced=True) if gen is not None else None
    draw = _DRAWS[method]
    with _core.no_tracer():   # the kernel's own arrays are not graph tensors
        count = (_binomial_count if method == "binomial" else _count)(args)
        result, new_state = _advance(words, replica, lambda r: draw(r, *args), count)
    return np.asarray(result._value), new_state


# a Generator draw inside fe.function: the samples and the advanced state, from the state
generator_draw = defop("generator_draw", _draw_fwd, kinds="iu", same_dtype=False, multi=True,
                       nin=1, attrs=("method", "args", "stream"),
                       no_grad="random samples: no gradient with respect to the state")


def _full_int(src, shape, dtype, opname):
    d = as_dtype(dtype)._np
    if d not in _INT_DTYPES:
        raise InvalidArgumentError("%s: dtype must be int32, int64, uint32 or uint64 (got %s)"
                                   % (opname, d))
    return _core.wrap(_source(src).full_int(_draw_shape(opname, shape), d))


def _binomial_parts(opname, shape, counts, probs):
    """(dims, counts [batch], probs [batch], samples per batch member) as TensorFlow's
    binomial kernel sees them: counts and probs in one float dtype (float32 for Python
    numbers), broadcast together; the shape must end with that broadcast shape."""
    dims = _draw_shape(opname, shape)
    p = np.asarray(_scalar(probs) if not _is_tensor(probs) else _core.data_of(probs, opname))
    n = np.asarray(_scalar(counts) if not _is_tensor(counts) else _core.data_of(counts,
                                                                                opname))
    kind = p.dtype if _is_tensor(probs) and p.dtype.kind == "f" else (
        n.dtype if _is_tensor(counts) and n.dtype.kind == "f" else np.dtype(np.float32))
    try:
        batch_shape = np.broadcast_shapes(n.shape, p.shape)
    except ValueError:
        raise InvalidArgumentError("%s: counts and probs must have compatible batch dimensions"
                                   ": %s vs. %s" % (opname, list(n.shape), list(p.shape))) from None
    if len(batch_shape) > len(dims) or tuple(dims[len(dims) - len(batch_shape):]) != batch_shape:
        raise InvalidArgumentError("%s: shape %s must end with the broadcast shape %s of "
                                   "counts and probs" % (opname, list(dims), list(batch_shape)))
    per_member = int(np.prod(dims[:len(dims) - len(batch_shape)], dtype=np.int64))
    flat = [np.broadcast_to(x.astype(kind), batch_shape).reshape(-1) for x in (n, p)]
    return dims, flat[0], flat[1], per_member


def _binomial(src, shape, counts, probs, dtype, opname):
    """TensorFlow's binomial sampler (inversion, or BTRS for count * prob >= 10)."""
    d = as_dtype(dtype)._np
    dims, n, p, per_member = _binomial_parts(opname, shape, counts, probs)
    out = _philox.binomial(src.key, src.counter, n, p, per_member)
    with np.errstate(invalid="ignore"):
        return _core.wrap(out.reshape(dims).astype(d))


def _binomial_count(args):
    """TensorFlow's counter advance for a binomial draw: 256 steps per
    50 * batch * (samples per member + 3) values."""
    _, n, _, per_member = _binomial_parts(args[-1], args[0], args[1], args[2])
    return n.shape[0] * 2 * 100 * (per_member + 3) // 4


_DRAWS = {"normal": _normal, "truncated_normal": _truncated_normal, "uniform": _uniform,
          "uniform_full_int": _full_int, "binomial": _binomial}

# ---- stateless ops: the same seed pair gives the same values ------------------------------
# TensorFlow's values for 'philox' and 'auto_select': the seed pair is scrambled into a Philox
# key and counter (``_stateless_source``) and sampled there. Poisson draws are reproducible
# functions of the seed, but not TensorFlow's values.

def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=np.float32, name=None,
                     alg="auto_select"):
    """N(mean, stddev^2) samples that depend only on ``seed`` (shape [2] ints) and shape."""
    return _normal(_stateless_source("stateless_normal", seed, alg), shape, mean, stddev,
                   dtype, "stateless_normal")


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=np.float32, name=None,
                               alg="auto_select"):
    """Normal samples within two standard deviations of the mean, from ``seed`` alone."""
    return _truncated_normal(_stateless_source("stateless_truncated_normal", seed, alg),
                             shape, mean, stddev, dtype, "stateless_truncated_normal")


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=np.float32, name=None,
                      alg="auto_select"):
    """U[minval, maxval) samples that depend only on ``seed``. Integer dtypes need both
    bounds, or neither (the full range), as in TensorFlow."""
    src = _stateless_source("stateless_uniform", seed, alg)
    if as_dtype(dtype)._np.kind in "iu":
        if minval is None and maxval is None:
            return _full_int(src, shape, dtype, "stateless_uniform")
        if minval is None or maxval is None:
            raise InvalidArgumentError("stateless_uniform: integer dtypes need both minval and "
                                       "maxval, or neither (got minval=%r, maxval=%r)"
                                       % (minval, maxval))
    return _uniform(src, shape, minval, maxval, dtype, "stateless_uniform")


def stateless_categorical(logits, num_samples, seed, dtype=np.int64, name=None):
    return _categorical(_stateless_source("stateless_categorical", seed, None), logits,
                        num_samples, dtype, "stateless_categorical")


def stateless_binomial(shape, seed, counts, probs, output_dtype=np.int32, name=None):
    """Binomial samples from ``seed`` alone (TensorFlow's sampler)."""
    return _binomial(_stateless_source("stateless_binomial", seed, None), shape, counts, probs,
                     output_dtype, "stateless_binomial")


def stateless_poisson(shape, seed, lam, dtype=np.int32, name=None):
    rng = _stateless_source("stateless_poisson", seed, None).numpy_rng()
    lam = np.asarray(_scalar(lam), np.float64)
    if (lam < 0).any():
        raise InvalidArgumentError("stateless_poisson: lam must be >= 0")
    out = rng.poisson(np.broadcast_to(lam, _draw_shape("stateless_poisson", shape)))
    return _core.wrap(out.astype(as_dtype(dtype)._np))


def _int_dtype_of(value):
    """The dtype TensorFlow gives an integer argument (a Python int or list: int32)."""
    return _core.convert_to_tensor(value).dtype


def stateless_split(seed, num=2, alg="auto_select"):
    """``num`` new seed pairs (shape [num, 2], the seed's dtype: int32 for a Python list),
    full-range integers drawn with ``seed``, as in TensorFlow."""
    return stateless_uniform([int(num), 2], seed, minval=None, maxval=None,
                             dtype=_int_dtype_of(seed), alg=alg)


def stateless_fold_in(seed, data, alg="auto_select"):
    """A new seed pair ``[x, data]`` (``data``'s dtype) where ``x`` is a full-range integer
    drawn with ``seed``, as in TensorFlow."""
    d = _int_dtype_of(data)
    values = _seed_words("stateless_fold_in", data)
    if np.ndim(_core.data_of(_core.convert_to_tensor(data), "stateless_fold_in data")) != 0:
        raise InvalidArgumentError("stateless_fold_in: data must be one integer (got %d "
                                   "values)" % len(values))
    first = stateless_uniform([], seed, minval=None, maxval=None, dtype=d, alg=alg).numpy()
    return _core.wrap(np.array([first, _core.convert_to_tensor(data, d).numpy()], d._np))


# fe.random.Generator lived here until the state layer took it: the old path warns for one
# release
__getattr__ = moved_names(__name__, dict.fromkeys(
    ("Generator", "get_global_generator", "set_global_generator"),
    "fasteager.random"))
