"""fe.config: devices and threading."""
import pytest

import fasteager as fe


def test_intra_op_threads_size_the_blas_pool():
    t = fe.config.threading
    before = t.get_intra_op_parallelism_threads()
    try:
        t.set_intra_op_parallelism_threads(1)
        assert t.get_intra_op_parallelism_threads() == 1
        if t.blas_threads() is not None:
            assert t.blas_threads() == 1
        t.set_intra_op_parallelism_threads(0)
        assert t.kernel_threads() >= 1
    finally:
        t.set_intra_op_parallelism_threads(before)
    with pytest.raises(fe.errors.InvalidArgumentError):
        t.set_intra_op_parallelism_threads(-1)


def test_device_lists():
    assert [d.device_type for d in fe.config.list_physical_devices()] == ["CPU"]
    assert fe.config.list_logical_devices("CPU")[0].name == "/device:CPU:0"
    assert fe.config.get_soft_device_placement() is True


def test_compat_logging():
    import logging
    fe.compat.v1.logging.set_verbosity(fe.compat.v1.logging.ERROR)
    assert fe.get_logger().getEffectiveLevel() == logging.ERROR
    assert fe.compat.v2 is fe
    fe.compat.v1.logging.set_verbosity(logging.WARNING)


# -- run_functions_eagerly -----------------------------------------------------------------
@pytest.fixture
def eager_functions():
    assert fe.config.functions_run_eagerly() is False      # the default
    fe.config.run_functions_eagerly(True)
    try:
        yield
    finally:
        fe.config.run_functions_eagerly(False)


def test_run_functions_eagerly_runs_the_python_body_on_every_call(eager_functions):
    calls = []

    @fe.function
    def f(x):
        calls.append(fe.executing_eagerly())
        return x * 2.0
    assert fe.config.functions_run_eagerly() is True
    for v in (1.0, 2.0, 3.0):
        assert float(f(fe.constant(v)).numpy()) == 2.0 * v
    assert calls == [True, True, True]          # each call ran eagerly, none traced
    assert f.experimental_get_tracing_count() == 0
    fe.config.run_functions_eagerly(False)
    assert fe.config.functions_run_eagerly() is False
    assert float(f(fe.constant(4.0)).numpy()) == 8.0
    assert float(f(fe.constant(5.0)).numpy()) == 10.0
    assert calls == [True, True, True, False]   # traced once, then replayed
    assert f.experimental_get_tracing_count() == 1


def test_run_functions_eagerly_applies_to_functions_traced_before(eager_functions):
    fe.config.run_functions_eagerly(False)
    seen = []

    @fe.function
    def f(x):
        seen.append(float(x.numpy()) if fe.executing_eagerly() else None)
        return x + 1.0
    f(fe.constant(1.0))
    fe.config.run_functions_eagerly(True)
    assert float(f(fe.constant(2.0)).numpy()) == 3.0
    assert seen == [None, 2.0]                  # x.numpy() works: it is an eager tensor


def test_run_functions_eagerly_is_process_wide(eager_functions):
    import threading
    out = []

    @fe.function
    def f(x):
        out.append(fe.executing_eagerly())
        return x
    t = threading.Thread(target=lambda: (out.append(fe.config.functions_run_eagerly()),
                                         f(fe.constant(1.0))))
    t.start()
    t.join()
    assert out == [True, True]
    assert fe.config.experimental_functions_run_eagerly() is True


def test_run_functions_eagerly_rejects_non_bools():
    with pytest.raises(TypeError, match="run_functions_eagerly: run_eagerly must be a bool"):
        fe.config.run_functions_eagerly("False")
    assert fe.config.functions_run_eagerly() is False


def test_array_cache_limit_beyond_size_t_is_a_value_error():
    info = fe.config.experimental.get_array_cache_info()
    try:
        for bad in (2**64, 2**100, -(2**70)):
            with pytest.raises(ValueError, match="set_array_cache_limit"):
                fe.config.experimental.set_array_cache_limit(bad)
        fe.config.experimental.set_array_cache_limit(2**64 - 1)     # the largest size_t
    finally:
        fe.config.experimental.set_array_cache_limit(info["limit_bytes"])
