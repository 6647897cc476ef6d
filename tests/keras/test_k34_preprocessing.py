"""Keras 3's non-random preprocessing layers against values recorded from Keras 3.15.1
(tests/tf_reference/record_k34_preprocessing.py)."""
import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load

REF = load("k34_preprocessing")
CASES = {c["name"]: c for c in REF["cases"]}
# (name, rtol, atol): float32 arithmetic in another order
TOL = {"Resizing": (1e-5, 1e-3), "CenterCrop": (1e-6, 1e-4), "AutoContrast": (1e-5, 1e-4),
       "Solarization": (1e-5, 1e-4), "MelSpectrogram": (1e-4, 1e-4),
       "STFTSpectrogram": (1e-4, 1e-5)}


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


TEXT = sorted(n for n, c in CASES.items() if c.get("text"))


@pytest.mark.parametrize("name", TEXT)
def test_recorded_text(name):
    case = CASES[name]
    cls = getattr(fe.keras.layers, case["class"])
    kwargs = dict(case["kwargs"])
    if isinstance(kwargs.get("ngrams"), list):
        kwargs["ngrams"] = tuple(kwargs["ngrams"])
    layer = cls(**kwargs, name=case["config"]["name"])
    if case["adapt"] is not None:
        data = case["adapt"]
        if case["adapt_batches"]:
            data = fe.data.Dataset.from_tensor_slices(np.array(data)).batch(
                case["adapt_batches"])
        layer.adapt(data if case["adapt_batches"] else np.array(data))
    inputs = _arr(case["input"])
    out = layer(inputs)
    want = case["output"]
    if "ragged" in want:
        assert isinstance(out, fe.RaggedTensor)
        assert out.to_list() == want["ragged"]
    else:
        want = _arr(want)
        text = want.dtype.kind in "UO"
        assert out.dtype.name == ("string" if text else want.dtype.name)
        got = out.numpy()
        if text:
            got = np.vectorize(lambda b: b.decode())(got) if got.size else got
            assert got.tolist() == want.tolist()
        else:
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    assert layer.get_vocabulary() == case["vocabulary"]
    assert layer.vocabulary_size() == case["vocabulary_size"]
    config = _json(_config(layer))
    assert config == case["config"]
    clone = _json(_config(cls.from_config(layer.get_config())))
    if case["adapt"] is not None and case["class"] == "TextVectorization":
        # an adapted vocabulary is not in the config (Keras saves it as an asset), and
        # TextVectorization reports the size of the vocabulary it holds, as Keras's does
        clone.pop("vocabulary_size")
        config.pop("vocabulary_size")
    assert clone == config
    again = fe.keras.layers.deserialize(fe.keras.layers.serialize(layer))
    assert type(again) is cls
    if case["adapt"] is None:
        assert again.get_vocabulary() == case["vocabulary"]


SPECIAL = ("MaxNumBoundingBoxes", "Pipeline")
RAGGED = sorted(n for n, c in CASES.items() if "ragged_input" in c)


@pytest.mark.parametrize("name", RAGGED)
def test_recorded_ragged(name):
    case = CASES[name]
    layer = getattr(fe.keras.layers, case["class"])(**case["kwargs"])
    out = layer(fe.ragged.constant(case["ragged_input"]))
    want = case["output"]
    if "ragged" in want:
        assert isinstance(out, fe.RaggedTensor)
        assert out.to_list() == want["ragged"]
    else:
        want = _arr(want)
        assert out.dtype.name == want.dtype.name
        np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items()
                                        if c["class"] == "MaxNumBoundingBoxes"))
def test_recorded_max_num_bounding_boxes(name):
    case = CASES[name]
    layer = fe.keras.layers.MaxNumBoundingBoxes(**case["kwargs"])
    out = layer({"images": _arr(case["input"]),
                 "bounding_boxes": {"boxes": _arr(case["boxes"]),
                                    "labels": _arr(case["labels"])}})
    np.testing.assert_array_equal(out["images"].numpy(), _arr(case["output"]))
    for key in ("boxes", "labels"):
        got, want = out["bounding_boxes"][key], _arr(case[key + "_out"])
        assert got.dtype.name == want.dtype.name
        np.testing.assert_array_equal(got.numpy(), want)
    config = _json(_config(layer))
    config.pop("name")
    # Keras's config leaves fill_value out (a reload pads with -1); fasteager keeps it
    assert config.pop("fill_value") == case["kwargs"]["fill_value"]
    assert fe.keras.layers.MaxNumBoundingBoxes.from_config(layer.get_config()).fill_value == \
        case["kwargs"]["fill_value"]
    want = dict(case["config"])
    want.pop("name")
    assert config == want
    with pytest.raises(ValueError, match="bounding box format"):
        fe.keras.layers.MaxNumBoundingBoxes(3)({"images": _arr(case["input"]),
                                                "bounding_boxes": {"boxes": _arr(case["boxes"]),
                                                                   "labels": _arr(case["labels"])}})


def test_recorded_pipeline():
    case = CASES["pipeline"]
    layers = [getattr(fe.keras.layers, cls)(**{k: v for k, v in config.items()
                                               if k != "name"})
              for cls, config in case["layers"]]
    pipe = fe.keras.layers.Pipeline(layers)
    out = pipe(_arr(case["input"]))
    np.testing.assert_allclose(out.numpy(), _arr(case["output"]), rtol=1e-5, atol=1e-4)
    config = pipe.get_config()
    assert sorted(config) == case["config_keys"]
    again = fe.keras.layers.Pipeline.from_config(config)
    assert [type(layer).__name__ for layer in again.layers] == [c for c, _ in case["layers"]]
    np.testing.assert_allclose(again(_arr(case["input"])).numpy(), out.numpy())
    again = fe.keras.layers.deserialize(fe.keras.layers.serialize(pipe))
    np.testing.assert_allclose(again(_arr(case["input"])).numpy(), out.numpy())


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items()
                                        if not c.get("text") and c["class"] not in SPECIAL
                                        and "ragged_input" not in c))
def test_recorded(name):
    case = CASES[name]
    cls = getattr(fe.keras.layers, case["class"])
    layer = cls(**case["kwargs"], name=case["config"]["name"])
    if case.get("adapt") and case.get("adapt_batches"):
        layer.adapt(fe.data.Dataset.from_tensor_slices(_arr(case["adapt"])).batch(
            case["adapt_batches"]))
    elif case.get("adapt"):
        layer.adapt(_arr(case["adapt"]))
    if case.get("adapt_dataset_batches"):
        ds = fe.data.Dataset.from_tensor_slices(_arr(case["input"])).batch(
            case["adapt_dataset_batches"])
        layer.adapt(ds)
    inputs = [_arr(x) for x in case["inputs"]] if "inputs" in case else _arr(case["input"])
    out = layer(inputs)
    want = _arr(case["output"])
    for got_w, want_w in zip(layer.get_weights(), case["weights"]):
        np.testing.assert_allclose(got_w, _arr(want_w), rtol=1e-6, atol=1e-6)
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


@pytest.mark.parametrize("mode", ["multi_hot", "count"])
def test_category_encoding_negative_id(mode):
    # Keras's TF backend counts with bincount, which refuses a negative id
    layer = fe.keras.layers.CategoryEncoding(num_tokens=3, output_mode=mode)
    with pytest.raises(fe.errors.InvalidArgumentError, match="non-negative"):
        layer(np.array([[0, -1]]))


def test_lookup_vocabulary_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("b\na\nc\n", encoding="utf-8")
    from_file = fe.keras.layers.StringLookup(vocabulary=str(path))
    from_list = fe.keras.layers.StringLookup(vocabulary=["b", "a", "c"])
    x = np.array([["a", "c", "q"]])
    assert from_file(x).numpy().tolist() == from_list(x).numpy().tolist() == [[2, 3, 0]]
    assert from_file.get_vocabulary() == ["[UNK]", "b", "a", "c"]
    with pytest.raises(ValueError, match="does not exist"):
        fe.keras.layers.StringLookup(vocabulary=str(tmp_path / "missing.txt"))


def test_lookup_config_vocabulary_file_refused_in_safe_mode(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("a\n", encoding="utf-8")
    config = fe.keras.layers.StringLookup(vocabulary=["a"]).get_config()
    config["vocabulary"] = str(path)
    with pytest.raises(ValueError, match="vocabulary file"):
        fe.keras.layers.StringLookup.from_config(config)


def test_lookup_no_oov_slot_refuses_unknown_tokens():
    layer = fe.keras.layers.StringLookup(vocabulary=["a"], num_oov_indices=0)
    with pytest.raises(fe.errors.InvalidArgumentError, match="num_oov_indices=0"):
        layer(np.array(["a", "b"]))


def test_lookup_repeated_vocabulary():
    with pytest.raises(ValueError, match="repeated"):
        fe.keras.layers.IntegerLookup(vocabulary=[1, 2, 1])


def test_lookup_multi_hot_needs_vocabulary():
    layer = fe.keras.layers.StringLookup(output_mode="multi_hot")
    with pytest.raises(RuntimeError, match="vocabulary"):
        layer(np.array([["a"]]))


def test_text_vectorization_bad_rank():
    layer = fe.keras.layers.TextVectorization(vocabulary=["a"])
    with pytest.raises(ValueError, match="last shape dimension must be 1"):
        layer(np.array([["a b", "c"]]))


def test_text_vectorization_in_functional_model():
    # a string Input (whose shape probes run on empty strings) feeding the layer
    tv = fe.keras.layers.TextVectorization(max_tokens=10, output_sequence_length=4)
    tv.adapt(["a b c", "b c d"])
    inp = fe.keras.Input(shape=(1,), dtype="string")
    model = fe.keras.Model(inp, tv(inp))
    x = np.array([["a b"], ["d"]])
    np.testing.assert_array_equal(model.predict(x, verbose=0), tv(x).numpy())


def test_adapted_normalization_saved_and_loaded(tmp_path):
    x = np.random.RandomState(0).randn(20, 3).astype("float32") * 2 + 1
    norm = fe.keras.layers.Normalization()
    norm.adapt(x)
    model = fe.keras.Sequential([fe.keras.Input((3,)), norm, fe.keras.layers.Dense(1)])
    path = str(tmp_path / "m.keras")
    model.save(path)
    again = fe.keras.models.load_model(path)
    np.testing.assert_allclose(again.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-6)


@pytest.mark.parametrize("suffix", [".keras", ""])
def test_adapted_vocabularies_saved_and_loaded(tmp_path, suffix):
    # an adapted vocabulary is not in the config: Model.save keeps it as an asset
    # (Keras's save_assets / load_assets), so a reloaded model gives the same outputs
    docs = np.array([["the cat sat"], ["the dog"], ["a cat"]])
    tv = fe.keras.layers.TextVectorization(output_sequence_length=4)
    tv.adapt(docs[:, 0])
    tokens = np.array([["a", "b", "a"], ["c", "a", "d"]])
    tf_idf = fe.keras.layers.StringLookup(output_mode="tf_idf", max_tokens=9,
                                          pad_to_max_tokens=True)
    tf_idf.adapt(tokens)
    ints = fe.keras.layers.IntegerLookup(num_oov_indices=2, mask_token=0)
    ints.adapt(np.array([[4, 4, 9], [7, 0, 4]]))
    text_in = fe.keras.Input(shape=(1,), dtype="string")
    token_in = fe.keras.Input(shape=(3,), dtype="string")
    int_in = fe.keras.Input(shape=(3,), dtype="int64")
    model = fe.keras.Model([text_in, token_in, int_in],
                           [tv(text_in), tf_idf(token_in), ints(int_in)])
    x = [docs, np.array([["a", "d", "zz"], ["b", "b", "c"]]),
         np.array([[4, 5, 0], [9, 7, 11]])]
    path = str(tmp_path / ("m" + suffix))
    model.save(path)
    again = fe.keras.models.load_model(path)
    for got, want in zip(again.predict(x, verbose=0), model.predict(x, verbose=0)):
        np.testing.assert_allclose(got, want)
    vocabularies = [layer.get_vocabulary() for layer in again.layers
                    if hasattr(layer, "get_vocabulary")]
    assert tv.get_vocabulary() in vocabularies and ints.get_vocabulary() in vocabularies


def test_asset_names_with_paths_refused(tmp_path):
    import zipfile
    tv = fe.keras.layers.TextVectorization()
    tv.adapt(np.array(["a b"]))
    inp = fe.keras.Input(shape=(1,), dtype="string")
    path = str(tmp_path / "m.keras")
    fe.keras.Model(inp, tv(inp)).save(path)
    with zipfile.ZipFile(path) as z:
        members = {name: z.read(name) for name in z.namelist()}
    [asset] = [n for n in members if n.startswith("assets/")]
    members[asset.rsplit("/", 1)[0] + "/../../evil.txt"] = b"x"
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    with pytest.raises(fe.errors.DataLossError, match="bad asset name"):
        fe.keras.models.load_model(path)


def test_adapted_tf_idf_text_vectorization_saved_and_loaded(tmp_path):
    tv = fe.keras.layers.TextVectorization(output_mode="tf_idf")
    tv.adapt(np.array(["the cat sat", "the dog", "a cat"]))
    inp = fe.keras.Input(shape=(1,), dtype="string")
    model = fe.keras.Model(inp, tv(inp))
    path = str(tmp_path / "m.keras")
    model.save(path)
    x = np.array([["the cat"], ["zz dog dog"]])
    np.testing.assert_allclose(fe.keras.models.load_model(path).predict(x, verbose=0),
                               model.predict(x, verbose=0))
