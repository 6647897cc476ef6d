"""keras.utils.load_img / img_to_array / array_to_img / save_img and
keras.preprocessing.image.smart_resize: Keras 3's semantics (PIL images, array layouts,
scaling, resizing, errors). PIL is optional: without it these tests skip, and the calls
raise Keras's ImportError (checked with PIL hidden)."""
import io
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import fasteager as fe

Image = pytest.importorskip("PIL.Image")
utils = fe.keras.utils


def _rgb(h=6, w=4, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3)).astype(np.uint8)


def test_the_exports_are_keras_3s():
    image = fe.keras.preprocessing.image
    for name in ("load_img", "img_to_array", "array_to_img", "save_img"):
        assert getattr(utils, name) is getattr(image, name)
    assert callable(image.smart_resize)


def test_importing_fasteager_does_not_import_pil():
    code = "import sys, fasteager; print('PIL' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.strip() == "False"


def test_without_pil_the_calls_raise_keras_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)     # makes `from PIL import Image` fail
    monkeypatch.delitem(sys.modules, "PIL.Image", raising=False)
    with pytest.raises(ImportError, match="The use of `load_img` requires PIL"):
        utils.load_img("any.png")
    with pytest.raises(ImportError, match="The use of `array_to_img` requires PIL"):
        utils.array_to_img(np.zeros((2, 2, 3)))
    # img_to_array needs no PIL: it reads anything NumPy can
    assert utils.img_to_array(np.zeros((2, 2))).shape == (2, 2, 1)


def test_array_to_img_modes_and_img_to_array_round_trip():
    x = _rgb().astype(np.float32)
    img = utils.array_to_img(x, scale=False)
    assert isinstance(img, Image.Image) and img.mode == "RGB" and img.size == (4, 6)
    back = utils.img_to_array(img)
    assert back.dtype == np.float32 and back.shape == (6, 4, 3)
    np.testing.assert_array_equal(back, x)
    rgba = np.concatenate([x, np.full((6, 4, 1), 255.0, np.float32)], axis=-1)
    assert utils.array_to_img(rgba, scale=False).mode == "RGBA"
    gray = utils.array_to_img(x[:, :, :1], scale=False)
    assert gray.mode == "L"
    np.testing.assert_array_equal(utils.img_to_array(gray), x[:, :, :1])
    big = utils.array_to_img(np.full((2, 2, 1), 1000.0), scale=False)  # > 255: 32-bit "I"
    assert big.mode == "I" and utils.img_to_array(big, dtype="int32")[0, 0, 0] == 1000


def test_array_to_img_scales_to_0_255_without_changing_its_input():
    x = np.array([[[-1.0], [0.0]], [[0.5], [1.0]]])
    before = x.copy()
    got = utils.img_to_array(utils.array_to_img(x))
    np.testing.assert_array_equal(got[..., 0], [[0, 127], [191, 255]])
    np.testing.assert_array_equal(x, before)
    flat = utils.img_to_array(utils.array_to_img(np.full((2, 2, 3), 7.0)))
    np.testing.assert_array_equal(flat, 0)           # a constant image: max 0 after shift


def test_channels_first_layout():
    x = _rgb().astype(np.float32)
    chw = x.transpose(2, 0, 1)
    img = utils.array_to_img(chw, data_format="channels_first", scale=False)
    assert img.size == (4, 6)
    np.testing.assert_array_equal(utils.img_to_array(img, data_format="channels_first"), chw)
    gray = utils.img_to_array(np.zeros((3, 5)), data_format="channels_first")
    assert gray.shape == (1, 3, 5)
    assert utils.img_to_array(img, dtype="uint8").dtype == np.uint8


def test_bad_arrays_and_layouts():
    with pytest.raises(ValueError, match=r"rank 3 \(single image\). Got array with shape: "
                                         r"\(1, 2, 2, 3\)"):
        utils.array_to_img(np.zeros((1, 2, 2, 3)))
    with pytest.raises(ValueError, match="Unsupported channel number: 2"):
        utils.array_to_img(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="Unsupported image shape"):
        utils.img_to_array(np.zeros((2, 2, 2, 2)))
    with pytest.raises(ValueError, match="data_format=channels_middle"):
        utils.img_to_array(np.zeros((2, 2, 3)), data_format="channels_middle")


def test_save_img_and_load_img_round_trip_png(tmp_path):
    x = _rgb()
    path = tmp_path / "img.png"
    utils.save_img(path, x, scale=False)
    img = utils.load_img(path)
    assert img.mode == "RGB" and img.size == (4, 6)
    np.testing.assert_array_equal(utils.img_to_array(img, dtype="uint8"), x)
    # str paths, bytes paths and BytesIO
    np.testing.assert_array_equal(np.asarray(utils.load_img(str(path))), x)
    np.testing.assert_array_equal(np.asarray(utils.load_img(str(path).encode())), x)
    np.testing.assert_array_equal(
        np.asarray(utils.load_img(io.BytesIO(path.read_bytes()))), x)
    # a file object with an explicit format
    buf = io.BytesIO()
    utils.save_img(buf, x, file_format="png", scale=False)
    np.testing.assert_array_equal(np.asarray(utils.load_img(io.BytesIO(buf.getvalue()))), x)


def test_save_img_jpg_suffix_and_rgba_to_jpeg(tmp_path):
    x = np.concatenate([_rgb(), np.full((6, 4, 1), 255, np.uint8)], axis=-1)
    path = tmp_path / "img.JPG"
    with pytest.warns(UserWarning, match="JPEG format does not support RGBA"):
        utils.save_img(path, x)
    with Image.open(path) as img:
        assert img.format == "JPEG" and img.mode == "RGB"


def test_load_img_color_modes(tmp_path):
    path = tmp_path / "img.png"
    utils.save_img(path, _rgb(), scale=False)
    assert utils.load_img(path, color_mode="grayscale").mode == "L"
    assert utils.load_img(path, color_mode="rgba").mode == "RGBA"
    assert utils.img_to_array(utils.load_img(path, color_mode="grayscale")).shape == (6, 4, 1)
    gray16 = tmp_path / "g16.png"
    Image.fromarray(np.full((3, 3), 40000, np.uint16)).save(gray16)
    assert utils.load_img(gray16, color_mode="grayscale").mode in ("I;16", "I")  # kept
    with pytest.raises(ValueError, match='color_mode must be "grayscale", "rgb", or "rgba"'):
        utils.load_img(path, color_mode="cmyk")
    with pytest.raises(TypeError, match="path should be path-like or io.BytesIO"):
        utils.load_img(3)


def test_load_img_target_size_nearest_and_aspect_ratio(tmp_path):
    x = _rgb(4, 4)
    path = tmp_path / "img.png"
    utils.save_img(path, x, scale=False)
    up = np.asarray(utils.load_img(path, target_size=(8, 8)))     # nearest: each pixel 2x2
    np.testing.assert_array_equal(up, x.repeat(2, axis=0).repeat(2, axis=1))
    wide = np.asarray(utils.load_img(path, target_size=(4, 8), interpolation="bilinear"))
    assert wide.shape == (4, 8, 3)
    same = utils.load_img(path, target_size=(4, 4), interpolation="no-such")  # no resize
    assert same.size == (4, 4)
    with pytest.raises(ValueError, match="Invalid interpolation method no-such specified"):
        utils.load_img(path, target_size=(2, 2), interpolation="no-such")
    # a tall 8x4 image: keep_aspect_ratio takes its centred 4x4 crop before a 2x2 resize
    tall = _rgb(8, 4, seed=1)
    utils.save_img(path, tall, scale=False)
    got = np.asarray(utils.load_img(path, target_size=(4, 4), keep_aspect_ratio=True))
    np.testing.assert_array_equal(got, tall[2:6])
    squashed = np.asarray(utils.load_img(path, target_size=(4, 4)))
    np.testing.assert_array_equal(squashed, tall[1::2])    # nearest: the row centres


def test_load_img_accepts_pathlib_relative_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    utils.save_img("rel.png", _rgb(), scale=False)
    assert utils.load_img(pathlib.Path("rel.png")).size == (4, 6)


def test_smart_resize_crops_the_centre_then_resizes():
    smart_resize = fe.keras.preprocessing.image.smart_resize
    x = np.arange(8 * 4 * 1, dtype=np.float32).reshape(8, 4, 1)
    got = smart_resize(x, (4, 4), interpolation="nearest")
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, x[2:6])
    batch = fe.constant(np.stack([x, x + 1]))
    out = smart_resize(batch, (2, 2))
    assert isinstance(out, fe.Tensor) and out.shape == (2, 2, 2, 1)
    np.testing.assert_allclose(out.numpy()[0], fe.image.resize(x[2:6], (2, 2)).numpy())
    chw = smart_resize(x.transpose(2, 0, 1), (4, 4), interpolation="nearest",
                       data_format="channels_first")
    np.testing.assert_array_equal(chw, x[2:6].transpose(2, 0, 1))
    with pytest.raises(ValueError, match="tuple of 2 integers"):
        smart_resize(x, (4,))
    with pytest.raises(ValueError, match="incorrect rank"):
        smart_resize(np.zeros((4, 4)), (2, 2))
    with pytest.raises(TypeError, match="unexpected keyword arguments"):
        smart_resize(x, (2, 2), antialias=True)
