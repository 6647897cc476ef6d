"""``tf.fingerprint``: FarmHash64 fingerprints of the rows of a tensor."""
import numpy as np

from ... import _core
from ...errors import InvalidArgumentError
from .farmhash import fingerprint64


def fingerprint(data, method="farmhash64", name=None):
    """A uint8 tensor of shape ``(len(data), 8)``: the little-endian FarmHash64 fingerprint
    of each row of ``data`` (its entries' little-endian bytes; a row of strings: of the
    string, or of the fingerprints of its strings), bit-exact with TensorFlow's."""
    if method != "farmhash64":
        raise InvalidArgumentError("fingerprint: unsupported method %r (expected "
                                   "'farmhash64')" % (method,))
    t = _core.convert_to_tensor(data)
    arr = _core.data_of(t, "fingerprint")
    if arr.ndim == 0:
        raise InvalidArgumentError("fingerprint: data should have at least one dimension "
                                   "(got a scalar)")
    rows = arr.reshape(arr.shape[0], -1)
    if arr.dtype == object:
        def row_hash(row):
            hashes = [fingerprint64(b if isinstance(b, bytes) else str(b).encode())
                      for b in row]
            if len(hashes) == 1:
                return hashes[0]
            return fingerprint64(np.asarray(hashes, "<u8").tobytes())
    else:
        rows = rows.astype(rows.dtype.newbyteorder("<"), copy=False)

        def row_hash(row):
            return fingerprint64(np.ascontiguousarray(row).tobytes())
    hashes = np.asarray([row_hash(r) for r in rows], "<u8").reshape(-1)
    return _core.wrap(hashes.view(np.uint8).reshape(arr.shape[0], 8))
