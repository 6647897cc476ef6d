"""``fe.debugging`` (TensorFlow's ``tf.debugging``): runtime assertions on tensor values
and shapes, and NaN/Inf checks. Re-exports; the implementation is in
``fasteager._src.debugging``."""
from .._src.debugging import (assert_all_finite, assert_equal, assert_greater,  # noqa: F401
                              assert_greater_equal, assert_less, assert_less_equal,
                              assert_near, assert_negative, assert_non_negative,
                              assert_non_positive, assert_none_equal, assert_positive,
                              assert_rank, assert_rank_at_least, assert_shapes, assert_type,
                              check_numerics, disable_check_numerics, enable_check_numerics,
                              is_numeric_tensor)

__all__ = ["assert_equal", "assert_near", "assert_less", "assert_greater", "assert_less_equal",
           "assert_greater_equal", "assert_none_equal", "assert_rank", "assert_rank_at_least",
           "assert_shapes", "assert_positive", "assert_negative", "assert_non_negative",
           "assert_non_positive", "assert_all_finite", "assert_type", "check_numerics",
           "enable_check_numerics", "disable_check_numerics", "is_numeric_tensor"]
