"""tf.data.experimental.CsvDataset and make_csv_dataset on small files written here (the
columns of the tf.data guide's titanic file): dtypes, defaults for missing values,
required columns, column selection, type inference, batching and labels."""
import csv
import gzip

import numpy as np
import pytest

import fasteager as tf
from fasteager.data import TensorSpec
from fasteager.errors import InvalidArgumentError

COLUMNS = ["survived", "sex", "age", "n_siblings_spouses", "parch", "fare", "class", "deck",
           "embark_town", "alone"]
ROWS = [
    [0, "male", 22.0, 1, 0, 7.25, "Third", "unknown", "Southampton", "n"],
    [1, "female", 38.0, 1, 0, 71.2833, "First", "C", "Cherbourg", "n"],
    [1, "female", 26.0, 0, 0, 7.925, "Third", "unknown", "Southampton", "y"],
    [1, "female", 35.0, 1, 0, 53.1, "First", "C", "Southampton", "n"],
    [0, "male", 28.0, 0, 0, 8.4583, "Third", "unknown", "Queenstown", "y"],
    [0, "male", 2.0, 3, 1, 21.075, "Third", "unknown", "Southampton", "n"],
    [1, "female", 27.0, 0, 2, 11.1333, "Third", "unknown", "Southampton", "n"],
]
TYPES = [tf.int32, tf.string, tf.float32, tf.int32, tf.int32, tf.float32, tf.string,
         tf.string, tf.string, tf.string]


@pytest.fixture
def titanic(tmp_path):
    path = tmp_path / "train.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        w.writerows(ROWS)
    return str(path)


@pytest.fixture
def missing(tmp_path):
    # the guide's missing.csv
    path = tmp_path / "missing.csv"
    path.write_text("1,2,3,4\n,2,3,4\n1,,3,4\n1,2,,4\n1,2,3,\n,,,\n")
    return str(path)


def _py(value, dtype):
    return value.encode() if dtype == tf.string else value


def test_csv_dataset_typed_records(titanic):
    ds = tf.data.experimental.CsvDataset(titanic, TYPES, header=True)
    assert ds.element_spec == tuple(TensorSpec([], t) for t in TYPES)
    records = list(ds)
    assert len(records) == len(ROWS)
    for record, row in zip(records, ROWS):
        assert [x.dtype for x in record] == TYPES
        for x, want, t in zip(record, row, TYPES):
            got = x.numpy()
            if t == tf.float32:
                assert got == np.float32(want)
            else:
                assert got == _py(want, t)


def test_csv_defaults_fill_missing_values(missing):
    ds = tf.data.experimental.CsvDataset(missing, [999, 999, 999, 999])
    rows = [tf.stack(r).numpy().tolist() for r in ds]
    assert rows == [[1, 2, 3, 4], [999, 2, 3, 4], [1, 999, 3, 4], [1, 2, 999, 4],
                    [1, 2, 3, 999], [999] * 4]
    assert next(iter(ds))[0].dtype == tf.int32
    sel = tf.data.experimental.CsvDataset(missing, [999, 999], select_cols=[1, 3])
    assert [tf.stack(r).numpy().tolist() for r in sel] == \
        [[2, 4], [2, 4], [999, 4], [2, 4], [2, 999], [999, 999]]
    floats = tf.data.experimental.CsvDataset(missing, [0.5, tf.constant([1], tf.int64),
                                                       "x", tf.float64])
    first = next(iter(floats.skip(1)))
    assert [v.dtype for v in first] == [tf.float32, tf.int64, tf.string, tf.float64]
    assert first[0].numpy() == np.float32(0.5) and first[2].numpy() == b"3"


def test_csv_required_and_malformed_fields(missing, tmp_path):
    required = tf.data.experimental.CsvDataset(missing, [tf.int32, 0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="field 0 is required but missing in "
                                                   "record 1"):
        list(required)
    empty_tensor = tf.data.experimental.CsvDataset(missing, [0, tf.constant([], tf.int32), 0, 0])
    with pytest.raises(InvalidArgumentError, match="field 1 is required"):
        list(empty_tensor)
    bad = tmp_path / "bad.csv"
    bad.write_text("1,2\n3,x\n4\n")
    with pytest.raises(InvalidArgumentError, match="not a valid int32: 'x'"):
        list(tf.data.experimental.CsvDataset(str(bad), [0, 0]))
    short = tf.data.experimental.CsvDataset(str(bad), [0, ""])
    with pytest.raises(InvalidArgumentError, match="expect 2 fields but have 1 in record 2"):
        list(short)
    big = tmp_path / "big.csv"
    big.write_text("3000000000\n")
    with pytest.raises(InvalidArgumentError, match="valid int32"):
        list(tf.data.experimental.CsvDataset(str(big), [tf.int32]))
    assert int(next(iter(tf.data.experimental.CsvDataset(str(big), [tf.int64])))[0]) == \
        3000000000
    with pytest.raises(TypeError, match="dtype bool"):
        tf.data.experimental.CsvDataset(str(big), [True])


def test_csv_quotes_delimiters_na_and_gzip(tmp_path):
    p = tmp_path / "q.csv"
    p.write_text('a;"x;y";NA\nb;"say ""hi""";2\n')
    ds = tf.data.experimental.CsvDataset(str(p), ["", "", -1], field_delim=";",
                                         na_value="NA")
    assert [[v.numpy() for v in r] for r in ds] == [[b"a", b"x;y", -1],
                                                   [b"b", b'say "hi"', 2]]
    # without quote handling the quoted ";" splits the field
    literal = tf.data.experimental.CsvDataset(str(p), ["", "", "", ""], field_delim=";",
                                              use_quote_delim=False)
    assert [v.numpy() for v in next(iter(literal))] == [b"a", b'"x', b'y"', b"NA"]
    gz = tmp_path / "z.csv.gz"
    with gzip.open(gz, "wt") as f:
        f.write("1,2\n3,4\n")
    ds = tf.data.experimental.CsvDataset(str(gz), [0, 0], compression_type="GZIP")
    assert [tf.stack(r).numpy().tolist() for r in ds] == [[1, 2], [3, 4]]


def test_make_csv_dataset_infers_types_and_splits_the_label(titanic):
    ds = tf.data.experimental.make_csv_dataset(titanic, batch_size=4, label_name="survived",
                                               shuffle=False, num_epochs=1)
    batches = list(ds)
    assert [len(labels) for _, labels in batches] == [4, 3]
    features, labels = batches[0]
    assert list(features) == COLUMNS[1:]
    assert labels.dtype == tf.int32
    np.testing.assert_array_equal(labels.numpy(), [r[0] for r in ROWS[:4]])
    want_types = dict(zip(COLUMNS, TYPES))
    for name, value in features.items():
        assert value.dtype == want_types[name], name
    np.testing.assert_allclose(features["fare"].numpy(), [r[5] for r in ROWS[:4]], rtol=1e-6)
    assert features["class"].numpy().tolist() == [r[6].encode() for r in ROWS[:4]]


def test_make_csv_dataset_repeats_shuffles_and_selects(titanic):
    ds = tf.data.experimental.make_csv_dataset(titanic, batch_size=4, label_name="survived",
                                               select_columns=["class", "fare", "survived"],
                                               shuffle_seed=1)
    spec_features, spec_label = ds.element_spec
    assert set(spec_features) == {"class", "fare"}
    assert spec_label == TensorSpec([4], tf.int32)   # repeated forever: full batches
    fares = []
    for features, labels in ds.take(7):     # 28 records: 4 epochs of 7
        assert labels.shape == (4,)
        fares.extend(features["fare"].numpy().tolist())
        by_fare = {np.float32(r[5]): r for r in ROWS}
        for f, c, s in zip(features["fare"].numpy(), features["class"].numpy(),
                           labels.numpy()):
            assert by_fare[f][6].encode() == c and by_fare[f][0] == s
    assert sorted(fares) == sorted([np.float32(r[5]) for r in ROWS] * 4)
    assert fares[:7] != [np.float32(r[5]) for r in ROWS]      # shuffled


def test_make_csv_dataset_column_defaults_names_and_errors(titanic, tmp_path):
    # the guide's credit-card call: column_defaults=[float()] * 30 + [int()]
    p = tmp_path / "cc.csv"
    p.write_text("a,b,Class\n0.5,,1\n1.5,2.5,0\n")
    ds = tf.data.experimental.make_csv_dataset(str(p), batch_size=2, label_name="Class",
                                               column_defaults=[float()] * 2 + [int()],
                                               num_epochs=1, shuffle=False)
    features, label = next(iter(ds))
    assert features["b"].numpy().tolist() == [0.0, 2.5] and label.dtype == tf.int32
    headless = tmp_path / "h.csv"
    headless.write_text("1,x\n2,y\n")
    ds = tf.data.experimental.make_csv_dataset(str(headless), 2, column_names=["n", "s"],
                                               header=False, num_epochs=1, shuffle=False)
    out = next(iter(ds))
    assert out["n"].numpy().tolist() == [1, 2] and out["s"].numpy().tolist() == [b"x", b"y"]
    with pytest.raises(ValueError, match="label_name"):
        tf.data.experimental.make_csv_dataset(titanic, 2, label_name="nope")
    with pytest.raises(ValueError, match="no files match"):
        tf.data.experimental.make_csv_dataset(str(tmp_path / "*.tsv"), 2)
    with pytest.raises(ValueError, match="without a header"):
        tf.data.experimental.make_csv_dataset(str(headless), 2, header=False)
    with pytest.raises(ValueError, match="same length"):
        tf.data.experimental.make_csv_dataset(titanic, 2, select_columns=["fare"],
                                              column_defaults=[0.0, 0.0])
    with pytest.raises(ValueError, match="not a column"):
        tf.data.experimental.make_csv_dataset(titanic, 2, select_columns=["fee"])


def test_make_csv_dataset_inference_widens_types(tmp_path):
    p = tmp_path / "w.csv"
    p.write_text("i,big,f,s,empty\n1,1,1,1,\n2,9000000000,2.5,x,\n")
    ds = tf.data.experimental.make_csv_dataset(str(p), 2, num_epochs=1, shuffle=False)
    out = next(iter(ds))
    assert [out[k].dtype for k in ("i", "big", "f", "s", "empty")] == \
        [tf.int32, tf.int64, tf.float32, tf.string, tf.string]
    assert out["big"].numpy().tolist() == [1, 9000000000]
    assert out["empty"].numpy().tolist() == [b"", b""]     # inferred columns are optional


def test_checkpointed_csv_iterators_restore_position(titanic, missing, tmp_path):
    def values(e):
        return [t.numpy().tolist() for t in tf.nest.flatten(e)]
    for ds in (tf.data.experimental.make_csv_dataset(titanic, batch_size=3,
                                                     label_name="survived"),
               tf.data.experimental.CsvDataset(missing, [0, 0, 0, 0]).repeat()):
        it = iter(ds)
        next(it)
        ckpt = tf.train.Checkpoint(iterator=it)
        path = ckpt.save(str(tmp_path / "ckpt"))
        after = [values(next(it)) for _ in range(4)]
        ckpt.restore(path).assert_consumed()
        assert [values(next(it)) for _ in range(4)] == after


def test_make_csv_dataset_ignore_errors_skips_malformed_quoting(tmp_path):
    # as TensorFlow 2.21: a record with a stray quote is dropped and reading goes on after
    # its line; an unterminated quote runs to the end of the file
    stray = tmp_path / "stray.csv"
    stray.write_bytes(b'a,b\n1,2\n3,x"y\n5,6\n')
    open_quote = tmp_path / "open.csv"
    open_quote.write_bytes(b'a,b\n1,2\n3,"4\n5,6\n')

    def rows(path, ignore):
        ds = tf.data.experimental.make_csv_dataset(
            str(path), batch_size=1, column_defaults=[0, 0], ignore_errors=ignore,
            shuffle=False, num_epochs=1)
        return [[int(e["a"][0]), int(e["b"][0])] for e in ds]
    assert rows(stray, True) == [[1, 2], [5, 6]]
    assert rows(open_quote, True) == [[1, 2]]
    with pytest.raises(InvalidArgumentError, match="unquoted fields cannot have quotes"):
        rows(stray, False)
