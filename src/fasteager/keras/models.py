"""``fe.keras.models``: ``Model``, ``Sequential``.

``load_model``/``save_model``: whole models (``fe.keras.saving``).
"""
import json

from ._cloning import clone_model  # noqa: F401
from ._saved_model import export
from ._serialization import serialize_keras_object
from .saving import load_model, model_from_json, save_model  # noqa: F401
from .training import Model, Sequential  # noqa: F401


def _export(self, filepath, format="tf_saved_model", verbose=True, input_signature=None,
            **kwargs):
    """Keras 3's ``model.export(filepath)``: the inference call as the endpoint ``serve``
    (and the ``serving_default`` signature) in a fasteager SavedModel (see
    ``fe.saved_model``); reload it with ``fe.saved_model.load``."""
    export(self, filepath, format=format, verbose=verbose, input_signature=input_signature,
           **kwargs)


# Model lives in training.py; its SavedModel export is attached here, beside the other
# whole-model formats
Model.export = _export


def _to_json(self, **kwargs):
    """The model's architecture as JSON (``serialize_keras_object``), which
    ``model_from_json`` rebuilds; ``kwargs`` go to ``json.dumps``."""
    return json.dumps(serialize_keras_object(self), **kwargs)


Model.to_json = _to_json
