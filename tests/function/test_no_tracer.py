"""``_core.no_tracer()`` / ``_core.tracing_into(t)``: the one way code steps out of a trace
(or records into another) for a block; the previous recorder is back after it."""
import pytest

import fasteager as fe
from fasteager import _core
from fasteager._src.tracing.tracer import _Tracer


def test_no_tracer_leaves_the_trace_and_comes_back():
    seen = []

    @fe.function
    def f(x):
        outer = _core.get_tracer()
        with _core.no_tracer() as previous:
            seen.append((previous is outer, _core.get_tracer()))
            y = x * 2.0            # eager: not a step of the graph
        seen.append(_core.get_tracer() is outer)
        return x + y.numpy()       # a constant to the trace

    assert float(f(fe.constant(1.0))) == 3.0
    assert seen[0] == (True, None) and seen[1] is True
    assert _core.get_tracer() is None


def test_the_previous_recorder_is_back_after_an_error():
    t = _Tracer("outer")
    with _core.tracing_into(t):
        with pytest.raises(RuntimeError):
            with _core.no_tracer():
                raise RuntimeError("inside")
        assert _core.get_tracer() is t
        inner = _Tracer("inner")
        with _core.tracing_into(inner) as previous:
            assert previous is t and _core.get_tracer() is inner
        assert _core.get_tracer() is t
    assert _core.get_tracer() is None
