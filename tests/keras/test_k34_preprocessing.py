"""Keras 3's non-random preprocessing layers against values recorded from Keras 3.15.1
(tests/tf_reference/record_k34_preprocessing.py)."""
import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load

REF = load("k34_preprocessing")
CASES = {c["name"]: c for c in REF["cases"]}
# (name, rtol, atol): float32 arithmetic in another order
TOL = {"Resizing": (1e-5, 1e-3), "CenterCrop": (1e-6, 1e-4)}


def _arr(rec):
    return np.array(rec["values"], dtype=rec["dtype"]).reshape(rec["shape"])


def _config(layer):
    config = dict(layer.get_config())
    config.pop("dtype", None)
    return config


def _json(value):
    """A config as the recorded JSON holds it (tuples are lists)."""
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    return value


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    case = CASES[name]
    cls = getattr(fe.keras.layers, case["class"])
    layer = cls(**case["kwargs"], name=case["config"]["name"])
    if case.get("adapt"):
        layer.adapt(_arr(case["adapt"]))
    if case.get("adapt_dataset_batches"):
        ds = fe.data.Dataset.from_tensor_slices(_arr(case["input"])).batch(
            case["adapt_dataset_batches"])
        layer.adapt(ds)
    inputs = [_arr(x) for x in case["inputs"]] if "inputs" in case else _arr(case["input"])
    out = layer(inputs)
    want = _arr(case["output"])
    assert out.dtype.name == want.dtype.name
    assert tuple(out.shape.as_list()) == want.shape
    rtol, atol = TOL.get(case["class"], (1e-6, 1e-6))
    np.testing.assert_allclose(out.numpy(), want, rtol=rtol, atol=atol)
    config = _json(_config(layer))
    assert config == case["config"]
    if "mean" in case:
        np.testing.assert_allclose(np.asarray(layer.mean).reshape(-1),
                                   _arr(case["mean"]).reshape(-1), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(np.asarray(layer.variance).reshape(-1),
                                   _arr(case["variance"]).reshape(-1), rtol=1e-6,
                                   atol=1e-6)
    if "bin_boundaries" in case:
        np.testing.assert_allclose(layer.bin_boundaries, case["bin_boundaries"], rtol=1e-6)
    # config round trip, and serialize/deserialize by name
    clone = cls.from_config(layer.get_config())
    assert _json(_config(clone)) == config
    again = fe.keras.layers.deserialize(fe.keras.layers.serialize(layer))
    assert type(again) is cls
    if not case.get("adapt") and not case.get("adapt_dataset_batches"):
        np.testing.assert_allclose(again(inputs).numpy(), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("i", range(len(REF["hash_bucket_strong"])))
def test_to_hash_bucket_strong(i):
    case = REF["hash_bucket_strong"][i]
    got = fe.strings.to_hash_bucket_strong(case["strings"], 1000003, key=case["key"])
    assert got.dtype == fe.int64
    assert got.numpy().tolist() == case["buckets"]


def test_siphash_reference_vector():
    # the SipHash-2-4 paper's test vector (key 00..0f, message 00..0e)
    from fasteager._src.composite.siphash import siphash24
    k0 = int.from_bytes(bytes(range(8)), "little")
    k1 = int.from_bytes(bytes(range(8, 16)), "little")
    assert siphash24(k0, k1, bytes(range(15))) == 0xa129ca6149be45e5


def test_to_hash_bucket_strong_key_length():
    with pytest.raises(fe.errors.InvalidArgumentError, match="key must have 2"):
        fe.strings.to_hash_bucket_strong(["a"], 3, key=[1])


def test_category_encoding_out_of_range():
    layer = fe.keras.layers.CategoryEncoding(num_tokens=3)
    with pytest.raises(ValueError, match="num_tokens=3"):
        layer(np.array([[0, 3]]))
