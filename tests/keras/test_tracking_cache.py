"""Tracking caches stay correct when the structure changes after first use."""
import fasteager as fe


class Blocks(fe.keras.Model):
    def __init__(self):
        super().__init__()
        self.blocks = []
        self.table = {}

    def call(self, x):
        for b in self.blocks:
            x = b(x)
        for k in sorted(self.table):
            x = self.table[k](x)
        return x


def test_list_and_dict_mutations_after_first_use():
    m = Blocks()
    assert m.trainable_variables == []
    m.blocks.append(fe.keras.layers.Dense(3))
    m(fe.ones([1, 2]))
    assert len(m.trainable_variables) == 2
    m.table["z"] = fe.keras.layers.Dense(4)
    m(fe.ones([1, 2]))
    assert len(m.trainable_variables) == 4
    del m.table["z"]
    assert len(m.trainable_variables) == 2
    m.extra = fe.Variable(1.0)
    assert len(m.trainable_variables) == 3
    m.blocks[0].trainable = False
    assert len(m.trainable_variables) == 1
    assert len(m.non_trainable_variables) == 2


def test_variable_trainable_flag_is_read_on_access():
    layer = fe.keras.layers.Dense(2)
    layer(fe.ones([1, 3]))
    assert len(layer.trainable_weights) == 2
    layer.kernel.trainable = False
    assert len(layer.trainable_weights) == 1 and len(layer.non_trainable_weights) == 1


def test_set_floatx_sets_the_default_layer_dtype():
    fe.keras.backend.set_floatx("float64")
    try:
        layer = fe.keras.layers.Dense(2)
        y = layer(fe.ones([1, 3], dtype=fe.float64))
        assert layer.kernel.dtype == fe.float64 and y.dtype == fe.float64
    finally:
        fe.keras.backend.set_floatx("float32")
    assert fe.keras.layers.Dense(2)(fe.ones([1, 3])).dtype == fe.float32
