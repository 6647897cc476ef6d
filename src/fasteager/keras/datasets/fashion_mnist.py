"""Fashion-MNIST (Xiao, Rasul & Vollgraf, Zalando 2017), as ``tf.keras.datasets.fashion_mnist``.

Ten classes of 28x28 grayscale clothing images (0 T-shirt/top, 1 Trouser, 2 Pullover,
3 Dress, 4 Coat, 5 Sandal, 6 Shirt, 7 Sneaker, 8 Bag, 9 Ankle boot), in the same four
IDX files as MNIST (same names), read with MNIST's loader rules: ``load_data(path=None)``
looks in ``path``, ``$FASTEAGER_DATA/fashion-mnist/``, ``/usr/share/datasets/fashion-mnist/``
(where Debian's ``dataset-fashion-mnist`` package installs them, offline), then
``~/.fasteager/datasets/fashion-mnist/``. With none found it downloads the files from
Keras's mirror once and caches them atomically; each is kept only if the SHA-256 of its
decompressed IDX data matches (the data, not the gzip stream, is checked, because
redistributions such as Debian's recompress it). Without a network it raises
``FileNotFoundError`` saying where to put the files.
"""
import gzip
import io
import os
import pathlib
import zlib

from ..._src.io.atomic import atomic_open
from ...errors import DataLossError
from . import mnist

FILES = mnist.FILES
# SHA-256 of the decompressed IDX files (checked against Debian's dataset-fashion-mnist).
SHA256 = {
    "train-images-idx3-ubyte": "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888",
    "train-labels-idx1-ubyte": "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9",
    "t10k-images-idx3-ubyte": "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b",
    "t10k-labels-idx1-ubyte": "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34",
}
MIRRORS = ("https://storage.googleapis.com/tensorflow/tf-keras-datasets/",)
SYSTEM_DIR = pathlib.Path("/usr/share/datasets/fashion-mnist")
CLASS_NAMES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
               "Sneaker", "Bag", "Ankle boot")


def cache_dir():
    """``~/.fasteager/datasets/fashion-mnist``."""
    return pathlib.Path(os.path.expanduser("~")) / ".fasteager" / "datasets" / "fashion-mnist"


def fetch(url, dest):
    """Download ``url`` to the open binary file ``dest`` (replaced in tests)."""
    mnist.fetch(url, dest)


def _renamed(e):
    # MNIST's reader names itself in its messages; the files are this dataset's
    return DataLossError(str(e).replace("mnist.load_data", "fashion_mnist.load_data", 1))


def _search(folder):
    paths = mnist._idx_paths(folder)
    if paths is None:
        return None
    try:
        return mnist._load_idx(paths)
    except DataLossError as e:
        raise _renamed(e) from None


def _download(folder):
    """Fetch the four files into ``folder``, each renamed into place only once its data
    checksum matches. Returns None, or the list of errors."""
    import hashlib
    errors = []
    for stem, digest in SHA256.items():
        target = folder / (stem + ".gz")
        for mirror in MIRRORS:
            try:
                buf = io.BytesIO()
                fetch(mirror + stem + ".gz", buf)
                try:
                    got = hashlib.sha256(gzip.decompress(buf.getvalue())).hexdigest()
                except (OSError, EOFError, zlib.error) as e:
                    raise ValueError("not a valid gzip file (%s)" % e) from None
                if got != digest:
                    raise ValueError("checksum mismatch (expected sha256 %s of the data, got "
                                     "%s)" % (digest, got))
                folder.mkdir(parents=True, exist_ok=True)
                with atomic_open(target) as f:
                    f.write(buf.getvalue())
                break
            except (OSError, ValueError) as e:
                errors.append("%s%s.gz: %s" % (mirror, stem, e))
        else:
            return errors
    return None


def load_data(path=None):
    """``(x_train, y_train), (x_test, y_test)``: uint8 arrays shaped (60000, 28, 28),
    (60000,), (10000, 28, 28), (10000,); labels 0-9 index ``CLASS_NAMES``.

    >>> (x_train, y_train), (x_test, y_test) = fe.keras.datasets.fashion_mnist.load_data()
    """
    searched = []
    if path is not None:
        p = pathlib.Path(os.path.expanduser(os.fspath(path)))
        if p.is_file():
            raise ValueError("fashion_mnist.load_data: path must be a folder holding the four "
                             "IDX files (expected a directory, got the file %s)" % p)
        searched.append(p)
    env = os.environ.get("FASTEAGER_DATA")
    if env:
        searched.append(pathlib.Path(env) / "fashion-mnist")
    cache = cache_dir()
    searched += [SYSTEM_DIR, cache]
    for folder in searched:
        if folder.is_dir():
            found = _search(folder)
            if found is not None:
                return found
    errors = mnist.download_into(cache, _download)
    if errors is None:
        return _search(cache)
    raise FileNotFoundError(
        "fashion_mnist.load_data: Fashion-MNIST not found and could not be downloaded "
        "(searched %s; download errors: %s). Put the four files %s (gzipped or not) in one "
        "of those folders, install Debian's dataset-fashion-mnist package, or set "
        "FASTEAGER_DATA to a folder containing fashion-mnist/"
        % ([str(s) for s in searched], "; ".join(errors[-4:]),
           ", ".join(s + ".gz" for s in FILES.values())))
