"""fe.summary.audio: WAV clips read back through TensorBoard's reader and audio plugin."""
import io
import wave

import numpy as np
import pytest

from fasteager import summary
from fasteager.errors import InvalidArgumentError

ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
tensor_util = pytest.importorskip("tensorboard.util.tensor_util")
audio_metadata = pytest.importorskip("tensorboard.plugins.audio.metadata")


def _read(logdir, tag):
    acc = ea.EventAccumulator(str(logdir), size_guidance={ea.TENSORS: 0})
    acc.Reload()
    return acc, [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def _decode(wav_bytes):
    with wave.open(io.BytesIO(wav_bytes)) as w:
        frames = np.frombuffer(w.readframes(w.getnframes()), "<i2")
        return w.getframerate(), w.getnchannels(), frames.reshape(-1, w.getnchannels())


def test_audio_clips_round_trip(tmp_path):
    t = np.arange(400) / 8000
    clips = np.stack([np.stack([np.sin(2 * np.pi * f * t), -np.sin(2 * np.pi * f * t)], 1)
                      for f in (220, 440, 880, 1760)])            # (4, 400, 2)
    clips[0, 0] = [1.5, -2.0]                                     # clipped to int16's range
    clips[0, 1] = [np.nan, 0.5]                                   # NaN is silence
    w = summary.create_file_writer(tmp_path)
    with w.as_default(step=3):
        assert summary.audio("tone", clips.astype(np.float32), 8000) is True   # 3 clips
        summary.audio("one", clips[:1], np.int32(16000), max_outputs=5, encoding="wav",
                      description="a clip")
        summary.audio(None, clips, 8000, max_outputs=0)
    w.close()
    acc, ((step, tone),) = _read(tmp_path, "tone")
    meta = acc.SummaryMetadata("tone")
    assert meta.plugin_data.plugin_name == "audio"
    parsed = audio_metadata.parse_plugin_metadata(meta.plugin_data.content)
    assert parsed.encoding == audio_metadata.Encoding.Value("WAV")
    assert step == 3 and tone.shape == (3, 2) and list(tone[:, 1]) == [b""] * 3
    for row, clip in zip(tone, clips):
        rate, channels, frames = _decode(row[0])
        assert (rate, channels, frames.shape) == (8000, 2, (400, 2))
        expected = np.clip(np.rint(np.nan_to_num(clip.astype(np.float32)) * 32768),
                           -32768, 32767)
        np.testing.assert_array_equal(frames, expected)
    assert _decode(tone[0][0])[2][:2].tolist() == [[32767, -32768], [0, 16384]]
    acc, ((_, one),) = _read(tmp_path, "one")
    assert one.shape == (1, 2) and _decode(one[0, 0])[0] == 16000
    assert acc.SummaryMetadata("one").summary_description == "a clip"
    _, ((_, empty),) = _read(tmp_path, "audio_summary")
    assert empty.shape == (0, 2)


@pytest.mark.parametrize("call, error, words", [
    (lambda: summary.audio("a", np.zeros((1, 4, 1)), 0), InvalidArgumentError, "sample_rate"),
    (lambda: summary.audio("a", np.zeros((1, 4, 1)), 8000.0), TypeError, "sample_rate"),
    (lambda: summary.audio("a", np.zeros((1, 4, 1)), 2 ** 31), InvalidArgumentError,
     "sample_rate"),
    (lambda: summary.audio("a", np.zeros((1, 4, 1)), 8000, encoding="mp3"),
     InvalidArgumentError, "encoding"),
    (lambda: summary.audio("a", np.zeros((1, 4, 1)), 8000, max_outputs=-1),
     InvalidArgumentError, "max_outputs"),
    (lambda: summary.audio(3, np.zeros((1, 4, 1)), 8000), TypeError, "name"),
    (lambda: summary.audio("a", np.zeros((4, 1)), 8000), ValueError, "rank 3"),
    (lambda: summary.audio("a", np.zeros((1, 4, 0)), 8000), InvalidArgumentError, "channels"),
    (lambda: summary.audio("a", np.zeros((1, 4, 2)), 2 ** 31 - 1), InvalidArgumentError,
     "byte rate"),
    (lambda: summary.audio("a", np.full((1, 4, 1), "x"), 8000), TypeError, "numeric"),
])
def test_audio_rejects_bad_arguments_and_writes_nothing(tmp_path, call, error, words):
    w = summary.create_file_writer(tmp_path)
    with w.as_default(step=0):
        with pytest.raises(error) as info:
            call()
        assert "summary.audio: " in str(info.value) and words in str(info.value)
        summary.scalar("ok", 1.0)
    w.close()
    acc = ea.EventAccumulator(str(tmp_path), size_guidance={ea.TENSORS: 0})
    acc.Reload()
    assert acc.Tags()["tensors"] == ["ok"]
