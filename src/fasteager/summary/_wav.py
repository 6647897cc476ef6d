"""Minimal WAV encoder for audio summaries: 16-bit PCM, as ``tf.audio.encode_wav`` writes.

A RIFF file with a 16-byte ``fmt `` chunk (format 1 = PCM) and one ``data`` chunk of
interleaved little-endian int16 frames (http://soundfile.sapp.org/doc/WaveFormat/).
Samples are floats in [-1, 1]: times 32768, rounded and clamped to int16, as TF's
wav_io does; NaN becomes silence.
"""

import struct

import numpy as np

MAX_CHANNELS = 0xFFFF   # the fmt chunk's channel count is a uint16


def encode_wav(samples, sample_rate):
    """Encode a float array of shape (frames, channels) as WAV bytes."""
    samples = np.asarray(samples, dtype=np.float64)
    frames, channels = samples.shape
    with np.errstate(invalid="ignore"):
        pcm = np.clip(np.rint(np.nan_to_num(samples, nan=0.0) * 32768.0), -32768, 32767)
    data = pcm.astype("<i2").tobytes()
    block = channels * 2
    fmt = struct.pack("<HHIIHH", 1, channels, sample_rate, sample_rate * block, block, 16)
    return b"".join((b"RIFF", struct.pack("<I", 36 + len(data)), b"WAVE",
                     b"fmt ", struct.pack("<I", len(fmt)), fmt,
                     b"data", struct.pack("<I", len(data)), data))
