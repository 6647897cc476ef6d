"""fe.zeros / fe.zeros_like of strings hold the empty string, as TensorFlow's (they held
the integer 0 in an object array, which string ops then refused)."""
import fasteager as fe


def test_zeros_string():
    z = fe.zeros([2, 1], fe.string)
    assert z.dtype == fe.string
    assert z.numpy().tolist() == [[b""], [b""]]
    assert fe.strings.lower(z).numpy().tolist() == [[b""], [b""]]


def test_zeros_like_string():
    z = fe.zeros_like(fe.constant(["ab", "c"]))
    assert z.dtype == fe.string
    assert z.numpy().tolist() == [b"", b""]
