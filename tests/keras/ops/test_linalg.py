"""keras.ops.linalg against Keras 3.15.1: values, dtypes, shapes, error classes and gradients
of every case recorded by tests/tf_reference/record_kops_linalg.py (the same case list runs
here on fasteager; decompositions are compared through sign/order-free views)."""
import pytest

import fasteager as fe
from fasteager.keras.ops import linalg
from tests.keras.ops._kops_compare import check
from tests.tf_reference import load
from tests.tf_reference.record_kops_linalg import cases

REF = load("kops_linalg")
CASES = cases()
NAMES = sorted({c[0] for c in CASES})
KERAS_LINALG = sorted([
    "cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "jvp", "lstsq", "lu_factor",
    "matrix_rank", "norm", "pinv", "qr", "solve", "solve_triangular", "svd"])


@pytest.mark.parametrize("name", NAMES)
def test_matches_keras(name):
    mine = [c for c in CASES if c[0] == name]
    assert mine
    for case in mine:
        check(case, REF[case[1]])


def test_every_name_recorded_and_in_its_namespaces():
    assert sorted(linalg.__all__) == KERAS_LINALG
    assert NAMES == KERAS_LINALG
    assert fe.keras.ops.linalg is linalg
    for name in KERAS_LINALG:
        assert getattr(fe.keras.ops, name) is getattr(linalg, name)
