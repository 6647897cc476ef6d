"""Helpers shared by the control-flow and AutoGraph tests."""
import contextlib
import warnings

from fasteager._src.tracing.tracer import KIND_CONTROL


@contextlib.contextmanager
def no_fallback():
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # an eager fallback warns: make it fail the test
        yield


def control_steps(f, *args):
    """The control steps of ``f``'s trace for ``args`` (which must not run eagerly)."""
    cf = f.get_concrete_function(*args)
    assert cf._eager_only is None
    return [s for s in cf._all_steps if s.kind == KIND_CONTROL]
