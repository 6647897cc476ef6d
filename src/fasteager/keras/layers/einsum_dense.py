"""EinsumDense: a dense layer whose product is an einsum equation, as Keras 3's
``keras.layers.EinsumDense("abc,cd->abd", output_shape=(None, 64), bias_axes="d")``."""
import re

from ...tensor_shape import TensorShape
from .. import activations, constraints, initializers, regularizers
from ..ops.arrays import einsum
from .base import Layer


def _split_equation(equation):
    """(input spec, weight spec, output spec, left_elided) of an equation of the forms
    ``X,Y->Z``, ``...X,Y->...Z`` or ``X...,Y->Z...``."""
    eq = equation.replace("...", "0")
    for pattern, left in (("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$", False),
                          ("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)$", True),
                          ("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0$", False)):
        m = re.match(pattern, eq)
        if m:
            return m.group(1), m.group(2), m.group(3), left
    raise ValueError("Invalid einsum equation '%s'. Equations must be in the form [X],[Y]->"
                     "[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]...." % (equation,))


def _shapes(equation, bias_axes, input_shape, output_shape):
    """(kernel shape, bias shape or None, full output shape, the kernel's input axes, its
    output axes) for ``input_shape``."""
    in_spec, w_spec, out_spec, left = _split_equation(equation)
    input_shape = list(input_shape)
    elided = len(input_shape) - len(in_spec)
    out = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    out.insert(0, input_shape[0])
    if elided > 0 and left:
        for i in range(1, elided):
            out.insert(1, input_shape[i])
    elif elided > 0:
        out.extend(input_shape[len(input_shape) - elided:])
    if left:
        in_map = {d: i + elided - len(input_shape) for i, d in enumerate(in_spec)}
        out_map = {d: i + elided for i, d in enumerate(out_spec)}
    else:
        in_map = {d: i for i, d in enumerate(in_spec)}
        out_map = {d: i for i, d in enumerate(out_spec)}
    for d in in_spec:
        size = input_shape[in_map[d]]
        if d in out_map:
            if out[out_map[d]] is not None and out[out_map[d]] != size:
                raise ValueError("Input shape and output shape do not match at shared "
                                 "dimension '%s'. Input shape is %s, and output shape is %s."
                                 % (d, size, out[out_map[d]]))
            out[out_map[d]] = size
    for d in out_spec:
        if d not in in_spec and d not in w_spec:
            raise ValueError("Dimension '%s' was specified in the output '%s' but has no "
                             "corresponding dim in the input spec '%s' or weight spec '%s'"
                             % (d, out_spec, in_spec, w_spec))
    kernel, input_axes, output_axes = [], [], []
    for i, d in enumerate(w_spec):
        if d in out_map:
            kernel.append(out[out_map[d]])
            output_axes.append(i)
        elif d in in_map:
            kernel.append(input_shape[in_map[d]])
            input_axes.append(i)
        else:
            raise ValueError("Weight dimension '%s' did not have a match in either the input "
                             "spec '%s' or the output spec '%s'. For this layer, the weight "
                             "must be fully specified." % (d, in_spec, out_spec))
    bias = None
    if bias_axes is not None:
        for c in bias_axes:
            if c not in out_spec:
                raise ValueError("Bias dimension '%s' was requested, but is not part of the "
                                 "output spec '%s'" % (c, out_spec))
        sizes = {c: out[i + (elided if left else 0)] for i, c in enumerate(out_spec)}
        first = min(out_spec.find(c) for c in bias_axes)
        bias = [sizes[c] if c in bias_axes else 1 for c in out_spec[first:]]
        if not left:
            bias += [1] * max(elided, 0)
    return kernel, bias, out, input_axes, output_axes


class EinsumDense(Layer):
    """``y = activation(einsum(equation, x, kernel) + bias)``; ``output_shape`` gives the
    output's dimensions after the batch (None where the input sets it), ``bias_axes`` the
    output letters the bias spans."""

    def __init__(self, equation, output_shape, activation=None, bias_axes=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, lora_rank=None, lora_alpha=None,
                 gptq_unpacked_column_size=None, quantization_config=None, **kwargs):
        # (LoRA and quantized kernels are Keras's fine-tuning/quantization features,
        # which fasteager does not have: refuse them rather than ignore them)
        for name, value in (("lora_rank", lora_rank), ("lora_alpha", lora_alpha),
                            ("gptq_unpacked_column_size", gptq_unpacked_column_size),
                            ("quantization_config", quantization_config)):
            if value is not None:
                raise NotImplementedError("EinsumDense: fasteager does not support %s "
                                          "(got %r)" % (name, value))
        super().__init__(**kwargs)
        _split_equation(equation)
        self.equation = equation
        self.partial_output_shape = (output_shape,) if isinstance(output_shape, int) \
            else tuple(output_shape)
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        kernel, bias, _, in_axes, out_axes = _shapes(self.equation, self.bias_axes, shape,
                                                     self.partial_output_shape)
        self._input_ndim = len(shape)
        init = self.kernel_initializer
        if isinstance(init, initializers.VarianceScaling) and (
                init.input_axes is None or init.output_axes is None):
            # fans from the kernel's input and output axes, as Keras's EinsumDense
            config = dict(init.get_config(), seed=init.seed, input_axes=in_axes,
                          output_axes=out_axes)
            init = type(init).from_config(config)
        self.kernel = self._add_weight("kernel", kernel, initializer=init,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = None if bias is None else self._add_weight(
            "bias", bias, initializer=self.bias_initializer, regularizer=self.bias_regularizer,
            constraint=self.bias_constraint)
        self.built = True

    def compute_output_shape(self, input_shape):
        return tuple(_shapes(self.equation, self.bias_axes, TensorShape(input_shape).as_list(),
                             self.partial_output_shape)[2])

    def call(self, inputs, training=None):
        y = einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            y = y + self.bias
        return self.activation(y)

    def get_config(self):
        config = super().get_config()
        config.update(output_shape=self.partial_output_shape, equation=self.equation,
                      bias_axes=self.bias_axes, quantization_config=None)
        config.update(self._serialized("activation", "kernel_initializer",
                                       "bias_initializer", "kernel_regularizer",
                                       "bias_regularizer", "kernel_constraint",
                                       "bias_constraint"))
        return config
