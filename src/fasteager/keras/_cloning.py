"""``keras.models.clone_model``: the same architecture with new layers (new weights).

A Sequential model is rebuilt from its cloned layers; a functional model is replayed node
by node on new ``Input``s (or the given ``input_tensors``), each layer cloned once (so a
shared layer stays shared) and called as in the original (or through ``call_function``);
any other model is rebuilt from its config. A compiled model's clone is compiled the same.
"""
from .. import nest
from ._serialization import deserialize_keras_object, serialize_keras_object
from .functional import Functional
from .layers.base import Input, InputLayer, KerasTensor
from .training import Sequential


def _wrap_clone_function(clone_function, call_function, recursive, cache):
    if clone_function is None:
        def clone_function(layer):
            return layer.__class__.from_config(layer.get_config())

    def wrapped(layer):
        if id(layer) in cache:
            return cache[id(layer)]
        if recursive and isinstance(layer, (Sequential, Functional)):
            clone = clone_model(layer, clone_function=clone_function,
                                call_function=(call_function if isinstance(layer, Functional)
                                               else None),
                                recursive=True, cache=cache)
        else:
            clone = clone_function(layer)
        cache[id(layer)] = clone
        return clone
    return wrapped


def clone_model(model, input_tensors=None, clone_function=None, call_function=None,
                recursive=False, **kwargs):
    """A new model of the same architecture as ``model``, with new weights (Keras 3's
    ``clone_model``): ``clone_function(layer)`` makes each new layer (default: from its
    config), ``call_function(layer, *args, **kwargs)`` calls it (functional models),
    ``recursive=True`` clones nested models layer by layer."""
    cache = kwargs.pop("cache", None)
    if kwargs:
        raise ValueError("Unexpected keyword argument(s): %s" % (tuple(kwargs.keys()),))
    if isinstance(model, Sequential):
        wrapped = _wrap_clone_function(clone_function, call_function, recursive,
                                       {} if cache is None else cache)
        if call_function is not None:
            raise ValueError(
                "`call_function` argument is not supported with Sequential models.  In a "
                "Sequential model, layers aren't called at model-construction time (they're "
                "merely listed). Use `call_function` with Functional models only. Received "
                "model of type '%s', with call_function=%s"
                % (model.__class__.__name__, clone_function))
        return _clone_sequential(model, wrapped, input_tensors)
    if isinstance(model, Functional):
        wrapped = _wrap_clone_function(clone_function, call_function, recursive,
                                       {} if cache is None else cache)
        return _clone_functional(model, wrapped, input_tensors, call_function)
    if clone_function or input_tensors:
        raise ValueError(
            "Arguments `clone_function` and `input_tensors` are only supported for Sequential "
            "models or Functional models. Received model of type '%s', with clone_function=%s "
            "and input_tensors=%s" % (model.__class__.__name__, clone_function, input_tensors))
    if call_function is not None:
        raise ValueError("Argument `call_function` is only supported for Functional models. "
                         "Received model of type '%s', with call_function=%s"
                         % (model.__class__.__name__, clone_function))
    config = serialize_keras_object(model)
    return deserialize_keras_object(config,
                                    custom_objects={model.__class__.__name__: model.__class__},
                                    where="clone_model")


def _compile_like(new, old):
    if getattr(old, "_is_compiled", False):
        config = old.get_compile_config()
        if config is not None:
            new.compile_from_config(config)
    return new


def _clone_sequential(model, clone_function, input_tensors):
    new_layers = [clone_function(layer) for layer in model.layers]
    first = model._layers[0] if model._layers else None
    name = first.name if isinstance(first, InputLayer) else None
    spec = model._input_spec
    if input_tensors is not None:
        if isinstance(input_tensors, (list, tuple)):
            if len(input_tensors) != 1:
                raise ValueError("Argument `input_tensors` must contain a single tensor.")
            input_tensors = input_tensors[0]
        if not isinstance(input_tensors, KerasTensor):
            raise ValueError("Argument `input_tensors` must be a KerasTensor. Received "
                             "invalid value: input_tensors=%s" % (input_tensors,))
        new_layers = [input_tensors] + new_layers
    elif spec is not None:
        new_layers = [Input(batch_shape=tuple(spec.shape.as_list()), dtype=spec.dtype,
                            name=name)] + new_layers
    clone = Sequential(new_layers, name=model.name)
    clone.trainable = model.trainable
    return _compile_like(clone, model)


def _clone_functional(model, clone_function, input_tensors, call_function):
    if input_tensors is not None:
        flat = nest.flatten(input_tensors)
        if not all(isinstance(x, KerasTensor) for x in flat):
            raise ValueError("All entries in `input_tensors` must be KerasTensors. Received "
                             "invalid values: inputs_tensors=%s" % (input_tensors,))
        try:
            if len(flat) != len(model.inputs):
                raise ValueError("%d tensors for %d inputs" % (len(flat), len(model.inputs)))
            nest.map_structure(lambda new, old: None, input_tensors, model._inputs_struct)
        except (ValueError, TypeError) as e:
            raise ValueError("`input_tensors` must have the same structure as model.input\n"
                             "Reference structure: %s\nReceived structure: %s"
                             % (model._inputs_struct, input_tensors)) from e
    else:
        input_tensors = nest.map_structure(
            lambda x: Input(batch_shape=tuple(x.shape.as_list()), dtype=x.dtype, name=x.name),
            model._inputs_struct)
    mapped = {id(old): new for old, new in zip(model.inputs, nest.flatten(input_tensors))}

    def swap(v):
        return mapped[id(v)] if isinstance(v, KerasTensor) else v

    for node in model._nodes:
        layer = clone_function(node.layer)
        x, args, kwargs = nest.map_structure(swap, node.call_args)
        if call_function is not None:
            out = call_function(layer, x, *args, **kwargs)
        else:
            out = layer(x, *args, **kwargs)
        for old, new in zip(node.outputs, nest.flatten(out)):
            mapped[id(old)] = new
    outputs = nest.map_structure(swap, model._outputs_struct)
    clone = Functional(input_tensors, outputs, name=model.name)
    return _compile_like(clone, model)
