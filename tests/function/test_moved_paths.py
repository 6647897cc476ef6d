"""fe.function's implementation lives in fasteager._src.tracing; the old public-looking
paths of AutoGraph's modules still resolve for one release, with a DeprecationWarning, and
the moved public classes print as before."""
import pytest

import fasteager as fe
from fasteager._src.tracing.autograph import operators, symbolic, transformer


@pytest.mark.parametrize("name, module", [("operators", operators), ("symbolic", symbolic),
                                          ("transformer", transformer)])
def test_old_autograph_module_paths_warn_and_resolve(name, module):
    with pytest.warns(DeprecationWarning, match="fasteager.autograph.%s" % name):
        assert getattr(fe.autograph, name) is module
    with pytest.raises(AttributeError):
        fe.autograph.no_such_module


def test_moved_classes_print_as_before():
    f = fe.function(lambda x: x + 1.0)
    cf = f.get_concrete_function(fe.constant(1.0))
    assert repr(type(f)) == "<class 'fasteager.function.Function'>"
    assert repr(type(cf)) == "<class 'fasteager.function.ConcreteFunction'>"
    assert repr(type(cf.graph)) == "<class 'fasteager.graph_view.FuncGraph'>"


def test_old_functional_ops_path_warns_and_gives_map_fn():
    import fasteager.ops as ops
    with pytest.warns(DeprecationWarning, match="fasteager.ops.functional_ops"):
        module = ops.functional_ops
    assert module.map_fn is fe.map_fn
