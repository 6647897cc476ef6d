"""``fe.random.Generator``: a counter-based random stream whose state is a Variable, and
the process's global generator.

A Philox stream is fully described by (key, counter): the Generator's state is an int64
Variable [counter_lo, counter_hi, key] (TensorFlow's layout for Philox), read before and
written after every draw, so checkpointing that variable makes later draws repeat. The
samplers, the state arithmetic and the ``generator_draw`` op (a draw inside
``fe.function``) are in ``ops.random_ops``; this module adds the state, which lives in
a Variable (the state layer). A generator made under a distribution strategy draws one
stream per replica through the replica hooks that ``fe.distribute`` installs in
``ops.random_ops``.
"""
import secrets
import threading

import numpy as np

from ... import _core
from ...dtypes import as_dtype
from ...errors import InvalidArgumentError, UnimplementedError
from ...ops import _philox
from ...ops.array_ops import stack, zeros_like
from ...ops.random_ops import (_STATE_SIZE, _U64, Algorithm, _advance, _alg_id, _as_signed,
                               _binomial, _binomial_count, _categorical, _check_philox, _count,
                               _full_int, _generator_tokens, _generators, _is_attr, _normal,
                               _rng_state, _shape_attr, _split_words, _truncated_normal,
                               _uniform, creating_strategy, generator_draw, replica_stream)
from .variables import Variable


class Generator:
    """A random stream with its state in a Variable (checkpointable, as TensorFlow's).

    >>> g = fe.random.Generator.from_seed(1)
    >>> g.normal(shape=[2, 3]).shape
    TensorShape([2, 3])
    """
    __module__ = "fasteager.ops.random_ops"   # where it was defined before (printed types)

    def __init__(self, copy_from=None, state=None, alg=None):
        self._lock = threading.Lock()
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("Generator: give copy_from or state/alg, not both")
            state, alg = copy_from.state.numpy(), copy_from.algorithm
        if state is None:
            raise ValueError("Generator: give a state (or use Generator.from_seed, "
                             "from_non_deterministic_state, from_state or from_key_counter)")
        self._alg = _alg_id(alg, "Generator", Algorithm.PHILOX)
        self._state_var = Variable(self._checked_state(state, "Generator"), trainable=False)
        # made under a MirroredStrategy: each replica of its run draws its own stream
        self._strategy = creating_strategy()
        self._token = next(_generator_tokens)   # how a traced draw finds its generator
        _generators[self._token] = self

    @staticmethod
    def _checked_state(state, opname):
        arr = np.asarray(state.numpy() if hasattr(state, "numpy") else state)
        if arr.dtype.kind not in "iu" or arr.shape != (_STATE_SIZE,):
            raise InvalidArgumentError("%s: state must be %d integers (got shape %s, dtype %s)"
                                       % (opname, _STATE_SIZE, list(arr.shape), arr.dtype))
        return _as_signed([int(x) & _U64 for x in arr.tolist()])

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose stream is a function of ``seed`` (an int, or integers): its
        state is ``create_rng_state(seed, alg)``, as in TensorFlow."""
        return cls(state=_rng_state(seed, alg, "Generator.from_seed"), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator whose whole state comes from the operating system's entropy."""
        return cls(state=_as_signed([secrets.randbits(64) for _ in range(_STATE_SIZE)]),
                   alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        """A generator starting at ``state`` (as ``generator.state`` holds it)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        """A generator at ``counter`` (two ints) of the stream of ``key`` (one int)."""
        return cls(state=cls._key_counter_state(key, counter), alg=alg)

    @staticmethod
    def _key_counter_state(key, counter):
        k = np.asarray(key).reshape(-1).tolist()
        c = np.asarray(counter).reshape(-1).tolist()
        if len(k) != 1 or len(c) != 2:
            raise InvalidArgumentError("Generator: key must be 1 integer and counter 2 "
                                       "(got %d and %d)" % (len(k), len(c)))
        return _as_signed([int(c[0]) & _U64, int(c[1]) & _U64, int(k[0]) & _U64])

    # -- state ------------------------------------------------------------------------------
    @property
    def state(self):
        """The state Variable (int64, shape [3]: counter, counter, key)."""
        return self._state_var

    @property
    def algorithm(self):
        return self._alg

    @property
    def key(self):
        """The key part of the state (an int64 scalar)."""
        return _core.wrap(np.asarray(self._state_var.numpy()[2], np.int64))

    def reset(self, state):
        """Set the state (shape [3] integers)."""
        self._write(self._checked_state(state, "Generator.reset"))

    def reset_from_seed(self, seed):
        """Start over from the state ``from_seed(seed)`` would have."""
        self._write(_rng_state(seed, self._alg, "Generator.reset_from_seed"))

    def reset_from_key_counter(self, key, counter):
        self._write(self._key_counter_state(key, counter))

    def skip(self, delta):
        """Advance the state as ``delta`` values drawn would (256 Philox steps each, as in
        TensorFlow); returns the state before."""
        with self._lock:
            before = self._state_var.numpy().copy()
            key, counter = _split_words([int(x) & _U64 for x in before.tolist()])
            c = _philox.skip(counter, int(delta) * _philox.RESERVED_SAMPLES_PER_OUTPUT)
            self._write(_as_signed([c[0] | c[1] << 32, c[2] | c[3] << 32,
                                    key[0] | key[1] << 32]))
        return _core.wrap(before)

    def _write(self, arr):
        # the state is bookkeeping, never part of a traced graph or a gradient
        with _core.no_tracer():
            self._state_var.assign(arr)

    def _draw(self, fn, count, method=None, args=()):
        """Run ``fn(source)`` at the current state (a ``_PhiloxSource``) and advance the
        state past ``count`` values.
        Inside fe.function, a draw named by ``method`` (a key of _DRAWS) with plain
        Python ``args`` is a graph op on the state variable (replayed and saved as such);
        any other draw makes the function run eagerly."""
        _check_philox(self._alg, "Generator", UnimplementedError)
        tracer = _core.get_tracer()
        if tracer is not None:
            if method is not None and all(_is_attr(a) for a in args):
                sample, new_state = generator_draw(self._state_var, method=method,
                                                   args=tuple(args), stream=self._token)
                self._state_var.assign(new_state)   # recorded: a write step of the graph
                return sample
            tracer.random_draw()   # fe.function must not replay a frozen draw
        with self._lock:
            words = [int(x) & _U64 for x in self._state_var.numpy().tolist()]
            result, state = _advance(words, replica_stream(self), fn, count)
            if state is not None:
                self._write(state)
        return result

    def _write_counter(self, counter):
        """Set the counter (low, high), keeping the key (a strategy run's end)."""
        key = int(self._state_var.numpy()[2]) & _U64
        self._write(_as_signed([counter[0] & _U64, counter[1] & _U64, key]))

    def _checkpoint_dependencies(self):
        return [("_state_var", self._state_var)]

    # -- draws ------------------------------------------------------------------------------
    def normal(self, shape, mean=0.0, stddev=1.0, dtype=np.float32, name=None):
        """Samples from N(mean, stddev^2)."""
        args = (_shape_attr(shape), mean, stddev, dtype, "Generator.normal")
        return self._draw(lambda r: _normal(r, *args), _count(args), "normal", args)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=np.float32, name=None):
        """Normal samples within two standard deviations of the mean."""
        args = (_shape_attr(shape), mean, stddev, dtype, "Generator.truncated_normal")
        return self._draw(lambda r: _truncated_normal(r, *args), _count(args),
                          "truncated_normal", args)

    def uniform(self, shape, minval=0, maxval=None, dtype=np.float32, name=None):
        """Samples from U[minval, maxval) (maxval defaults to 1 for floats; integer dtypes
        need maxval, or neither bound for the full range)."""
        if as_dtype(dtype)._np.kind in "iu" and minval is None and maxval is None:
            return self.uniform_full_int(shape, dtype)
        args = (_shape_attr(shape), 0 if minval is None else minval, maxval, dtype,
                "Generator.uniform")
        return self._draw(lambda r: _uniform(r, *args), _count(args), "uniform", args)

    def uniform_full_int(self, shape, dtype=np.uint64, name=None):
        """Integers over the whole range of ``dtype``."""
        args = (_shape_attr(shape), dtype, "Generator.uniform_full_int")
        return self._draw(lambda r: _full_int(r, *args), _count(args), "uniform_full_int",
                          args)

    def binomial(self, shape, counts, probs, dtype=np.int32, name=None):
        """Samples from Binomial(counts, probs): ``shape`` ends with the broadcast shape
        of ``counts`` and ``probs`` (TensorFlow's sampler and counter advance)."""
        args = (_shape_attr(shape), counts, probs, dtype, "Generator.binomial")
        return self._draw(lambda r: _binomial(r, *args), _binomial_count(args), "binomial",
                          args)

    def categorical(self, logits, num_samples, dtype=None):
        rows = np.shape(_core.data_of(_core.convert_to_tensor(logits),
                                      "Generator.categorical logits"))[:1]
        return self._draw(lambda r: _categorical(r, logits, num_samples, dtype,
                                                 "Generator.categorical"),
                          int(np.prod(rows)) * int(num_samples))

    def make_seeds(self, count=1):
        """``count`` seed pairs for stateless ops: an int64 tensor of shape [2, count] (a
        row of 64-bit draws and a row of zeros, as in TensorFlow)."""
        keys = self.uniform_full_int([int(count)], np.int64)   # (a graph op when traced)
        return stack([keys, zeros_like(keys)])

    def split(self, count=1):
        """``count`` new generators (advances this one): generator i has key
        ``uniform_full_int([count], int64)[i]`` and counter 0, as in TensorFlow."""
        keys = self.uniform_full_int([int(count)], np.int64).numpy()
        return [Generator(state=np.array([0, 0, k], np.int64), alg=self._alg)
                for k in keys.tolist()]




_global_generator = None
_global_generator_lock = threading.Lock()


def get_global_generator():
    """The process's global Generator (seeded non-deterministically on first use, as in
    TensorFlow; it is shared by all threads, and draws from it are serialised)."""
    global _global_generator
    with _global_generator_lock:
        if _global_generator is None:
            _global_generator = Generator.from_non_deterministic_state()
        return _global_generator


def set_global_generator(generator):
    """Make ``generator`` the global one (``get_global_generator`` returns it)."""
    global _global_generator
    if not isinstance(generator, Generator):
        raise TypeError("set_global_generator: expected a fe.random.Generator (got %s)"
                        % type(generator).__name__)
    with _global_generator_lock:
        _global_generator = generator
