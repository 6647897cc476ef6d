"""``fe.random``: seeded, reproducible random tensors."""
from .ops.random_ops import (Generator, categorical, get_global_seed, normal,  # noqa: F401
                             set_seed, shuffle, truncated_normal, uniform)
