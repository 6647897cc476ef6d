"""keras.ops core functions (and keras.ops.rearrange) against Keras 3.15.1: values, dtypes,
shapes, error classes and gradients of every case recorded by
tests/tf_reference/record_kops_core.py (the same case list runs here on fasteager)."""
import numpy as np
import pytest

import fasteager as fe
from fasteager.keras.ops import core, einops
from tests.keras.ops._kops_compare import check
from tests.tf_reference import load
from tests.tf_reference.record_kops_core import cases

REF = load("kops_core")
CASES = cases()
NAMES = sorted({c[0] for c in CASES})
KERAS_CORE = sorted([
    "associative_scan", "cast", "cond", "convert_to_numpy", "convert_to_tensor",
    "custom_gradient", "dtype", "fori_loop", "is_tensor", "map", "saturate_cast", "scan",
    "scatter", "scatter_update", "shape", "slice", "slice_update", "stop_gradient", "switch",
    "unstack", "vectorized_map", "while_loop"])


@pytest.mark.parametrize("name", NAMES)
def test_matches_keras(name):
    mine = [c for c in CASES if c[0] == name]
    assert mine
    for case in mine:
        check(case, REF[case[1]])


def test_every_name_recorded_and_in_its_namespaces():
    assert sorted(core.__all__) == KERAS_CORE
    assert set(KERAS_CORE) <= set(NAMES)
    assert einops.__all__ == ["rearrange"]
    for name in KERAS_CORE + ["rearrange"]:
        assert getattr(fe.keras.ops, name) is getattr(core if name != "rearrange" else einops,
                                                      name)


def test_slice_update_gradients():
    # Keras's TF backend has no gradient for slice_update (XLA's op); ours routes the
    # block's gradient to the updates and the rest to the inputs.
    x = fe.constant(np.arange(12.0, dtype="float32").reshape(3, 4))
    u = fe.constant(np.ones((2, 2), "float32"))
    with fe.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = fe.keras.ops.slice_update(x, [2, 3], u) * 2.0  # clamped to start (1, 2)
    gx, gu = tape.gradient(y, [x, u])
    want = np.full((3, 4), 2.0, "float32")
    want[1:3, 2:4] = 0.0
    np.testing.assert_array_equal(gx.numpy(), want)
    np.testing.assert_array_equal(gu.numpy(), np.full((2, 2), 2.0, "float32"))


def test_rearrange_bad_pattern():
    x = fe.zeros((2, 3))
    with pytest.raises(ValueError, match="rearrange"):
        fe.keras.ops.rearrange(x, "a b c -> c b a")
    with pytest.raises(ValueError, match="rearrange"):
        fe.keras.ops.rearrange(x, "a b -> a d")
