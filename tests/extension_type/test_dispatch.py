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
