"""keras.ops math functions against Keras 3.15.1: values, dtypes, shapes, error classes and
gradients of every case recorded by tests/tf_reference/record_kops_math.py (the same case
list runs here on fasteager)."""
import pytest

import fasteager as fe
from fasteager.keras.ops import math as kmath
from tests.keras.ops._kops_compare import check
from tests.tf_reference import load
from tests.tf_reference.record_kops_math import cases

REF = load("kops_math")
CASES = cases()
NAMES = sorted({c[0] for c in CASES})
KERAS_MATH = sorted([
    "cdist", "erf", "erfc", "erfinv", "extract_sequences", "fft", "fft2", "ifft2", "in_top_k",
    "irfft", "istft", "logdet", "logsumexp", "rfft", "rsqrt", "segment_max", "segment_min",
    "segment_prod", "segment_sum", "stft", "top_k", "view_as_complex", "view_as_real"])


@pytest.mark.parametrize("name", NAMES)
def test_matches_keras(name):
    mine = [c for c in CASES if c[0] == name]
    assert mine
    for case in mine:
        check(case, REF[case[1]])


def test_every_name_recorded_and_in_its_namespaces():
    assert sorted(kmath.__all__) == KERAS_MATH
    assert NAMES == KERAS_MATH
    for name in KERAS_MATH:
        assert getattr(fe.keras.ops, name) is getattr(kmath, name)
