"""fe.summary.trace_on / trace_export write the traced graphs in TensorFlow's format
(RunMetadata with GraphDefs, plugin graph_run_metadata_graph), read back with
TensorBoard's own reader and protos; ConcreteFunction.graph shows the same graph."""
import warnings

import numpy as np
import pytest

import fasteager as fe

ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
config_pb2 = pytest.importorskip("tensorboard.compat.proto.config_pb2")


class Scale(fe.Module):
    def __init__(self):
        super().__init__()
        self.w = fe.Variable(fe.ones((3, 2)), name="w")

    @fe.function
    def __call__(self, x):
        return fe.nn.relu(fe.matmul(x, self.w) + 1.0)


def _graphs(logdir, tag):
    acc = ea.EventAccumulator(str(logdir), size_guidance={ea.TENSORS: 0})
    acc.Reload()
    assert tag in acc.Tags()["tensors"]
    assert acc.SummaryMetadata(tag).plugin_data.plugin_name == "graph_run_metadata_graph"
    event = acc.Tensors(tag)[0]
    meta = config_pb2.RunMetadata()
    meta.ParseFromString(event.tensor_proto.string_val[0])
    return event.step, [g.pre_optimization_graph for g in meta.function_graphs]


def test_trace_export_writes_the_graph_of_functions_traced_meanwhile(tmp_path):
    before = Scale()
    x = fe.constant([[2.0, 2.0, 2.0]])
    before(x)                                  # traced before trace_on: not collected
    writer = fe.summary.create_file_writer(str(tmp_path))
    fe.summary.trace_on(graph=True)
    model = Scale()
    np.testing.assert_allclose(model(x).numpy(), [[7.0, 7.0]])
    with writer.as_default():
        fe.summary.trace_export(name="my_func_trace", step=3)
    writer.flush()
    step, graphs = _graphs(tmp_path, "my_func_trace")
    assert step == 3 and len(graphs) == 1
    nodes = {n.name: n for n in graphs[0].node}
    assert [n.op for n in graphs[0].node] == ["Placeholder", "Placeholder", "ReadVariableOp",
                                              "Const", "MatMul", "AddV2", "Relu", "Identity"]
    assert list(nodes["MatMul"].input) == ["x", "ReadVariableOp"]
    assert list(nodes["Relu"].input) == ["add"]          # TensorFlow's node name for "+"
    assert nodes["x"].attr["dtype"].type == 1                      # DT_FLOAT
    assert [d.size for d in nodes["x"].attr["shape"].shape.dim] == [1, 3]
    # export stops the trace: a later trace is not collected
    model2 = Scale()
    model2(x)
    with pytest.warns(UserWarning, match="no trace is on"):
        fe.summary.trace_export(name="again", step=4)


def test_trace_export_without_writer_warns_and_off_drops(tmp_path):
    fe.summary.trace_on()
    Scale()(fe.constant([[1.0, 1.0, 1.0]]))
    with pytest.warns(UserWarning, match="no default summary writer"):
        fe.summary.trace_export("t", step=0)
    fe.summary.trace_on()
    Scale()(fe.constant([[1.0, 1.0, 1.0]]))
    fe.summary.trace_off()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fe.summary.trace_export("t", step=0)
    assert any("no trace is on" in str(w.message) for w in caught)


def test_profiler_without_an_outdir_is_refused_at_export():
    fe.summary.trace_on(graph=True, profiler=True)      # (tests/function/test_profiler.py)
    with pytest.raises(fe.errors.InvalidArgumentError, match="profiler_outdir"):
        fe.summary.trace_export("t", step=0)
    fe.summary.trace_off()
    assert not fe.profiler.experimental.running()


def test_concrete_function_graph_view():
    @fe.function
    def f(a, b):
        return fe.reduce_sum(a * b) + 2

    cf = f.get_concrete_function(fe.constant([1.0, 2.0]), fe.constant([3.0, 4.0]))
    graph = cf.graph
    ops = graph.get_operations()
    assert [op.type for op in ops] == ["Placeholder", "Placeholder", "Const", "Mul", "Sum",
                                       "AddV2", "Identity"]
    mul = graph.get_operation_by_name("mul")              # (TensorFlow's name for a * b)
    assert [t.name for t in mul.inputs] == ["a:0", "b:0"]
    assert repr(mul.outputs[0]) == "<tf.Tensor 'mul:0' shape=(2,) dtype=float32>"
    text = str(graph.as_graph_def())
    assert 'name: "a"' in text and 'op: "Placeholder"' in text and "type: DT_FLOAT" in text
    with pytest.raises(KeyError):
        graph.get_operation_by_name("nope")
