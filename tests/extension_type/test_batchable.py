"""Extension types as the extension-type guide uses them: specs, forward references,
batchable values in fe.data and fe.map_fn, autograph state, fe.function signatures.
Expected values and messages are TensorFlow 2.21's."""
from typing import Mapping, Optional, Tuple

import numpy as np
import pytest

import fasteager as tf


class MaskedTensor(tf.experimental.BatchableExtensionType):
    values: tf.Tensor
    mask: tf.Tensor

    def with_values(self, new_values):
        return MaskedTensor(new_values, self.mask)

    class Spec:
        def __init__(self, shape, dtype=tf.float32):
            self.values = tf.TensorSpec(shape, dtype)
            self.mask = tf.TensorSpec(shape, tf.bool)

        shape = property(lambda self: self.values.shape)
        dtype = property(lambda self: self.values.dtype)


class Network(tf.experimental.BatchableExtensionType):
    shape: tf.TensorShape  # batch shape
    work: tf.Tensor
    bandwidth: tf.Tensor

    def __init__(self, work, bandwidth):
        self.work = tf.convert_to_tensor(work)
        self.bandwidth = tf.convert_to_tensor(bandwidth)
        self.shape = self.work.shape[:-1].merge_with(self.bandwidth.shape[:-2])


class Pastry(tf.experimental.ExtensionType):
    sweetness: tf.Tensor
    chewiness: tf.Tensor


class Player(tf.experimental.ExtensionType):
    name: tf.Tensor
    attributes: Mapping[str, tf.Tensor]


class Scores(tf.experimental.ExtensionType):
    tag: str
    attributes: Mapping[str, tf.Tensor]


NET1 = ([5., 3, 8], [[0., 2, 0], [2, 0, 3], [0, 3, 0]])
NET2 = ([3., 4, 2], [[0., 2, 2], [2, 0, 2], [2, 2, 0]])


def batch_of_networks():
    return Network(work=tf.stack([NET1[0], NET2[0]]),
                   bandwidth=tf.stack([NET1[1], NET2[1]]))


def test_field_errors_and_forward_reference():
    with pytest.raises(TypeError, match="^mask: expected a Tensor, got 'NoneType'$"):
        MaskedTensor([1, 2, 3], None)

    class Node(tf.experimental.ExtensionType):
        value: tf.Tensor
        children: Tuple["Node", ...] = ()
    assert repr(Node(3, [Node(5), Node(2)])) == (
        "Node(value=<fe.Tensor: shape=(), dtype=int32, numpy=3>, children=(Node(value="
        "<fe.Tensor: shape=(), dtype=int32, numpy=5>, children=()), Node(value=<fe.Tensor: "
        "shape=(), dtype=int32, numpy=2>, children=())))")

    class Maybe(tf.experimental.ExtensionType):
        x: Optional[tf.Tensor]
    assert Maybe(None).x is None


def test_type_spec_from_value():
    anne = Player("Anne", {"height": 8.3, "speed": 28.1})
    spec = tf.type_spec_from_value(anne)
    assert isinstance(spec, Player.Spec) and isinstance(spec, tf.experimental.ExtensionTypeSpec)
    assert repr(spec.name) == "TensorSpec(shape=(), dtype=fe.string, name=None)"
    assert repr(spec.attributes) == (
        "ImmutableDict({'height': TensorSpec(shape=(), dtype=fe.float32, name=None), "
        "'speed': TensorSpec(shape=(), dtype=fe.float32, name=None)})")
    assert repr(spec) == (
        "Player.Spec(name=TensorSpec(shape=(), dtype=fe.string, name=None), attributes="
        "{'height': TensorSpec(shape=(), dtype=fe.float32, name=None), 'speed': "
        "TensorSpec(shape=(), dtype=fe.float32, name=None)})")
    assert spec == Player.Spec.from_value(anne)
    assert repr(tf.type_spec_from_value([1., 2.])) == \
        "TensorSpec(shape=(2,), dtype=fe.float32, name=None)"
    with pytest.raises(TypeError, match="Could not build a TypeSpec for .* of unsupported type"):
        tf.type_spec_from_value(object())


def test_spec_construction_compatibility_and_immutability():
    spec = Pastry.Spec(tf.TensorSpec([2]), tf.TensorSpec(2))
    assert repr(spec) == ("Pastry.Spec(sweetness=TensorSpec(shape=(2,), dtype=fe.float32, "
                          "name=None), chewiness=TensorSpec(shape=(2,), dtype=fe.float32, "
                          "name=None))")
    assert spec == Pastry.Spec(chewiness=tf.TensorSpec([2]), sweetness=tf.TensorSpec([2]))
    assert spec.is_compatible_with(Pastry([1., 2.], [3., 4.]))
    assert not spec.is_compatible_with(Pastry([1., 2., 3.], [3., 4., 5.]))
    assert not spec.is_compatible_with(Pastry([1, 2], [3, 4]))        # int32
    with pytest.raises(TypeError, match="missing a required argument: 'chewiness'"):
        Pastry.Spec(tf.TensorSpec([2]))
    with pytest.raises(TypeError, match="chewiness: expected a TensorSpec, got 'int'"):
        Pastry.Spec(tf.TensorSpec([2]), 3)
    with pytest.raises(AttributeError, match="Cannot mutate attribute `sweetness` outside the "
                                             "custom constructor of ExtensionTypeSpec"):
        spec.sweetness = tf.TensorSpec([3])
    assert isinstance(spec, tf.TypeSpec)


def test_user_defined_spec_class():
    spec = MaskedTensor.Spec([None, 2], tf.float32)
    assert isinstance(spec, tf.experimental.ExtensionTypeSpec)
    assert spec.shape == [None, 2] and spec.dtype == tf.float32
    assert spec.mask.dtype == tf.bool
    assert spec.is_compatible_with(MaskedTensor([[1., 2.]], [[True, False]]))
    assert not spec.is_compatible_with(MaskedTensor([[1., 2., 3.]], [[True, False, True]]))


def test_from_tensor_slices_batch_unbatch_keep_the_batch_shape():
    ds = tf.data.Dataset.from_tensor_slices(batch_of_networks())
    elements = list(ds)
    assert len(elements) == 2 and all(isinstance(e, Network) for e in elements)
    assert elements[1].shape == [] and elements[1].work.shape == (3,)
    np.testing.assert_array_equal(elements[1].work.numpy(), NET2[0])
    np.testing.assert_array_equal(elements[0].bandwidth.numpy(), NET1[1])
    batched, = list(ds.batch(2))
    assert batched.shape.as_list() == [None]        # TensorFlow: the batch size is unknown
    np.testing.assert_array_equal(batched.work.numpy(), [NET1[0], NET2[0]])
    again = list(ds.batch(2).unbatch())
    assert again[0].shape == [] and again[0].bandwidth.shape == (3, 3)


def test_element_spec_is_the_class_spec():
    ds = tf.data.Dataset.from_tensor_slices(MaskedTensor([[1, 2], [3, 4]],
                                                         [[True, False], [True, True]]))
    assert isinstance(ds.element_spec, MaskedTensor.Spec)
    assert repr(ds.element_spec) == (
        "MaskedTensor.Spec(values=TensorSpec(shape=(2,), dtype=fe.int32, name=None), "
        "mask=TensorSpec(shape=(2,), dtype=fe.bool, name=None))")
    assert repr(ds.batch(2).element_spec.values) == \
        "TensorSpec(shape=(None, 2), dtype=fe.int32, name=None)"


def test_map_fn_over_a_batchable_value():
    def balance_work_greedy(network):
        delta = (tf.expand_dims(network.work, -1) - tf.expand_dims(network.work, -2))
        delta /= 4
        delta = tf.maximum(tf.minimum(delta, network.bandwidth), -network.bandwidth)
        new_work = network.work + tf.reduce_sum(delta, -1)
        return Network(new_work, network.bandwidth)
    out = tf.map_fn(balance_work_greedy, batch_of_networks())
    assert isinstance(out, Network) and out.shape == [2]
    np.testing.assert_allclose(out.work.numpy(), [[5.5, 1.25, 9.25], [3., 4.75, 1.25]])
    with pytest.raises(TypeError, match="not a BatchableExtensionType"):
        tf.map_fn(lambda p: p, Pastry([1., 2.], [3., 4.]))


def test_from_tensors_and_from_generator():
    value, = list(tf.data.Dataset.from_tensors(Pastry(5, 5)))
    assert isinstance(value, Pastry) and int(value.sweetness) == 5

    def value_gen():
        for i in range(2, 7):
            yield MaskedTensor(range(10), [j % i != 0 for j in range(10)])
    ds = tf.data.Dataset.from_generator(
        value_gen, output_signature=MaskedTensor.Spec(shape=[10], dtype=tf.int32))
    values = list(ds)
    assert len(values) == 5
    np.testing.assert_array_equal(values[0].mask.numpy(), [j % 2 != 0 for j in range(10)])
    batches = list(ds.batch(2))
    assert [b.values.shape for b in batches] == [(2, 10), (2, 10), (1, 10)]
    np.testing.assert_array_equal(batches[2].mask.numpy(), [[j % 6 != 0 for j in range(10)]])
    rows = list(ds.batch(2).unbatch())
    assert len(rows) == 5 and rows[4].values.shape == (10,)

    def bad_gen():
        yield MaskedTensor([1.], [True])
    with pytest.raises(TypeError, match="from_generator: the generator yielded"):
        list(tf.data.Dataset.from_generator(
            bad_gen, output_signature=MaskedTensor.Spec(shape=[10], dtype=tf.int32)))


def test_autograph_if_and_for_with_extension_state():
    @tf.function
    def fn(x, b):
        if b:
            x = MaskedTensor(x, tf.less(x, 0))
        else:
            x = MaskedTensor(x, tf.greater(x, 0))
        for i in tf.range(5 if b else 7):
            x = x.with_values(x.values + 1 / 2)
        return x
    t = fn(tf.constant([1., -2, 3]), tf.constant(True))
    f = fn(tf.constant([1., -2, 3]), tf.constant(False))
    np.testing.assert_allclose(t.values.numpy(), [3.5, 0.5, 5.5])
    np.testing.assert_array_equal(t.mask.numpy(), [False, True, False])
    np.testing.assert_allclose(f.values.numpy(), [4.5, 1.5, 6.5])
    np.testing.assert_array_equal(f.mask.numpy(), [True, False, True])
    assert fn.experimental_get_tracing_count() == 1


def test_function_with_an_extension_spec_signature_and_mapping_fields():
    cookie = Pastry(sweetness=[1.2, 0.4], chewiness=[0.8, 0.2])

    @tf.function(input_signature=[Pastry.Spec(tf.TensorSpec([2]), tf.TensorSpec(2))])
    def increase_sweetness(x, delta=1.0):
        return Pastry(x.sweetness + delta, x.chewiness)
    out = increase_sweetness(cookie)
    np.testing.assert_allclose(out.sweetness.numpy(), [2.2, 1.4], rtol=1e-6)
    with pytest.raises(TypeError):
        increase_sweetness(Pastry([1., 2., 3.], [1., 2., 3.]))

    traces = []

    @tf.function
    def anonymize_player(player):
        traces.append(1)
        return Player("<anonymous>", player.attributes)
    a = anonymize_player(Player("Anne", {"height": 8.3, "speed": 28.1}))
    b = anonymize_player(Player("Bart", {"height": 8.1, "speed": 25.3}))
    assert len(traces) == 1
    assert a.name.numpy() == b"<anonymous>"
    np.testing.assert_allclose(b.attributes["speed"].numpy(), 25.3, rtol=1e-6)
    flat = tf.nest.flatten(b, expand_composites=True)
    assert len(flat) == 3


def test_components_and_static_key():
    p1 = Player("Anne", {"speed": 1., "height": 2.})
    p2 = Player("Bart", {"height": 3., "jump": 4.})
    assert [float(c) for c in p1._to_components()[1:]] == [2., 1.]    # sorted keys
    assert p1._static_key() != p2._static_key()
    rebuilt = p1._from_components([tf.constant("X"), tf.constant(5.), tf.constant(6.)])
    assert list(rebuilt.attributes) == ["speed", "height"]
    assert float(rebuilt.attributes["height"]) == 5.


def test_spec_placeholder_value_for_tracing():
    class Tagged(tf.experimental.ExtensionType):
        values: tf.Tensor
        parts: Tuple[tf.Tensor, ...]
        tag: str = "t"
    spec = Tagged.Spec(tf.TensorSpec([None, 2]), (tf.TensorSpec([], tf.int32),), "x")
    value = spec._placeholder_value()
    assert isinstance(value, Tagged) and value.tag == "x"
    assert value.values.shape == (1, 2) and value.values.dtype == tf.float32
    assert value.parts[0].dtype == tf.int32 and int(value.parts[0]) == 0
    assert spec.is_compatible_with(value)


def test_cond_and_while_loop_in_a_trace_stage_extension_values():
    @tf.function
    def pick(p, x):
        a = MaskedTensor(x, x > 0)
        b = MaskedTensor(x * 2, x < 0)
        return tf.cond(p, lambda: a, lambda: b)
    x = tf.constant([1., -1.])
    out = pick(tf.constant(False), x)
    np.testing.assert_array_equal(out.values.numpy(), [2., -2.])
    np.testing.assert_array_equal(out.mask.numpy(), [False, True])
    out = pick(tf.constant(True), x)
    np.testing.assert_array_equal(out.mask.numpy(), [True, False])

    @tf.function
    def loop(x, n):
        def body(i, mt):
            return i + 1, mt.with_values(mt.values + 0.5)
        return tf.while_loop(lambda i, _: i < n, body, [0, MaskedTensor(x, x > 0)])[1]
    with _no_warning():
        np.testing.assert_allclose(loop(x, tf.constant(2)).values.numpy(), [2., 0.])
    np.testing.assert_allclose(loop(x, tf.constant(4)).values.numpy(), [3., 1.])
    assert loop.experimental_get_tracing_count() == 1


class _no_warning:
    """The loop is staged: no eager fallback warning."""

    def __enter__(self):
        import warnings
        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        self._catch.__exit__(*exc)


def test_saved_model_keeps_extension_outputs(tmp_path):
    class Grower(tf.Module):
        @tf.function
        def grow(self, x):
            return MaskedTensor(x.values * 2, x.mask), tf.constant(7.)

        @tf.function
        def scale(self, attributes):
            return Scores("scaled", {k: v * 2 for k, v in attributes.items()})
    module = Grower()
    module.grow(MaskedTensor([1., 2.], [False, True]))
    module.scale({"height": tf.constant(8.3), "speed": tf.constant(28.1)})
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    out, seven = loaded.grow(MaskedTensor([3., 4.], [True, False]))
    assert isinstance(out, MaskedTensor) and float(seven) == 7.      # (outputs after it)
    np.testing.assert_array_equal(out.values.numpy(), [6., 8.])
    np.testing.assert_array_equal(out.mask.numpy(), [True, False])
    p = loaded.scale({"height": tf.constant(8.1), "speed": tf.constant(25.3)})
    assert isinstance(p, Scores) and p.tag == "scaled"
    assert list(p.attributes) == ["height", "speed"]
    np.testing.assert_allclose(p.attributes["speed"].numpy(), 50.6, rtol=1e-6)


def test_saved_extension_type_names_and_missing_classes():
    from fasteager._src.composite import extension_type

    class Named(tf.experimental.ExtensionType):
        __name__ = "my_project.Named"
        shape: tf.TensorShape
        values: tf.Tensor
    v = Named([2], [1., 2.])
    form = extension_type.saved_form(v, "test")
    assert form["type"] == "my_project.Named"
    again = extension_type.from_saved_form(form, [tf.constant([5., 6.])], "test")
    assert isinstance(again, Named) and again.shape == [2] and float(again.values[1]) == 6.
    with pytest.raises(tf.errors.NotFoundError, match="'nowhere.Gone' is not defined"):
        extension_type.from_saved_form(dict(form, type="nowhere.Gone"), [], "test")
    with pytest.raises(tf.errors.DataLossError, match="bad saved extension value"):
        extension_type.from_saved_form({"type": "my_project.Named", "fields": 3}, [], "test")


def test_saved_model_function_taking_an_extension_value(tmp_path):
    class Summer(tf.Module):
        @tf.function
        def masked_sum(self, x):
            return tf.reduce_sum(tf.where(x.mask, x.values, 0.))
    module = Summer()
    module.masked_sum(MaskedTensor([1., 2., 3.], [False, True, False]))
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert float(loaded.masked_sum(MaskedTensor([1., 2., 5.], [False, True, True]))) == 7.


# fe.function keys a composite by its ``_static_key()`` too, and traces a spec on
# ``spec._placeholder_value()``
def test_new_static_fields_trace_again():
    traces = []

    @tf.function
    def anonymize_player(player):
        traces.append(1)
        return Player("<anonymous>", player.attributes)
    anonymize_player(Player("Anne", {"height": 8.3, "speed": 28.1}))
    out = anonymize_player(Player("Chuck", {"height": 11.0, "jump": 5.3}))
    assert len(traces) == 2 and list(out.attributes) == ["height", "jump"]


def test_concrete_function_of_an_extension_spec():
    @tf.function
    def combine_pastry_features(x):
        return (x.sweetness + x.chewiness) / 2
    cf = combine_pastry_features.get_concrete_function(
        Pastry.Spec(tf.TensorSpec([2]), tf.TensorSpec(2)))
    np.testing.assert_allclose(cf(Pastry([1.2, 0.4], [0.8, 0.2])).numpy(), [1., 0.3],
                               rtol=1e-6)
