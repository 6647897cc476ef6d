"""Op-table specs of the ops behind the Keras attention and convolution layers."""
import numpy as np

from fasteager.ops.attention_ops import scaled_dot_product_attention
from tests.ops.op_specs_base import Spec


def _sdpa_ref(q, k, v, bias):
    s = q @ np.swapaxes(k, -1, -2) / float(np.sqrt(q.shape[-1])) + bias
    if s.size:
        s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p = p / p.sum(axis=-1, keepdims=True)
    return p @ v


AREA_SPECS = {
    # (q, k, v, bias): one head; batch and heads with a broadcast bias (a padding mask's
    # shape); a bias per score; an empty batch of queries
    "scaled_dot_product_attention": Spec(
        lambda q, k, v, b: scaled_dot_product_attention(q, k, v, mask=b), _sdpa_ref,
        cases=[((3, 4), (5, 4), (5, 2), ()),
               ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3), (2, 1, 1, 5)),
               ((2, 3, 4), (2, 5, 4), (2, 5, 3), (2, 3, 5)),
               ((2, 0, 4), (2, 5, 4), (2, 5, 3), ())]),
}
