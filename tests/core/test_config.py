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
