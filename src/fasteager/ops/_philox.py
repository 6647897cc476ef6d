"""TensorFlow's Philox4x32-10 generator and its distributions, vectorised in NumPy.

The same bits and the same conversions as TensorFlow's CPU kernels (philox_random.h,
random_distributions.h, stateless_random_ops_v2): a draw of ``n`` values from key ``(k0,
k1)`` and counter ``(c0, c1, c2, c3)`` (32-bit words) is a function of those alone, so
``fe.random.Generator`` and the ``stateless_*`` ops give TensorFlow's numbers.

* One Philox step (counter ``c``) gives 4 uint32 words; step ``i`` of a draw uses counter
  ``c + i`` (a 128-bit add), and each step fills one group of outputs: 4 float32/float16
  or int32 values, 2 float64 or int64 values.
* Truncated normals reject samples, so TensorFlow reserves 256 words per output: group
  ``g`` (4 float32 / 2 float64 values) starts at counter ``c + g * 256 * size / 4``.
* Binomial samples (inversion or rejection, a variable number of uniforms) start each
  output ``i`` at its own counter, ``c + 42 i`` or ``c + 256 i``.
"""
import math

import numpy as np

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)    # round multipliers
_W0, _W1 = 0x9E3779B9, 0xBB67AE85                          # Weyl key increments
_LOW32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_U32 = 0xFFFFFFFF
_U64 = (1 << 64) - 1
_ROUNDS = 10
RESERVED_SAMPLES_PER_OUTPUT = 256   # TensorFlow's counter advance per output value

# the key TensorFlow scrambles a stateless seed pair with (StatelessRandomGetKeyCounter)
_SCRAMBLE_KEY = (0x3EC8F720, 0x02461E29)


def philox(key, counters):
    """Philox4x32-10 of ``counters`` (uint64 arrays c0..c3 of 32-bit words, overwritten)
    under ``key`` (two 32-bit ints): the four output words, uint64 arrays."""
    c0, c1, c2, c3 = counters
    p0, p1 = np.empty_like(c0), np.empty_like(c0)
    k0, k1 = int(key[0]) & _U32, int(key[1]) & _U32
    for _ in range(_ROUNDS):
        np.multiply(c0, _M0, out=p0)
        np.multiply(c2, _M1, out=p1)
        # (c0, c1, c2, c3) <- (hi(p1) ^ c1 ^ k0, lo(p1), hi(p0) ^ c3 ^ k1, lo(p0))
        np.right_shift(p1, _S32, out=c0)
        c0 ^= c1
        c0 ^= np.uint64(k0)
        np.right_shift(p0, _S32, out=c2)
        c2 ^= c3
        c2 ^= np.uint64(k1)
        np.bitwise_and(p1, _LOW32, out=c1)
        np.bitwise_and(p0, _LOW32, out=c3)
        k0, k1 = (k0 + _W0) & _U32, (k1 + _W1) & _U32
    return c0, c1, c2, c3


def counters(counter, n, stride=1, start=0):
    """Words (4 uint64 arrays of n) of counters ``counter + (start + i) * stride`` for
    i < n (``counter``: four 32-bit words, least significant first)."""
    lo = (int(counter[0]) & _U32) | (int(counter[1]) & _U32) << 32
    hi = (int(counter[2]) & _U32) | (int(counter[3]) & _U32) << 32
    # the first offset as a 128-bit add, the rest within 64 bits of it
    first = lo + start * stride
    lo, hi = first & _U64, (hi + (first >> 64)) & _U64
    low = np.arange(n, dtype=np.uint64)
    if stride != 1:
        low *= np.uint64(stride)
    low += np.uint64(lo)
    high = (low < np.uint64(lo)).astype(np.uint64)
    high += np.uint64(hi)
    return low & _LOW32, low >> _S32, high & _LOW32, high >> _S32


def words(key, counter, steps, start=0):
    """The words of Philox steps ``start .. start + steps - 1`` from ``counter``, in
    TensorFlow's order (step by step, 4 words each): uint32 array [steps, 4]."""
    out = np.empty((steps, 4), np.uint32)
    for j, w in enumerate(philox(key, counters(counter, steps, start=start))):
        out[:, j] = w
    return out


_CHUNK = 8192   # Philox steps per block: the temporaries of a block stay in cache


def skip(counter, delta):
    """``counter`` (four 32-bit words) advanced by ``delta`` steps, as PhiloxRandom::Skip."""
    c = sum((int(w) & _U32) << (32 * i) for i, w in enumerate(counter)) + int(delta)
    c &= (1 << 128) - 1
    return tuple((c >> (32 * i)) & _U32 for i in range(4))


def scramble_seed(seed0, seed1):
    """TensorFlow's (key, counter) of a stateless seed pair (two 64-bit ints): the pair is
    the counter of one Philox step under a fixed key, and that step's words are the new
    key and the high half of the new counter."""
    s0, s1 = int(seed0) & _U64, int(seed1) & _U64
    mix = [int(w) for w in words(_SCRAMBLE_KEY, (s0 & _U32, s0 >> 32, s1 & _U32, s1 >> 32),
                                 1)[0]]
    return (mix[0], mix[1]), (0, 0, mix[2], mix[3])


# ---- conversions of uint32 words (random_distributions.h) --------------------------------

def _float32_unit(w):
    """[0, 1) float32 from the 23 low bits of uint32 ``w``: 1.mantissa - 1."""
    bits = w & np.uint32(0x7FFFFF)
    bits |= np.uint32(0x3F800000)
    out = bits.view(np.float32)
    out -= np.float32(1.0)
    return out


def _float16_unit(w):
    bits = ((w & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)
    return bits.view(np.float16) - np.float16(1.0)


def _float64_unit(hi, lo):
    """[0, 1) float64 from 52 bits: ``hi``'s low 20 (the high mantissa bits), ``lo``'s 32."""
    bits = (hi & np.uint32(0xFFFFF)).astype(np.uint64)
    bits <<= _S32
    bits |= lo
    bits |= np.uint64(1023 << 52)
    out = bits.view(np.float64)
    out -= 1.0
    return out


def _as64(hi_word, lo_word):
    """uint64 from two uint32 words."""
    out = hi_word.astype(np.uint64)
    out <<= _S32
    out |= lo_word
    return out


# TensorFlow's Box-Muller calls the C library's logf and sincosf, which are not correctly
# rounded: to give its bits, the two are evaluated as glibc (2.28 and later, from Arm's
# optimized-routines) evaluates them, with its tables and polynomials, in float64.
_LOGF_INVC = np.array([float.fromhex(h) for h in (
    "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0",
    "0x1.3c995b0b80385p+0", "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0",
    "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0", "0x1.0953f419900a7p+0", "0x1p+0",
    "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1", "0x1.b2036576afce6p-1",
    "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1", "0x1.767dcf5534862p-1")])
_LOGF_LOGC = np.array([float.fromhex(h) for h in (
    "-0x1.57bf7808caadep-2", "-0x1.2bef0a7c06ddbp-2", "-0x1.01eae7f513a67p-2",
    "-0x1.b31d8a68224e9p-3", "-0x1.6574f0ac07758p-3", "-0x1.1aa2bc79c81p-3",
    "-0x1.a4e76ce8c0e5ep-4", "-0x1.1973c5a611cccp-4", "-0x1.252f438e10c1ep-5", "0x0p+0",
    "0x1.aa5aa5df25984p-5", "0x1.c5e53aa362eb4p-4", "0x1.526e57720db08p-3",
    "0x1.bc2860d22477p-3", "0x1.1058bc8a07ee1p-2", "0x1.4043057b6ee09p-2")])
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LOGF_A = [float.fromhex(h) for h in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2",
                                      "-0x1.ffffef20a4123p-2")]
_HALF_PI = float.fromhex("0x1.921fb54442d18p0")
_INV_HALF_PI_2_24 = float.fromhex("0x1.45f306dc9c883p+23")
_COS_C = [1.0] + [float.fromhex(h) for h in ("-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5",
                                            "-0x1.6c087e89a359dp-10", "0x1.99343027bf8c3p-16")]
_SIN_S = [float.fromhex(h) for h in ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7",
                                     "-0x1.994eb3774cf24p-13")]


def _logf(x):
    """logf of positive normal float32 ``x`` (< 1 here): log(c) + k log 2 + log1p(z/c - 1)
    with z/c near 1 (c from a 16-entry table by the top mantissa bits)."""
    ix = x.view(np.int32)
    tmp = ix - np.int32(0x3F330000)
    i = ((tmp >> 19) & 15).astype(np.intp)
    k = (tmp >> 23).astype(np.float64)      # arithmetic: tmp < 0 for x < 0.7
    tmp &= np.int32(-0x800000)
    z = (ix - tmp).view(np.float32).astype(np.float64)
    z *= _LOGF_INVC.take(i)
    z -= 1.0
    r = z
    k *= _LN2
    k += _LOGF_LOGC.take(i)
    k += r                                   # y0 + r
    r2 = r * r
    y = r * _LOGF_A[1]
    y += _LOGF_A[2]
    y += r2 * _LOGF_A[0]
    y *= r2
    y += k
    return y.astype(np.float32)


def _sincosf(x):
    """sincosf of float32 ``x`` in [0, 2 pi): reduced by a multiple n of pi/2 (exact in
    float64 for n <= 4, and 0 below 0.75 where glibc reduces nothing), then sine and
    cosine polynomials, swapped and negated by quadrant."""
    xd = x.astype(np.float64)
    n = ((xd * _INV_HALF_PI_2_24).astype(np.int32) + np.int32(0x800000)) >> 24
    r = n * _HALF_PI
    np.subtract(xd, r, out=r)
    r2 = r * r
    r4 = r2 * r2
    r3 = r2 * r
    c = r2 * _COS_C[1]
    c += _COS_C[0]
    c += r4 * _COS_C[2]
    t = r2 * _COS_C[4]
    t += _COS_C[3]
    r4 *= r2
    t *= r4
    c += t                          # cosine polynomial of r
    s = r3 * _SIN_S[0]
    s += r
    t = r2 * _SIN_S[2]
    t += _SIN_S[1]
    r3 *= r2
    t *= r3
    s += t                          # sine polynomial of r
    # quadrant q: sin x = (s, c, -s, -c)[q], cos x = (c, -s, -c, s)[q], as exact sums
    # a * s + b * c with a, b in {0, 1, -1}
    odd = n & 1
    sign = 1 - (n & 2)
    a = ((1 - odd) * sign).astype(np.float64)
    b = (odd * sign).astype(np.float64)
    sin = s * a
    sin += c * b
    c *= a
    c -= s * b
    return sin.astype(np.float32), c.astype(np.float32)


def _box_muller32(x0, x1):
    """TensorFlow's BoxMullerFloat: two float32 normals from two uint32 words."""
    u1 = np.maximum(_float32_unit(x0), np.float32(1.0e-7))
    v1 = _float32_unit(x1).astype(np.float64)
    v1 *= 2.0 * np.pi
    u2 = _logf(u1)
    u2 *= np.float32(-2.0)
    np.sqrt(u2, out=u2)
    sin, cos = _sincosf(v1.astype(np.float32))
    sin *= u2
    cos *= u2
    return sin, cos


# NumPy's float64 log is its own SIMD code on some CPUs, a last bit off the C library's
_libm_log = np.frompyfunc(math.log, 1, 1)


def _box_muller64(x0, x1, x2, x3):
    """TensorFlow's BoxMullerDouble: two float64 normals from four words (the C library's
    log, sin and cos; NumPy's sin and cos are the C library's)."""
    u1 = np.maximum(_float64_unit(x0, x1), 1.0e-7)
    v1 = 2 * np.pi * _float64_unit(x2, x3)
    u2 = np.sqrt(-2.0 * _libm_log(u1).astype(np.float64))
    return np.sin(v1) * u2, np.cos(v1) * u2


def _group_size(dtype):
    return 2 if np.dtype(dtype).itemsize == 8 else 4


def _fill(key, counter, n, dtype, per_step, out_dtype=None):
    """The first ``n`` values of ``per_step(words [m, 4]) -> [m, group]`` over successive
    Philox steps, block by block."""
    group = _group_size(dtype)
    steps = -(-n // group)
    out = np.empty((steps, group), out_dtype or dtype)
    for start in range(0, steps, _CHUNK):
        m = min(_CHUNK, steps - start)
        out[start:start + m] = per_step(words(key, counter, m, start))
    return out.reshape(-1)[:n]


def _normals32(w):
    sin, cos = _box_muller32(w[:, 0::2], w[:, 1::2])
    out = np.empty(sin.shape + (2,), np.float32)
    out[..., 0] = sin
    out[..., 1] = cos
    return out.reshape(w.shape[0], 4)


def _normals64(w):
    out = np.empty((w.shape[0], 2))
    out[:, 0], out[:, 1] = _box_muller64(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
    return out


def uniform(key, counter, n, dtype):
    """``n`` floats in [0, 1) (UniformDistribution for float16/32/64)."""
    d = np.dtype(dtype)
    if d == np.float64:
        return _fill(key, counter, n, d, lambda w: _float64_unit(w[:, 0::2], w[:, 1::2]))
    if d == np.float16:
        return _fill(key, counter, n, d, _float16_unit)
    if d == np.float32:
        return _fill(key, counter, n, d, _float32_unit)
    raise TypeError("uniform: unsupported dtype %s" % d)


def normal(key, counter, n, dtype):
    """``n`` standard normals (NormalDistribution: Box-Muller; float16 from float32)."""
    d = np.dtype(dtype)
    if d == np.float64:
        return _fill(key, counter, n, d, _normals64)
    if d == np.float32:
        return _fill(key, counter, n, d, _normals32)
    if d == np.float16:
        return _fill(key, counter, n, d, _normals32, np.float32).astype(d)
    raise TypeError("normal: unsupported dtype %s" % d)


def truncated_normal(key, counter, n, dtype):
    """``n`` standard normals within (-2, 2) (TruncatedNormalDistribution): group g takes
    Box-Muller pairs from its own counter range (steps g * stride, g * stride + 1, ...),
    keeping those within the bounds in order, until it has its values."""
    d = np.dtype(dtype)
    if d not in (np.float16, np.float32, np.float64):
        raise TypeError("truncated_normal: unsupported dtype %s" % d)
    group = _group_size(d)
    groups = -(-n // group)
    stride = group * RESERVED_SAMPLES_PER_OUTPUT // 4
    out = np.empty((groups, group), np.float64 if d == np.float64 else np.float32)
    for start in range(0, groups, _CHUNK):
        m = min(_CHUNK, groups - start)
        _truncated_block(key, counters(counter, m, stride, start), out[start:start + m], d)
    return out.reshape(-1)[:n].astype(d)


def _truncated_block(key, base, out, d):
    """Fill ``out`` [m, group] for the groups whose first counters are ``base``: one Philox
    step at a time for the groups not yet full (after one step, about 5 in 6 are)."""
    m, group = out.shape
    filled = np.zeros(m, np.int64)
    todo = np.arange(m)
    step = 0
    while todo.size:
        starts = base if step == 0 else [b[todo] for b in base]
        w = np.empty((todo.size, 4), np.uint32)
        for j, word in enumerate(philox(key, _offset(starts, step))):
            w[:, j] = word
        cand = _normals64(w) if d == np.float64 else _normals32(w)
        ok = np.abs(cand) < 2.0
        if step == 0:
            # most groups take their first step's values as they are; the others'
            # slots are all written again below and in later steps
            out[...] = cand
            rest = np.nonzero(~ok.all(axis=1))[0]
            filled[:] = group
            filled[rest] = 0
            todo, cand, ok = rest, cand[rest], ok[rest]
        slot = filled[todo, None] + np.cumsum(ok, axis=1) - 1
        keep = ok & (slot < group)
        rows = np.broadcast_to(todo[:, None], keep.shape)[keep]
        out[rows, slot[keep]] = cand[keep]
        filled[todo] = np.minimum(filled[todo] + ok.sum(axis=1), group)
        todo = todo[filled[todo] < group]
        step += 1


def _offset(words4, s):
    """Counter words (4 uint64 arrays) advanced by the small step ``s`` (a copy)."""
    c0, c1, c2, c3 = words4
    low = (c0 | (c1 << _S32)) + np.uint64(s)
    carry = (low < np.uint64(s)).astype(np.uint64)
    high = (c2 | (c3 << _S32)) + carry
    return low & _LOW32, low >> _S32, high & _LOW32, high >> _S32


def full_int(key, counter, n, dtype):
    """``n`` integers over the whole range of ``dtype`` (UniformFullIntDistribution)."""
    d = np.dtype(dtype)
    if d.itemsize == 8:
        return _fill(key, counter, n, d, lambda w: _as64(w[:, 1::2], w[:, 0::2]).view(d))
    if d.itemsize == 4:
        return _fill(key, counter, n, d, lambda w: w.view(d))
    raise TypeError("full_int: unsupported dtype %s" % d)


def uniform_int(key, counter, n, dtype, lo, hi):
    """``n`` integers in [lo, hi) (UniformDistribution for ints: ``lo + bits % range``)."""
    d = np.dtype(dtype)
    span = int(hi) - int(lo)
    if d.itemsize == 8:
        def per_step(w):
            r = _as64(w[:, 1::2], w[:, 0::2]) % np.uint64(span & _U64)
            r += np.uint64(int(lo) & _U64)
            return r.view(d)
        return _fill(key, counter, n, d, per_step)
    if d.itemsize == 4:
        def per_step32(w):
            r = w % np.uint32(span & _U32)
            r += np.uint32(int(lo) & _U32)
            return r.view(d)
        return _fill(key, counter, n, d, per_step32)
    raise TypeError("uniform_int: unsupported dtype %s" % d)


# ---- binomial (random_binomial_op.cc): per output, its own counter range ---------------------

_libm_log1p = np.frompyfunc(math.log1p, 1, 1)
_STIRLING_TAIL = np.array([0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                           0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                           0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                           0.00833056343336287])


def _log(x):
    return _libm_log(x).astype(np.float64)


def _pair_uniforms(key, base, step):
    """The two float64 uniforms of Philox step ``step`` after counters ``base``, in the
    order TensorFlow's binomial sampler takes them (the second first)."""
    w = philox(key, _offset(base, step))
    return _float64_unit(w[2], w[3]), _float64_unit(w[0], w[1])


def _stirling_tail(k):
    """log(k!) minus its Stirling approximation (a table up to 9)."""
    small = k <= 9
    kp1sq = (k + 1) * (k + 1)
    out = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    out[small] = _STIRLING_TAIL[k[small].astype(np.intp)]
    return out


def _binomial_inversion(key, base, count, prob):
    """Sum geometric variables until they exceed ``count``; their number (count * prob
    < 10). One uniform per geometric variable, two per Philox step."""
    n = count.shape[0]
    result = np.zeros(n)
    geom_sum = np.zeros(n)
    scale = _libm_log1p(-prob).astype(np.float64)
    todo = np.arange(n)
    t = 0
    while todo.size:
        if t % 2 == 0:
            first, second = _pair_uniforms(key, [b[todo] for b in base], t // 2)
            u = first
        else:
            u = second
        with np.errstate(divide="ignore"):
            geom_sum[todo] += np.ceil(_log(u) / scale[todo])
        over = geom_sum[todo] > count[todo]
        result[todo[~over]] += 1
        keep = ~over
        todo = todo[keep]
        if t % 2 == 0:
            second = second[keep]
        t += 1
    return result


def _btrs(key, base, count, prob):
    """Hormann's transformed rejection with squeeze (count * prob >= 10): a pair of
    uniforms (one Philox step) per try."""
    stddev = np.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = np.floor((count + 1) * prob)
    result = np.empty(count.shape[0])
    todo = np.arange(count.shape[0])
    step = 0
    while todo.size:
        u, v = _pair_uniforms(key, [x[todo] for x in base], step)
        step += 1
        n, p_a, p_b, p_m, p_r = count[todo], a[todo], b[todo], m[todo], r[todo]
        u = u - 0.5
        us = 0.5 - np.abs(u)
        with np.errstate(divide="ignore", invalid="ignore"):
            k = np.floor((2 * p_a / us + p_b) * u + c[todo])
            done = (us >= 0.07) & (v <= v_r[todo])
            test = ~done & (k >= 0) & (k <= n)
            if test.any():
                i = np.nonzero(test)[0]
                ni, ki, mi, ri, usi = n[i], k[i], p_m[i], p_r[i], us[i]
                lv = _log(v[i] * alpha[todo][i] / (p_a[i] / (usi * usi) + p_b[i]))
                bound = ((mi + 0.5) * _log((mi + 1) / (ri * (ni - mi + 1)))
                         + (ni + 1) * _log((ni - mi + 1) / (ni - ki + 1))
                         + (ki + 0.5) * _log(ri * (ni - ki + 1) / (ki + 1))
                         + _stirling_tail(mi) + _stirling_tail(ni - mi)
                         - _stirling_tail(ki) - _stirling_tail(ni - ki))
                done[i[lv <= bound]] = True
        result[todo[done]] = k[done]
        todo = todo[~done]
    return result


def binomial(key, counter, counts, probs, samples_per_batch):
    """Binomial samples (float64 [samples_per_batch, batch]) for ``counts`` and ``probs``
    (arrays [batch] in their dtype T, which TensorFlow's tests on them use): output i of
    batch member j takes Philox steps from ``counter + 256 i'`` (rejection) or ``+ 42 i'``
    (inversion, count * prob < 10), i' = j * samples_per_batch + i."""
    batch = counts.shape[0]
    index = np.arange(batch * samples_per_batch)
    member = index // samples_per_batch
    count_t, prob_t = counts[member], probs[member]
    count, prob = count_t.astype(np.float64), prob_t.astype(np.float64)
    out = np.zeros(index.shape[0])
    one = prob_t.dtype.type(1)
    low = prob_t <= prob_t.dtype.type(0.5)
    q_t = one - prob_t
    small = np.where(low, count_t * prob_t, count_t * q_t) < prob_t.dtype.type(10)
    live = (count > 0) & (prob_t > 0) & (prob_t < one)
    out[(count > 0) & (prob_t >= one)] = count[(count > 0) & (prob_t >= one)]
    out[np.isnan(prob)] = np.nan
    p_eff = np.where(low, prob, q_t.astype(np.float64))
    for method, stride, chosen in ((_binomial_inversion, 42, live & small),
                                   (_btrs, RESERVED_SAMPLES_PER_OUTPUT, live & ~small)):
        i = np.nonzero(chosen)[0]
        if i.size:
            base = _offsets(counter, i.astype(np.uint64) * np.uint64(stride))
            draws = method(key, base, count[i], p_eff[i])
            out[i] = np.where(low[i], draws, count[i] - draws)
    return out.reshape(batch, samples_per_batch).T


def _offsets(counter, deltas):
    """Counter words (4 uint64 arrays) of ``counter + deltas`` (uint64 array)."""
    lo = (int(counter[0]) & _U32) | (int(counter[1]) & _U32) << 32
    hi = (int(counter[2]) & _U32) | (int(counter[3]) & _U32) << 32
    low = deltas + np.uint64(lo)
    high = (low < np.uint64(lo)).astype(np.uint64) + np.uint64(hi)
    return low & _LOW32, low >> _S32, high & _LOW32, high >> _S32
