"""Keras models in a SavedModel: the traced inference call and the weight lists.

``saved_model.save(model, dir)`` saves, as TensorFlow 2.21 does for a Keras 3 model, a
``serving_default`` signature of ``model(inputs, training=False)`` traced for the
model's input shapes (the batch dimension None); fasteager also saves that function as
the object's ``__call__`` so ``loaded(x)`` works. ``model.export(dir)`` (Keras 3) saves
it as the endpoint ``serve`` with the signature's inputs named after the model's inputs.
Both keep ``variables``, ``trainable_variables`` and ``non_trainable_variables`` in the
model's order.

``fe.saved_model`` sits below Keras: this module registers ``Model`` with it at import
(``saved_model.register_model_type``), so the SavedModel code never imports Keras.
"""
from .. import saved_model
from .._src import nest
from .._src.tracing.function import Function
from ..data.structure import TensorSpec
from .training import Model


def _spec(tensor, named):
    shape = [None] + list(tensor.shape.as_list())[1:]
    return TensorSpec(shape, tensor.dtype, tensor.name if named else None)


def input_structure(model, named):
    """The TensorSpec structure of the model's input (one argument), batch dim None."""
    inputs = getattr(model, "_inputs_struct", None)          # a functional model
    if inputs is None:
        inputs = getattr(model, "_input_spec", None)         # a Sequential started with Input
    if inputs is not None and (not isinstance(inputs, (list, tuple, dict)) or inputs):
        return _map(lambda t: _spec(t, named), inputs)
    shape = getattr(model, "_saved_input_shape", None)        # a model built by a call
    if shape is None:
        raise ValueError("saved_model.save: the model %r has not yet been built; build it "
                         "first by calling it on a batch of data (or give it an Input)"
                         % model.name)
    dtype = getattr(model, "compute_dtype", None) or getattr(model, "dtype", None) or "float32"
    return TensorSpec([None] + list(shape)[1:], dtype)


def _map(fn, structure):
    if isinstance(structure, dict):
        return {k: _map(fn, v) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(_map(fn, v) for v in structure)
    return fn(structure)


def serving_function(model, name, named=False):
    """``model(inputs, training=False)`` as an fe.function with the model's signature."""
    if named:
        # Keras's exported endpoint takes its input as *args: the signature's input names
        # come from the input specs (the model's input names)
        def serving_default(*args):
            return model(args[0], training=False)
    else:
        def serving_default(inputs):
            return model(inputs, training=False)
    return Function(serving_default, input_signature=[input_structure(model, named)],
                    name=name)


def variable_lists(model, var_paths):
    """The model's weight lists as checkpoint paths (in the model's order)."""
    lists = {}
    for attr in ("variables", "trainable_variables", "non_trainable_variables"):
        lists[attr] = [var_paths[id(v)] for v in getattr(model, attr) if id(v) in var_paths]
    return lists


def export(model, filepath, format="tf_saved_model", verbose=True, input_signature=None,
           **kwargs):
    """Keras 3's ``Model.export``: the inference call as the endpoint ``serve`` (and the
    ``serving_default`` signature), in fasteager's SavedModel format."""
    if format != "tf_saved_model":
        raise ValueError("Model.export: format %r is not supported (expected "
                         "'tf_saved_model', which fasteager writes in its own format)"
                         % (format,))
    if kwargs:
        raise TypeError("Model.export: unexpected arguments %s" % sorted(kwargs))
    if input_signature is not None:
        specs = [s if isinstance(s, TensorSpec) else TensorSpec(s.shape, s.dtype)
                 for s in nest.flatten(input_signature)]
        structure = nest.pack_sequence_as(input_signature, specs)
        if isinstance(structure, (list, tuple)) and len(structure) == 1:
            structure = structure[0]

        def serve(*args):
            return model(args[0], training=False)
        serve_fn = Function(serve, input_signature=[structure], name="serve")
    else:
        serve_fn = serving_function(model, "serve", named=True)
    saved_model.save(model, filepath, signatures={"serving_default": serve_fn},
                     _root_functions={"serve": serve_fn})
    if verbose:
        specs = nest.flatten(serve_fn.input_signature)
        print("Saved artifact at '%s'. The following endpoints are available:\n\n"
              "* Endpoint 'serve'\n%s" % (filepath, "\n".join(
                  "  args_0 (POSITIONAL_ONLY): %r" % s if len(specs) == 1 else
                  "  args_0_%d: %r" % (i, s) for i, s in enumerate(specs))))


saved_model.register_model_type(Model, serving_function, variable_lists)
