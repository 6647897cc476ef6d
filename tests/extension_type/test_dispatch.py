"""Type-based dispatch (``fe.experimental.dispatch_for_api`` and the elementwise
dispatchers) with the extension-type guide's MaskedTensor; expected values and messages
are TensorFlow 2.21's."""
import inspect
from typing import List, Union

import numpy as np
import pytest

import fasteager as tf


class MaskedTensor(tf.experimental.ExtensionType):
    values: tf.Tensor
    mask: tf.Tensor

    def with_default(self, default):
        return tf.where(self.mask, self.values, default)


def convert_to_masked_tensor(x):
    return x if isinstance(x, MaskedTensor) else MaskedTensor(x, tf.ones_like(x, tf.bool))


@pytest.fixture
def registered():
    """Dispatchers registered by a test; unregistered after it whatever happens."""
    fns = []
    yield fns
    for fn in fns:
        try:
            tf.experimental.unregister_dispatch_for(fn)
        except ValueError:
            pass


def check(mt, values, mask):
    assert isinstance(mt, MaskedTensor)
    np.testing.assert_array_equal(mt.values.numpy(), values)
    np.testing.assert_array_equal(mt.mask.numpy(), mask)


def test_dispatch_for_api_by_annotations_and_unregister(registered):
    plain_stack = tf.stack

    @tf.experimental.dispatch_for_api(tf.stack)
    def masked_stack(values: List[MaskedTensor], axis=0):
        return MaskedTensor(tf.stack([v.values for v in values], axis),
                            tf.stack([v.mask for v in values], axis))
    registered.append(masked_stack)
    x = MaskedTensor([1, 2, 3], [True, True, False])
    y = MaskedTensor([4, 5, 6], [False, True, True])
    check(tf.stack([x, y]), [[1, 2, 3], [4, 5, 6]], [[True, True, False], [False, True, True]])
    check(tf.stack(values=[x, y], axis=1), [[1, 4], [2, 5], [3, 6]],
          [[True, False], [True, True], [False, True]])
    # plain tensors still take fe.stack's own path
    np.testing.assert_array_equal(tf.stack([tf.constant(1), tf.constant(2)]).numpy(), [1, 2])
    tf.experimental.unregister_dispatch_for(masked_stack)
    assert tf.stack is plain_stack          # its own function back, in every namespace
    with pytest.raises(ValueError, match="was not registered using a `@dispatch_for_"):
        tf.experimental.unregister_dispatch_for(masked_stack)
    with pytest.raises(ValueError):
        tf.stack([x, y])


def test_union_annotation_needs_one_extension_value(registered):
    calls = []

    @tf.experimental.dispatch_for_api(tf.stack)
    def masked_stack_v2(values: List[Union[MaskedTensor, tf.Tensor]], axis=0):
        calls.append(1)
        values = [convert_to_masked_tensor(v) for v in values]
        return MaskedTensor(tf.stack([v.values for v in values], axis),
                            tf.stack([v.mask for v in values], axis))
    registered.append(masked_stack_v2)
    x = MaskedTensor([1, 2, 3], [True, True, False])
    check(tf.stack([x, tf.constant([4, 5, 6]), x]), [[1, 2, 3], [4, 5, 6], [1, 2, 3]],
          [[True, True, False], [True, True, True], [True, True, False]])
    assert calls == [1]
    # tensors alone do not dispatch (TensorFlow's rule)
    tf.stack([tf.constant([1]), tf.constant([2])])
    assert calls == [1]


def test_explicit_signatures_on_an_op(registered):
    @tf.experimental.dispatch_for_api(tf.math.add, {"x": MaskedTensor}, {"y": MaskedTensor})
    def masked_add(x, y, name=None):
        x, y = convert_to_masked_tensor(x), convert_to_masked_tensor(y)
        return MaskedTensor(x.values + y.values, x.mask & y.mask)
    registered.append(masked_add)
    m = MaskedTensor([1, 2], [True, False])
    check(tf.math.add(m, tf.constant([10, 20])), [11, 22], [True, False])
    check(tf.add(tf.constant([10, 20]), m), [11, 22], [True, False])     # the alias too
    np.testing.assert_array_equal(tf.math.add(1, 2).numpy(), 3)


def test_registration_errors_as_tensorflow():
    with pytest.raises(ValueError, match="Dispatch function's signature .* does not match "
                                         "API's signature"):
        @tf.experimental.dispatch_for_api(tf.stack)
        def bad(vals: MaskedTensor):
            pass
    with pytest.raises(ValueError, match="must be called with at least one signature"):
        @tf.experimental.dispatch_for_api(tf.stack)
        def bad2(values, axis=0):
            pass
    with pytest.raises(ValueError, match="does not support dispatch"):
        @tf.experimental.dispatch_for_api(lambda x: x)
        def bad3(x: MaskedTensor):
            pass
    with pytest.raises(TypeError, match="unsupported type annotation"):
        @tf.experimental.dispatch_for_api(tf.stack)
        def bad4(values: "3"):
            pass


def test_unary_elementwise_apis(registered):
    @tf.experimental.dispatch_for_unary_elementwise_apis(MaskedTensor)
    def unary(api_func, x):
        return MaskedTensor(api_func(x.values), x.mask)
    registered.append(unary)
    x = MaskedTensor([1, -2, -3], [True, False, True])
    check(tf.abs(x), [1, 2, 3], [True, False, True])
    check(tf.math.negative(x), [-1, 2, 3], [True, False, True])
    check(tf.nn.relu(x), [1, 0, 0], [True, False, True])
    out = tf.ones_like(x, dtype=tf.float32)          # other arguments bound in api_func
    check(out, [1.0, 1.0, 1.0], [True, False, True])
    assert out.values.dtype == tf.float32
    with pytest.raises(ValueError, match="has already been registered for"):
        @tf.experimental.dispatch_for_unary_elementwise_apis(MaskedTensor)
        def again(api_func, x):
            pass
    tf.experimental.unregister_dispatch_for(unary)
    with pytest.raises(ValueError):
        tf.abs(x)


def test_binary_elementwise_apis_broadcast(registered):
    @tf.experimental.dispatch_for_binary_elementwise_apis(MaskedTensor, MaskedTensor)
    def binary(api_func, x, y):
        return MaskedTensor(api_func(x.values, y.values), x.mask & y.mask)
    registered.append(binary)
    x = MaskedTensor([1, -2, -3], [True, False, True])
    y = MaskedTensor([[4], [5]], [[True], [False]])
    check(tf.math.add(x, y), [[5, 2, 1], [6, 3, 2]],
          [[True, False, True], [False, False, False]])
    check(tf.maximum(x, y), [[4, 4, 4], [5, 5, 5]],
          [[True, False, True], [False, False, False]])
    # MaskedTensor with a Tensor: not this handler's signature
    with pytest.raises(ValueError):
        tf.math.multiply(x, tf.constant(2))


def test_union_elementwise_and_matmul_dispatch(registered):
    @tf.experimental.dispatch_for_binary_elementwise_apis(Union[MaskedTensor, tf.Tensor],
                                                          Union[MaskedTensor, tf.Tensor])
    def binary(api_func, x, y):
        x, y = convert_to_masked_tensor(x), convert_to_masked_tensor(y)
        return MaskedTensor(api_func(x.values, y.values), x.mask & y.mask)

    @tf.experimental.dispatch_for_api(tf.matmul)
    def masked_matmul(a: MaskedTensor, b, transpose_a=False, transpose_b=False,
                      adjoint_a=False, adjoint_b=False, a_is_sparse=False, b_is_sparse=False,
                      output_type=None, grad_a=False, grad_b=False, name=None):
        if isinstance(a, MaskedTensor):
            a = a.with_default(0)
        return tf.matmul(a, b, transpose_a, transpose_b)
    registered.extend([binary, masked_matmul])
    m = MaskedTensor([[1., 2.], [3., 4.]], [[True, False], [False, True]])
    check(tf.math.multiply(m, tf.constant([[2., 2.], [2., 2.]])), [[2, 4], [6, 8]],
          [[True, False], [False, True]])
    np.testing.assert_array_equal(tf.math.multiply(tf.constant(2.), tf.constant(3.)).numpy(), 6.)
    np.testing.assert_array_equal(tf.matmul(m, tf.eye(2)).numpy(), [[1., 0.], [0., 4.]])


def test_dispatchers_of_one_api_tried_in_order(registered):
    class Other(tf.experimental.ExtensionType):
        v: tf.Tensor

    @tf.experimental.dispatch_for_unary_elementwise_apis(MaskedTensor)
    def unary(api_func, x):
        return "masked"

    @tf.experimental.dispatch_for_api(tf.math.abs, {"x": Other})
    def other_abs(x, name=None):
        return "other"
    registered.extend([unary, other_abs])
    assert tf.abs(MaskedTensor([1], [True])) == "masked"
    assert tf.abs(Other([1])) == "other"
    tf.experimental.unregister_dispatch_for(unary)
    assert tf.math.abs(Other([1])) == "other"
    np.testing.assert_array_equal(tf.abs(tf.constant([-1])).numpy(), [1])


def test_dispatch_reaches_every_reference_without_rewriting_attributes(registered):
    # one table the APIs consult: a reference taken before the registration (and the
    # defining module's own name) dispatch too, and no module attribute is replaced
    from fasteager.ops import array_ops
    stack_before, abs_before = tf.stack, tf.math.abs
    module_stack = vars(array_ops)["stack"]

    @tf.experimental.dispatch_for_api(tf.stack)
    def masked_stack(values: List[MaskedTensor], axis=0):
        return MaskedTensor(tf.stack([v.values for v in values], axis),
                            tf.stack([v.mask for v in values], axis))

    @tf.experimental.dispatch_for_unary_elementwise_apis(MaskedTensor)
    def unary(api_func, x):
        return MaskedTensor(api_func(x.values), x.mask)
    registered.extend([masked_stack, unary])
    x = MaskedTensor([1, -2], [True, False])
    assert tf.stack is stack_before and vars(array_ops)["stack"] is module_stack
    assert tf.math.abs is abs_before
    check(stack_before([x, x]), [[1, -2], [1, -2]], [[True, False], [True, False]])
    check(module_stack([x, x]), [[1, -2], [1, -2]], [[True, False], [True, False]])
    check(abs_before(x), [1, 2], [True, False])
    # the API keeps its own signature while it dispatches
    assert list(inspect.signature(tf.stack).parameters)[:2] == ["values", "axis"]


def test_subclass_made_after_registration_dispatches_on_ops(registered):
    @tf.experimental.dispatch_for_unary_elementwise_apis(MaskedTensor)
    def unary(api_func, x):
        return MaskedTensor(api_func(x.values), x.mask)
    registered.append(unary)

    class Later(MaskedTensor):
        pass
    out = tf.abs(Later([-1, 2], [True, True]))
    check(out, [1, 2], [True, True])


def test_dispatch_on_a_wrapped_function_and_back(registered):
    # fe.strings.length is a wrapper (a closure with __wrapped__): it dispatches, keeps its
    # signature, and is itself again after unregistering
    length = tf.strings.length
    sig = inspect.signature(length)
    wrapped = length.__wrapped__

    @tf.experimental.dispatch_for_api(tf.strings.length)
    def masked_length(input: MaskedTensor, unit="BYTE", name=None):
        return MaskedTensor(tf.strings.length(input.values, unit), input.mask)
    registered.append(masked_length)
    m = MaskedTensor(tf.constant(["ab", "cde"]), [True, False])
    check(length(m), [2, 3], [True, False])
    assert inspect.signature(length) == sig
    np.testing.assert_array_equal(length(["xy"]).numpy(), [2])
    tf.experimental.unregister_dispatch_for(masked_length)
    assert length.__wrapped__ is wrapped and inspect.signature(length) == sig
    with pytest.raises(ValueError):
        length(m)


def _op_apis(names):
    """The APIs of ``names`` (TensorFlow's elementwise lists) that are ops of the table,
    each op once (``math.divide`` and ``math.truediv`` are one op)."""
    from fasteager._core import Op
    from fasteager._src.composite.dispatch import _resolve
    out, seen = {}, set()
    for n in names:
        f = _resolve(n)
        if isinstance(f, Op) and id(f) not in seen:
            seen.add(id(f))
            out[n] = f
    return out


def test_op_dispatcher_gets_the_arguments_as_passed(registered):
    # as in TensorFlow, an op hands the call to its dispatcher as the user made it: the
    # name, positional or by keyword, and operands by keyword
    calls = []

    @tf.experimental.dispatch_for_api(tf.math.add)
    def masked_add(x: MaskedTensor, y: MaskedTensor, name=None):
        calls.append(name)
        return MaskedTensor(x.values + y.values, x.mask & y.mask)
    registered.append(masked_add)
    a = MaskedTensor([1., 2.], [True, False])
    check(tf.math.add(a, a, name="myadd"), [2., 4.], [True, False])
    check(tf.add(a, a, "positional"), [2., 4.], [True, False])
    check(tf.math.add(y=a, x=a, name="kw"), [2., 4.], [True, False])
    check(tf.math.add(a, a), [2., 4.], [True, False])
    assert calls == ["myadd", "positional", "kw", None]
    # plain tensors still run the op (and its own argument checks)
    np.testing.assert_array_equal(tf.math.add(tf.constant(1), 2, name="n").numpy(), 3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'x'"):
        tf.math.add(x=tf.constant(1), y=tf.constant(2))


def test_dispatcher_without_name_parameter_gets_the_rest(registered):
    # TensorFlow lets a dispatcher leave out ``name``: the call's name is not passed to it
    @tf.experimental.dispatch_for_api(tf.math.subtract)
    def masked_subtract(x: MaskedTensor, y: MaskedTensor):
        return MaskedTensor(x.values - y.values, x.mask & y.mask)

    @tf.experimental.dispatch_for_api(tf.stack)
    def masked_stack(values: List[MaskedTensor], axis=0):
        return MaskedTensor(tf.stack([v.values for v in values], axis),
                            tf.stack([v.mask for v in values], axis))
    registered.extend([masked_subtract, masked_stack])
    a = MaskedTensor([3., 2.], [True, False])
    check(tf.math.subtract(a, a, name="s"), [0., 0.], [True, False])
    check(tf.math.subtract(a, a), [0., 0.], [True, False])
    check(tf.stack([a, a], name="st"), [[3., 2.], [3., 2.]], [[True, False], [True, False]])
    check(tf.stack([a, a], 1, "st"), [[3., 3.], [2., 2.]], [[True, True], [False, False]])


@pytest.mark.parametrize("kind", ["unary", "binary"])
def test_every_elementwise_op_passes_its_name_to_the_dispatcher(registered, kind):
    from fasteager._src.composite import dispatch
    names = dispatch._UNARY_NAMES if kind == "unary" else dispatch._BINARY_NAMES
    ops = _op_apis(names)
    assert ops, "no elementwise API is an op of the table"
    got = {}
    a = MaskedTensor([1., 2.], [True, False])
    for api_name, op in ops.items():
        if kind == "unary":
            def target(x: MaskedTensor, name=None, _n=api_name):
                got[_n] = name
                return x
        else:
            def target(x: MaskedTensor, y: MaskedTensor, name=None, _n=api_name):
                got[_n] = name
                return x
        tf.experimental.dispatch_for_api(op)(target)
        registered.append(target)
        args = (a,) if kind == "unary" else (a, a)
        assert op(*args, name="n_" + api_name) is a
    assert got == {n: "n_" + n for n in ops}


def test_elementwise_handler_gets_operands_by_keyword_and_the_name_bound(registered):
    seen = []

    @tf.experimental.dispatch_for_binary_elementwise_apis(MaskedTensor, MaskedTensor)
    def binary(api_func, x, y):
        seen.append((x, y))
        return MaskedTensor(api_func(x.values, y.values), x.mask & y.mask)
    registered.append(binary)
    a = MaskedTensor([1., 2.], [True, False])
    b = MaskedTensor([3., 4.], [True, True])
    check(tf.math.multiply(x=a, y=b, name="m"), [3., 8.], [True, False])
    check(tf.math.multiply(a, y=b), [3., 8.], [True, False])
    assert seen == [(a, b), (a, b)]


class _CountingMeta(type):
    """Counts the subclass checks made against its classes (type resolution work)."""
    checks = 0

    def __subclasscheck__(cls, sub):
        _CountingMeta.checks += 1
        return type.__subclasscheck__(cls, sub)


def test_subclass_of_a_plain_class_made_after_registration(registered):
    # isinstance semantics for any class, not just extension types; the type is resolved
    # once (then memoised), and again only when the registrations change
    class Plain(metaclass=_CountingMeta):
        pass

    @tf.experimental.dispatch_for_api(tf.abs)
    def plain_abs(x: Plain, name=None):
        return ("plain", type(x).__name__, name)
    registered.append(plain_abs)
    assert tf.abs(Plain()) == ("plain", "Plain", None)

    class Later(Plain):
        pass
    assert tf.abs(Later(), name="n") == ("plain", "Later", "n")
    assert tf.math.abs(Later()) == ("plain", "Later", None)
    _CountingMeta.checks = 0
    t = tf.constant([-1., 2.])
    for _ in range(50):
        assert tf.abs(Later()) == ("plain", "Later", None)
        tf.abs(t)
    # the type was resolved (issubclass) before: no resolution on each call
    assert _CountingMeta.checks < 5
    tf.experimental.unregister_dispatch_for(plain_abs)
    with pytest.raises(ValueError):
        tf.abs(Later())


def test_registration_after_a_type_was_seen_reaches_it(registered):
    # a type that an op saw before any dispatcher named its base is dispatched once one
    # does (the memo is forgotten when registrations change)
    class Base:
        pass

    class Seen(Base):
        pass

    @tf.experimental.dispatch_for_api(tf.math.negative)
    def masked_negative(x: MaskedTensor, name=None):
        return "masked"
    registered.append(masked_negative)
    with pytest.raises(ValueError):
        tf.math.negative(Seen())        # (Seen is looked at: not dispatchable, then)

    @tf.experimental.dispatch_for_api(tf.math.negative)
    def base_negative(x: Base, name=None):
        return "base"
    registered.append(base_negative)
    assert tf.math.negative(Seen()) == "base"
    assert tf.math.negative(MaskedTensor([1.], [True])) == "masked"
    tf.experimental.unregister_dispatch_for(base_negative)
    with pytest.raises(ValueError):
        tf.math.negative(Seen())


def test_virtual_subclass_dispatches(registered):
    import abc

    class Interface(abc.ABC):
        pass

    class Impl:
        pass
    Interface.register(Impl)

    @tf.experimental.dispatch_for_unary_elementwise_apis(Interface)
    def unary(api_func, x):
        return "interface"
    registered.append(unary)
    assert tf.math.square(Impl()) == "interface"
