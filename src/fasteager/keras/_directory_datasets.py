"""Datasets from a directory of files, as Keras 3's ``image_dataset_from_directory``,
``text_dataset_from_directory`` and ``audio_dataset_from_directory``: one subdirectory per
class (``labels="inferred"``), or a list of labels in the sorted order of the files, or no
labels; an ``fe.data.Dataset`` of batches with ``class_names`` set.

The files are listed and ordered as Keras does (sorted; with ``shuffle=True`` permuted by
``np.random.RandomState(seed)``, the labels the same way), and ``validation_split`` /
``subset`` take the same files. Keras then also shuffles within a buffer with TensorFlow's
random stream, which is not reproduced: with ``shuffle=True`` the batches hold the same
files as Keras's, in another order.
"""
import os
import wave

import numpy as np

from .. import data as fe_data
from .. import image as fe_image
from .. import io as fe_io
from .. import strings as fe_strings
from ..errors import InvalidArgumentError
from ..ops import array_ops, elementwise_ops
from ..ragged import RaggedTensor
from . import backend
from ._image_utils import smart_resize

IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5",
                   "gaussian", "mitchellcubic")


def _files_under(directory, follow_links, formats):
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links),
                                 key=lambda entry: entry[0]):
        for name in sorted(files):
            if name.lower().endswith(formats):
                yield root, name


def index_directory(directory, labels, formats, class_names=None, shuffle=True, seed=None,
                    follow_links=False, verbose=True):
    """(file paths, integer labels or None, class names) as Keras's index_directory."""
    if not os.path.isdir(directory):
        raise ValueError("The directory %r does not exist (expected a directory of files)"
                         % (directory,))
    if labels == "inferred":
        subdirs = [d.rstrip("/") for d in sorted(os.listdir(directory))
                   if os.path.isdir(os.path.join(directory, d)) and not d.startswith(".")]
        if class_names is not None:
            if not set(class_names).issubset(set(subdirs)):
                raise ValueError("The `class_names` passed did not match the names of the "
                                 "subdirectories of the target directory. Expected: %s (or a "
                                 "subset of it), but received: class_names=%s"
                                 % (subdirs, class_names))
            subdirs = list(class_names)
    else:
        subdirs = [""]
        if class_names is not None:
            if labels is None:
                raise ValueError("When `labels=None` (no labels), argument `class_names` "
                                 "cannot be specified.")
            raise ValueError("When argument `labels` is specified, argument `class_names` "
                             "cannot be specified (the `class_names` will be the sorted list "
                             "of labels).")
    filenames, found = [], []
    for index, subdir in enumerate(subdirs):
        path = os.path.join(directory, subdir)
        dirname = os.path.basename(path)
        for root, name in _files_under(path, follow_links, formats):
            filenames.append(os.path.join(dirname, os.path.relpath(os.path.join(root, name),
                                                                   path)))
            found.append(index)
    if labels == "inferred":
        labels = np.asarray(found, np.int32)
        class_names = subdirs
    elif labels is None:
        class_names = None
    else:
        if len(labels) != len(filenames):
            raise ValueError("Expected the lengths of `labels` to match the number of files in "
                             "the target directory. len(labels) is %d while we found %d files "
                             "in directory %s." % (len(labels), len(filenames), directory))
        class_names = [str(label) for label in sorted(set(labels))]
    if verbose:
        if labels is None:
            print("Found %d files." % len(filenames), flush=True)
        else:
            print("Found %d files belonging to %d classes." % (len(filenames),
                                                               len(class_names)), flush=True)
    paths = [os.path.join(directory, name) for name in filenames]
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(paths)
        if labels is not None:
            labels = np.array(labels)
            np.random.RandomState(seed).shuffle(labels)
    return paths, labels, class_names


def check_validation_split_arg(validation_split, subset, shuffle, seed):
    if validation_split and not 0 < validation_split < 1:
        raise ValueError("`validation_split` must be between 0 and 1, received: %s"
                         % (validation_split,))
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError('`subset` must be either "training", "validation" or "both", '
                         'received: %s' % (subset,))
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must "
                         "provide a `seed` argument, to make sure that there is no overlap "
                         "between the training and validation subset.")


def training_or_validation_split(samples, labels, validation_split, subset):
    if not validation_split:
        return samples, labels
    count = int(validation_split * len(samples))
    if subset == "training":
        print("Using %d files for training." % (len(samples) - count), flush=True)
        return samples[:-count], (None if labels is None else labels[:-count])
    if subset == "validation":
        print("Using %d files for validation." % count, flush=True)
        return samples[-count:], (None if labels is None else labels[-count:])
    raise ValueError('`subset` must be either "training" or "validation", received: %s'
                     % (subset,))


def _label_values(labels, label_mode, num_classes):
    labels = np.asarray(labels)
    if label_mode == "binary":
        return labels.astype(np.float32)[:, None]
    if label_mode == "categorical":
        return np.eye(num_classes, dtype=np.float32)[labels.astype(np.int64)]
    return labels.astype(np.int32)


def _check_labels_arg(labels, class_names, label_mode, what):
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError(
                "`labels` argument should be a list/tuple of integer labels, of the same size "
                "as the number of %s files in the target directory. If you wish to infer the "
                "labels from the subdirectory names in the target directory, pass "
                '`labels="inferred"`. If you wish to get a dataset that only contains %s '
                "samples (no labels), pass `labels=None`. Received: labels=%s"
                % (what, what, labels))
        if class_names:
            raise ValueError('You can only pass `class_names` if `labels="inferred"`. '
                             "Received: labels=%s, and class_names=%s" % (labels, class_names))
    if label_mode not in {"int", "categorical", "binary", None}:
        raise ValueError('`label_mode` argument must be one of "int", "categorical", "binary", '
                         "or None. Received: label_mode=%s" % (label_mode,))


def _from_directory(directory, labels, label_mode, class_names, batch_size, shuffle, seed,
                    validation_split, subset, follow_links, verbose, formats, what,
                    load, missing, padded=False):
    """The common flow: index, split, one dataset (or [train, validation]) of
    ``load(path)`` values (and labels), batched, with ``class_names``."""
    if labels is None or label_mode is None:
        labels = label_mode = None
    check_validation_split_arg(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = index_directory(
        directory, labels, formats=formats, class_names=class_names, shuffle=shuffle,
        seed=seed, follow_links=follow_links, verbose=verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError('When passing `label_mode="binary"`, there must be exactly 2 '
                         "class_names. Received: class_names=%s" % (class_names,))
    buffer = batch_size * 8 if batch_size is not None else 1024
    num_classes = len(class_names) if class_names else 0

    def build(part_paths, part_labels, shuffled):
        ds = fe_data.Dataset.from_tensor_slices(np.array(part_paths, dtype=object)).map(load)
        if label_mode:
            ds = fe_data.Dataset.zip((ds, fe_data.Dataset.from_tensor_slices(
                _label_values(part_labels, label_mode, num_classes))))
        if shuffled:
            ds = ds.shuffle(buffer, seed=seed)
        if batch_size is not None:
            ds = ds.padded_batch(batch_size) if padded else ds.batch(batch_size)
        ds.class_names = class_names
        return ds

    if subset == "both":
        train = training_or_validation_split(paths, labels, validation_split, "training")
        val = training_or_validation_split(paths, labels, validation_split, "validation")
        if not train[0]:
            raise ValueError(missing % ("training " + what))
        if not val[0]:
            raise ValueError(missing % ("validation " + what))
        return [build(*train, shuffle), build(*val, False)]
    paths, labels = training_or_validation_split(paths, labels, validation_split, subset)
    if not paths:
        raise ValueError(missing % what)
    return build(paths, labels, shuffle)


def text_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                class_names=None, batch_size=32, max_length=None, shuffle=True,
                                seed=None, validation_split=None, subset=None,
                                follow_links=False, format="tf", verbose=True):
    """Batches of the ``.txt`` files' contents (string tensors, cut to ``max_length``
    bytes) and their labels."""
    _check_labels_arg(labels, class_names, label_mode, "text")
    if format not in ("tf", "grain"):
        raise ValueError('`format` should be either "tf" or "grain". Received: format=%s'
                         % (format,))

    def load(path):
        text = fe_io.read_file(path)
        return text if max_length is None else fe_strings.substr(text, 0, max_length)
    return _from_directory(directory, labels, label_mode, class_names, batch_size, shuffle,
                           seed, validation_split, subset, follow_links, verbose, (".txt",),
                           "text files", load,
                           "No %s found in directory " + str(directory) +
                           ". Allowed format: .txt")


def image_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, color_mode="rgb", batch_size=32,
                                 image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear",
                                 follow_links=False, crop_to_aspect_ratio=False,
                                 pad_to_aspect_ratio=False, data_format=None, format="tf",
                                 verbose=True):
    """Batches of the images (float32, resized to ``image_size``) and their labels."""
    _check_labels_arg(labels, class_names, label_mode, "image")
    channels = {"rgb": 3, "rgba": 4, "grayscale": 1}.get(color_mode)
    if channels is None:
        raise ValueError('`color_mode` must be one of {"rgb", "rgba", "grayscale"}. '
                         "Received: color_mode=%s" % (color_mode,))
    if isinstance(image_size, int):
        image_size = (image_size, image_size)
    elif not isinstance(image_size, (list, tuple)) or len(image_size) != 2:
        raise ValueError("Invalid `image_size` value. Expected a tuple of 2 integers. "
                         "Received: image_size=%s" % (image_size,))
    interpolation = interpolation.lower()
    if interpolation not in _INTERPOLATIONS:
        raise ValueError("Argument `interpolation` should be one of %s. Received: "
                         "interpolation=%s" % (_INTERPOLATIONS, interpolation))
    if format not in ("tf", "grain"):
        raise ValueError('`format` should be either "tf" or "grain". Received: format=%s'
                         % (format,))
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio` can be "
                         "set to `True`.")
    data_format = data_format or backend.image_data_format()
    size = [int(image_size[0]), int(image_size[1])]

    def load(path):
        img = fe_image.decode_image(fe_io.read_file(path), channels=channels,
                                    expand_animations=False)
        if crop_to_aspect_ratio:
            img = smart_resize(elementwise_ops.cast(img, "float32"), size,
                               interpolation=interpolation)
        elif pad_to_aspect_ratio:
            img = fe_image.resize_with_pad(img, size[0], size[1], method=interpolation)
        else:
            img = fe_image.resize(img, size, method=interpolation)
        img = elementwise_ops.cast(img, "float32")
        if data_format == "channels_first":
            img = array_ops.transpose(img, (2, 0, 1))
        return img
    return _from_directory(directory, labels, label_mode, class_names, batch_size, shuffle,
                           seed, validation_split, subset, follow_links, verbose,
                           IMAGE_FORMATS, "images", load,
                           "No %s found in directory " + str(directory) +
                           ". Allowed formats: " + str(IMAGE_FORMATS))


def decode_wav(path, desired_samples=-1):
    """A WAV file's PCM samples as float32 ``[samples, channels]`` in [-1, 1) (read with the
    stdlib ``wave``), zero-padded or cut to ``desired_samples`` (-1: as many as it holds)."""
    try:
        with wave.open(path, "rb") as f:
            channels, width, count = f.getnchannels(), f.getsampwidth(), f.getnframes()
            raw = f.readframes(count)
    except (wave.Error, EOFError) as e:
        raise InvalidArgumentError("audio_dataset_from_directory: %s is not a PCM WAV file "
                                   "(%s)" % (path, e)) from None
    if width == 1:      # 8-bit WAV samples are unsigned
        values = (np.frombuffer(raw, np.uint8).astype(np.float32) - 128.0) / 128.0
    elif width in (2, 4):
        kind = np.int16 if width == 2 else np.int32
        values = np.frombuffer(raw, np.dtype(kind).newbyteorder("<")).astype(np.float64) / \
            float(2 ** (8 * width - 1))
    elif width == 3:
        b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
        ints = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        ints = np.where(ints >= 2 ** 23, ints - 2 ** 24, ints)
        values = ints.astype(np.float64) / float(2 ** 23)
    else:
        raise InvalidArgumentError("audio_dataset_from_directory: %s has %d-byte samples "
                                   "(expected 1 to 4)" % (path, width))
    audio = np.asarray(values, np.float32).reshape(-1, channels)
    if desired_samples >= 0:
        out = np.zeros((desired_samples, channels), np.float32)
        keep = min(desired_samples, len(audio))
        out[:keep] = audio[:keep]
        audio = out
    return audio


def audio_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, batch_size=32, sampling_rate=None,
                                 output_sequence_length=None, ragged=False, shuffle=True,
                                 seed=None, validation_split=None, subset=None,
                                 follow_links=False, verbose=True):
    """Batches of the ``.wav`` files' samples (float32 ``[batch, samples, channels]``,
    zero-padded to the longest in the batch, cut/padded to ``output_sequence_length``, or
    ragged) and their labels. Resampling (``sampling_rate``) needs tensorflow-io in Keras
    and is not available here."""
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError(
                "The `labels` argument should be a list/tuple of integer labels, of the same "
                "size as the number of audio files in the target directory. If you wish to "
                "infer the labels from the subdirectory names in the target directory, pass "
                '`labels="inferred"`. If you wish to get a dataset that only contains audio '
                "samples (no labels), pass `labels=None`. Received: labels=%s" % (labels,))
        if class_names:
            raise ValueError('You can only pass `class_names` if `labels="inferred"`. '
                             "Received: labels=%s, and class_names=%s" % (labels, class_names))
    if label_mode not in {"int", "categorical", "binary", None}:
        raise ValueError('`label_mode` argument must be one of "int", "categorical", '
                         '"binary", or None. Received: label_mode=%s' % (label_mode,))
    if ragged and output_sequence_length is not None:
        raise ValueError("Cannot set both `ragged` and `output_sequence_length`")
    if sampling_rate is not None:
        if not isinstance(sampling_rate, int):
            raise ValueError("`sampling_rate` should have an integer value. Received: "
                             "sampling_rate=%s" % (sampling_rate,))
        if sampling_rate <= 0:
            raise ValueError("`sampling_rate` should be higher than 0. Received: "
                             "sampling_rate=%s" % (sampling_rate,))
        raise ImportError("To use the argument `sampling_rate`, Keras needs the "
                          "tensorflow-io package, which fasteager does not use: resample "
                          "the files beforehand (received sampling_rate=%d)" % sampling_rate)
    desired = -1 if output_sequence_length is None else int(output_sequence_length)

    def load(path):
        audio = array_ops.constant(decode_wav(path.numpy().decode("utf-8"), desired))
        return RaggedTensor.from_tensor(audio) if ragged else audio
    return _from_directory(directory, labels, label_mode, class_names, batch_size, shuffle,
                           seed, validation_split, subset, follow_links, verbose, (".wav",),
                           "audio files", load,
                           "No %s found in directory " + str(directory) +
                           ". Allowed format: .wav",
                           padded=output_sequence_length is None and not ragged)
