"""``fe.image``: resizing, flips, crops, colour and dtype conversions, augmentation and
file codecs of images, as ``tf.image``. Re-exports only: the ops are in
``fasteager.ops.image_ops`` (geometry, resizing), ``image_color_ops`` (colour) and
``image_box_ops`` (bounding-box sampling); the file codecs and the JPEG-quality ops in
``fasteager._src.io.image_codecs``.
"""
from ._src.io.image_codecs import (  # noqa: F401
    adjust_jpeg_quality,
    decode_and_crop_jpeg,
    decode_bmp,
    decode_gif,
    decode_image,
    decode_jpeg,
    decode_png,
    encode_jpeg,
    encode_png,
    extract_jpeg_shape,
    is_jpeg,
    random_jpeg_quality,
    stateless_random_jpeg_quality,
)
from .ops.image_box_ops import (  # noqa: F401
    sample_distorted_bounding_box,
    stateless_sample_distorted_bounding_box,
)
from .ops.image_color_ops import (  # noqa: F401
    adjust_brightness,
    adjust_contrast,
    adjust_gamma,
    adjust_hue,
    adjust_saturation,
    hsv_to_rgb,
    random_brightness,
    random_contrast,
    random_hue,
    random_saturation,
    rgb_to_hsv,
    rgb_to_yiq,
    rgb_to_yuv,
    stateless_random_brightness,
    stateless_random_contrast,
    stateless_random_hue,
    stateless_random_saturation,
    yiq_to_rgb,
    yuv_to_rgb,
)
from .ops.image_ops import (  # noqa: F401
    ResizeMethod,
    central_crop,
    convert_image_dtype,
    crop_to_bounding_box,
    flip_left_right,
    flip_up_down,
    grayscale_to_rgb,
    image_gradients,
    pad_to_bounding_box,
    per_image_standardization,
    random_crop,
    random_flip_left_right,
    random_flip_up_down,
    resize,
    resize_with_crop_or_pad,
    resize_with_pad,
    rgb_to_grayscale,
    sobel_edges,
    stateless_random_crop,
    stateless_random_flip_left_right,
    stateless_random_flip_up_down,
    total_variation,
)

__all__ = ["ResizeMethod", "adjust_brightness", "adjust_contrast", "adjust_gamma",
           "adjust_hue", "adjust_jpeg_quality", "adjust_saturation", "central_crop",
           "convert_image_dtype", "crop_to_bounding_box", "decode_and_crop_jpeg", "decode_bmp",
           "decode_gif", "decode_image", "decode_jpeg", "decode_png", "encode_jpeg",
           "encode_png", "extract_jpeg_shape", "flip_left_right", "flip_up_down",
           "grayscale_to_rgb", "hsv_to_rgb", "image_gradients", "is_jpeg",
           "pad_to_bounding_box", "per_image_standardization", "random_brightness",
           "random_contrast", "random_crop", "random_flip_left_right", "random_flip_up_down",
           "random_hue", "random_jpeg_quality", "random_saturation", "resize",
           "resize_with_crop_or_pad", "resize_with_pad", "rgb_to_grayscale", "rgb_to_hsv",
           "rgb_to_yiq", "rgb_to_yuv", "sample_distorted_bounding_box", "sobel_edges",
           "stateless_random_brightness",
           "stateless_random_contrast", "stateless_random_crop",
           "stateless_random_flip_left_right", "stateless_random_flip_up_down",
           "stateless_random_hue", "stateless_random_jpeg_quality",
           "stateless_random_saturation", "stateless_sample_distorted_bounding_box",
           "total_variation", "yiq_to_rgb", "yuv_to_rgb"]

# the classes users see keep the public module in their repr and pickles
ResizeMethod.__module__ = __name__
