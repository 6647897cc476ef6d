"""Values recorded from real TensorFlow 2.21 / Keras 3.15.1, for tests that compare with them.

Each ``record_<topic>.py`` here runs in a separate virtual environment that has TensorFlow
(never in the test run: the suite needs no TensorFlow) and writes ``<topic>.json`` beside
itself; the JSON files are committed. Re-record with, for example::

    /path/to/tf-venv/bin/python tests/tf_reference/record_semantics.py

``load(topic)`` reads one recorded file.
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent


def load(topic):
    """The recorded values of ``<topic>.json`` (a dict, as the recorder wrote it)."""
    with open(HERE / ("%s.json" % topic), encoding="utf-8") as f:
        return json.load(f)


def save(topic, values):
    """Write ``values`` (JSON-serialisable) as ``<topic>.json``; used by the recorders."""
    with open(HERE / ("%s.json" % topic), "w", encoding="utf-8") as f:
        json.dump(values, f, indent=1, sort_keys=True)
        f.write("\n")
