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


def test_calls_and_training_steps_keep_the_tracking_caches():
    # per-call attributes (built, the output shape) are not structure: a training step
    # must not make every layer rebuild its variable lists
    from fasteager.keras.layers import base
    model = fe.keras.Sequential([fe.keras.layers.Dense(4, activation="relu"),
                                 fe.keras.layers.Dense(2)])
    opt = fe.keras.optimizers.SGD(0.1)
    x = fe.ones((3, 5))
    for _ in range(2):
        with fe.GradientTape() as tape:
            loss = fe.reduce_sum(model(x, training=True))
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                model.trainable_variables))
    before = base._STRUCTURE[0]
    for _ in range(3):
        with fe.GradientTape() as tape:
            loss = fe.reduce_sum(model(x, training=True))
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                model.trainable_variables))
    assert base._STRUCTURE[0] == before
    model.layers[0].units_note = "not structure"
    assert base._STRUCTURE[0] == before
    model.layers[0].extra = fe.Variable(1.0)
    assert base._STRUCTURE[0] > before
    assert len(model.trainable_variables) == 5
