"""The saved form of one traced graph (a ``ConcreteFunction``): its op steps as JSON, the
arrays it captured, and the graphs of the ``custom_gradient`` calls inside it.

A graph is ``{"inputs", "input_names", "variables", "consts", "steps", "custom",
"outputs", "structure"}``: registers are integers; ``variables`` pairs a variable's
checkpoint path with the register it is read into; ``consts`` maps a register to its key
in ``constants.safetensors``; a step is an op (``op``, ``ins``, ``out``, ``multi``,
``attrs``), a variable write (``assign``: assign, assign_add or assign_sub, ``variable``,
``ins``), a re-read of a variable written before (``read``, ``out``) or a control step
(``control``: ``cond`` or ``while_loop``, ``ins``, ``out``, ``graphs``: two graphs of this
form, a cond's true and false branches or a loop's condition and body, whose inputs are
the loop variables, if any, then the tensors the sub-graph captures, in the order of
``ins`` after the predicate or loop variables; a loop also has ``loop_vars``, their
number, and ``maximum_iterations``, an integer, null or a size polynomial); ``custom``
lists the custom_gradient calls, each the range of steps its forward ran, its input and
output registers, and its gradient as a graph of its own (inputs: the call's inputs, then
one incoming gradient per float output; outputs: one gradient per float input, then one
per trainable variable it read).
"""
import numpy as np

from .. import _core
from .._src import nest
from .._src.autodiff.tape import GradientTape
from .._src.composite.extension_type import saved_form
from ..errors import UnimplementedError
from .._src.tracing.tracer import KIND_CONTROL, KIND_EFFECT, KIND_OP, KIND_READ, _Tracer
from .._src.tracing.concrete import ConcreteFunction
from ._encoding import encode


def describe(cf, fname, var_paths, prefix, custom_gradients=True):
    """(graph, constants) of ConcreteFunction ``cf``: constants maps keys (made from
    ``prefix``) to the captured arrays."""
    if cf._eager_only:
        raise UnimplementedError("saved_model.save: fe.function %s cannot be saved: its trace "
                                 "used %s, so it runs eagerly" % (fname, cf._eager_only))
    if cf._pulls is not None:
        # a tracked iterator (an attribute of the saved object) has its position variable
        # among the saved ones: TensorFlow would save that function, and refuses the other
        untracked = [src for src in cf._pulls.sources if type(src) is not int and
                     id(getattr(src, "_state_var", None)) not in var_paths]
        raise UnimplementedError(
            "saved_model.save: fe.function %s cannot be saved: it calls next() on an fe.data "
            "iterator (an iterator's position is not part of a saved graph; %s)" % (
                fname, "TensorFlow refuses it too: the function references an 'untracked' "
                "resource, the iterator, and objects captured by functions must be tracked "
                "by assigning them to an attribute of the saved object" if untracked else
                "TensorFlow saves a function using an iterator the saved object tracks, "
                "fasteager does not"))
    constants = {}
    steps = []
    for i, s in enumerate(cf._all_steps):
        control = s.attrs.get("control") if s.kind in (KIND_CONTROL, KIND_EFFECT) and \
            isinstance(s.attrs, dict) else None
        if control is not None:
            step, consts = _control(s, control, fname, var_paths, "%s/%d" % (prefix, i),
                                    custom_gradients)
            constants.update(consts)
            steps.append(step)
            continue
        if s.kind == KIND_EFFECT and s.name in _KEEPS:
            continue          # keeps a control step's outputs live in the replay: no work
        variable = getattr(s.fn, "variable", None) if s.kind == KIND_EFFECT else \
            s.fn if s.kind == KIND_READ else None
        if variable is not None and s.name in _ASSIGNS + ("read_variable",):
            path = _path_of(variable, var_paths, fname)
            steps.append({"assign": s.name[len("variable_"):], "variable": path,
                          "ins": list(s.ins)} if s.kind == KIND_EFFECT else
                         {"read": path, "out": s.out})
            continue
        if s.kind == KIND_CONTROL:
            raise UnimplementedError(
                "saved_model.save: fe.function %s cannot be saved: it takes a gradient "
                "across fe.cond or fe.while_loop inside the function (its %s step); take "
                "the gradient outside the saved function" % (fname, s.name))
        if s.kind != KIND_OP or s.op is None:
            raise UnimplementedError("saved_model.save: fe.function %s has a %s step (prints, "
                                     "py_function calls and device copies cannot be saved)"
                                     % (fname, s.name))
        steps.append({"op": s.op.name, "ins": list(s.ins),
                      "out": list(s.out) if s.multi else s.out, "multi": bool(s.multi),
                      "attrs": encode(s.attrs or {}, "op %s of %s" % (s.op.name, fname))})
    consts = {}
    for r, arr in cf._consts.items():
        arr = np.asarray(arr)
        if arr.dtype.kind not in "biufc":
            raise UnimplementedError("saved_model.save: fe.function %s captured a %s tensor, "
                                     "which saved graphs do not hold" % (fname, arr.dtype))
        key = "%s/%d" % (prefix, r)
        constants[key] = np.asarray(arr, order="C")   # (ascontiguousarray makes 0-d 1-d)
        consts[str(r)] = key
    variables = [[_path_of(v, var_paths, fname), r] for v, r in cf._var_inputs]
    custom = []
    if cf._custom:
        if custom_gradients:    # else (SaveOptions): the forward ops alone are saved
            covered = -1
            for start in sorted(cf._custom):
                end, fn, in_regs, out_regs, kwargs = cf._custom[start]
                if start < covered:
                    continue                    # nested in a call already saved
                covered = end
                grad, grad_consts, grad_vars = _custom_gradient(
                    cf, fn, in_regs, out_regs, kwargs, fname, var_paths,
                    "%s/custom%d" % (prefix, start))
                constants.update(grad_consts)
                custom.append({"start": start, "end": end, "ins": list(in_regs),
                               "outs": list(out_regs), "grad": grad,
                               "grad_variables": grad_vars})
    leaves = [{"reg": x} if type(x) is int else
              {"py": encode(x.value, "an output of " + fname)} for x in cf._out_leaves]
    it = iter(range(len(cf._out_leaves)))

    def leaf(x):
        # a RaggedTensor or SparseTensor output is its component outputs, rebuilt on load
        kind = {"RaggedTensor": "ragged", "SparseTensor": "sparse"}.get(type(x).__name__)
        if kind is None and hasattr(x, "_static_key"):
            # an extension value: its class and static fields, and its components' outputs
            return {"composite": "extension",
                    "form": saved_form(x, "saved_model.save (fe.function %s)" % fname),
                    "parts": [leaf(c) for c in x._to_components()]}
        if kind is None:
            return {"leaf": next(it)}
        return {"composite": kind,
                "parts": [{"leaf": next(it)} for _ in x._to_components()]}
    template = nest.pack_sequence_as(cf._structure, [
        leaf(x) for x in nest.flatten(cf._structure)]) \
        if nest.is_nested(cf._structure) else leaf(cf._structure)
    graph = {"inputs": list(cf._inputs), "input_names": list(cf._input_names),
             "variables": variables, "consts": consts, "steps": steps, "custom": custom,
             "outputs": leaves, "structure": encode(template, "the outputs of " + fname)}
    return graph, constants


_ASSIGNS = ("variable_assign", "variable_assign_add", "variable_assign_sub")
_KEEPS = ("cond_keep", "while_loop_keep")


def _control(s, control, fname, var_paths, prefix, custom_gradients):
    """The saved form of an fe.cond / fe.while_loop step: its kind, input and output
    registers and its two sub-graphs (their inputs: a loop's variables, then the
    tensors each captures, which follow the predicate or loop variables in ``ins``)."""
    kind, first, second = control[:3]
    constants = {}
    graphs = []
    for label, sub in zip(("a", "b"), (first, second)):
        g, consts = describe(sub, "%s (%s of its %s)" % (fname, label, kind), var_paths,
                             "%s/%s" % (prefix, label), custom_gradients)
        constants.update(consts)
        graphs.append(g)
    step = {"control": kind, "ins": list(s.ins),
            "out": list(s.out) if s.kind == KIND_CONTROL else [], "graphs": graphs}
    if kind == "while_loop":
        step["loop_vars"] = len(first._inputs) - len(first._captures)
        step["maximum_iterations"] = control[3]
    return step, constants


def _path_of(v, var_paths, fname):
    path = var_paths.get(id(v))
    if path is None:
        raise UnimplementedError("saved_model.save: fe.function %s uses variable %r, which is "
                                 "not reachable from the saved object" % (fname, v.name))
    return path


def _is_float(dtype):
    return np.dtype(dtype).kind in "fc"


def _custom_gradient(cf, fn, in_regs, out_regs, kwargs, fname, var_paths, prefix):
    """Trace the gradient of one custom_gradient call (``fn``: the decorated function) on
    tensors of the traced shapes and dtypes: the graph from its inputs and incoming
    gradients to its gradients, as TensorFlow saves it (SaveOptions'
    experimental_custom_gradients)."""
    meta = cf._reg_meta
    xs = [_core.wrap(np.zeros(*meta[r])) for r in in_regs]
    tracer = _Tracer(fname + "_custom_gradient", allow_variables=False)
    for t in xs:
        tracer.add_input(t)
    with _core.tracing_into(tracer):
        with GradientTape() as tape:
            for t in xs:
                if _is_float(t._value.dtype):
                    tape.watch(t)
            outs = [_core.convert_to_tensor(o) for o in nest.flatten(fn(*xs, **kwargs))]
        variables = [v for v in tape.watched_variables() if v.trainable]
        pairs = [o for o in outs if _is_float(o._value.dtype)]
        dys = [_core.wrap(np.zeros_like(o._value)) for o in pairs]
        for g in dys:
            tracer.add_input(g)
        targets = [t for t in xs if _is_float(t._value.dtype)] + variables
        grads = tape.gradient(pairs, targets, output_gradients=dys,
                              unconnected_gradients="zero") if pairs and targets else []
    # the call itself registered its re-run in this trace: not a block of the gradient
    for start in [s for s, c in tracer.custom.items() if c[1] is fn]:
        del tracer.custom[start]
    leaves = [tracer.reg_of(g) for g in grads]
    grad_cf = ConcreteFunction(fname + "_custom_gradient", tracer, list(grads), leaves,
                               reuse_buffers=False)
    grad_cf._input_names = []
    graph, constants = describe(grad_cf, fname + " (the gradient of its custom_gradient)",
                                var_paths, prefix)
    paths = []
    for v in variables:
        path = var_paths.get(id(v))
        if path is None:
            raise UnimplementedError("saved_model.save: the custom_gradient in fe.function %s "
                                     "reads variable %r, which is not reachable from the "
                                     "saved object" % (fname, v.name))
        paths.append(path)
    return graph, constants, paths
