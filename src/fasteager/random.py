"""``fe.random``: seeded, reproducible random tensors, Generators and stateless ops."""
from ._src.state.generators import (Generator, get_global_generator,  # noqa: F401
                                    set_global_generator)
from .ops.random_ops import (Algorithm, categorical, create_rng_state, get_global_seed,  # noqa: F401
                             normal, set_seed, shuffle, stateless_binomial,
                             stateless_categorical, stateless_fold_in, stateless_normal,
                             stateless_poisson, stateless_split, stateless_truncated_normal,
                             stateless_uniform, truncated_normal, uniform)


class experimental:
    """``fe.random.experimental``: TensorFlow's aliases of the Generator API."""
    Algorithm = Algorithm
    Generator = Generator
    create_rng_state = staticmethod(create_rng_state)
    get_global_generator = staticmethod(get_global_generator)
    set_global_generator = staticmethod(set_global_generator)
    stateless_split = staticmethod(stateless_split)
    stateless_fold_in = staticmethod(stateless_fold_in)
