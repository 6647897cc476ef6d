"""TensorBoard summaries (``fe.summary``), written without TensorFlow or protobuf.

Event files are ``events.out.tfevents.<time>.<host>.<pid>.<n>.v2``: TFRecord-framed
``Event`` protos with CRC-32C, in the TF2 tensor form that TensorBoard's scalar,
histogram, image, audio and text plugins read. Layers: ``_events`` (the Event messages,
on the engine's protobuf codec and TFRecord framing and CRC-32C, ``fasteager._src.io``),
``_wav`` (WAV encoder; PNG is the engine's one PNG codec), ``_checks`` (argument checks),
``writer`` (file writers and thread-local state), ``_ops`` (the summary ops).

>>> import fasteager as fe
>>> writer = fe.summary.create_file_writer("/tmp/logs")
>>> with writer.as_default():
...     for step in range(1000):
...         if step % 100 == 0:
...             fe.summary.scalar("loss", 1.0 / (step + 1), step=step)
"""

from . import experimental
from ._ops import audio, histogram, image, scalar, text, write
from ._trace import trace_export, trace_off, trace_on
from .writer import (
    SummaryWriter,
    create_file_writer,
    create_noop_writer,
    flush,
    record_if,
    should_record_summaries,
)

__all__ = [
    "SummaryWriter", "audio", "create_file_writer", "create_noop_writer", "experimental",
    "flush",
    "histogram", "image", "record_if", "scalar", "should_record_summaries", "text",
    "trace_export", "trace_off", "trace_on", "write",
]
