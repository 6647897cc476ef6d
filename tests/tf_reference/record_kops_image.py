"""Record Keras 3.15.1's ``keras.ops.image`` (TensorFlow backend): outputs, gradients of
sum(output) with respect to the float inputs, and error classes, on fixed inputs (the case
format and the recording machinery are record_kops_nn.py's).

Run from the repository root: /work/tfenv/bin/python tests/tf_reference/record_kops_image.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save
from record_kops_nn import RNG, R, T, keras, record, tup


def image_cases():
    C = []
    img = R((2, 6, 7, 3), lo=0, hi=1)
    img3 = R((5, 6, 3), lo=0, hi=1)
    img64 = R((1, 5, 6, 3), "float64", 0, 1)
    imgi = T(np.round(RNG.uniform(0, 255, (1, 5, 6, 3))), "uint8")
    imgcf = R((2, 3, 6, 7), lo=0, hi=1)

    C += [("rgb_to_grayscale", [img], {}), ("rgb_to_grayscale", [img3], {}),
          ("rgb_to_grayscale", [img64], {}), ("rgb_to_grayscale", [imgi], {}),
          ("rgb_to_grayscale", [imgcf], {"data_format": "channels_first"}),
          ("rgb_to_grayscale", [R((2, 4, 4, 1))], {}),
          ("rgb_to_grayscale", [R((2, 4, 4, 2))], {}),
          ("rgb_to_grayscale", [R((4, 4))], {})]
    for f in ("rgb_to_hsv", "hsv_to_rgb"):
        C += [(f, [img], {}), (f, [img3], {}), (f, [img64], {}),
              (f, [imgcf], {"data_format": "channels_first"}), (f, [imgi], {}),
              (f, [R((4, 4))], {})]

    for method in ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5"):
        C.append(("resize", [img, tup(4, 5)], {"interpolation": method}))
        C.append(("resize", [img, tup(9, 11)], {"interpolation": method}))
    C += [("resize", [img, tup(3, 3)], {"antialias": True}),
          ("resize", [img, tup(3, 3)], {"antialias": True, "interpolation": "bicubic"}),
          ("resize", [img, tup(4, 4)], {"crop_to_aspect_ratio": True}),
          ("resize", [img, tup(3, 8)], {"crop_to_aspect_ratio": True}),
          ("resize", [img, tup(4, 4)], {"pad_to_aspect_ratio": True, "fill_value": 0.5}),
          ("resize", [img, tup(2, 8)], {"pad_to_aspect_ratio": True}),
          ("resize", [img3, tup(4, 4)], {}), ("resize", [img64, tup(3, 4)], {}),
          ("resize", [imgi, tup(3, 4)], {}), ("resize", [imgi, tup(8, 9)], {}),
          ("resize", [imgi, tup(3, 4)], {"interpolation": "nearest"}),
          ("resize", [imgcf, tup(4, 5)], {"data_format": "channels_first"}),
          ("resize", [img, tup(4, 5)], {"interpolation": "gaussian"}),
          ("resize", [img, tup(4, 5)], {"fill_mode": "reflect"}),
          ("resize", [img, tup(4, 4)], {"crop_to_aspect_ratio": True,
                                        "pad_to_aspect_ratio": True}),
          ("resize", [img, tup(0, 4)], {}), ("resize", [img, tup(4,)], {})]

    shift = T([1.0, 0.0, 1.5, 0.0, 1.0, -0.7, 0.0, 0.0])
    rot = T([0.9, -0.3, 1.1, 0.25, 0.95, -0.4, 0.01, -0.02])
    two = T([[1.0, 0.0, 1.5, 0.0, 1.0, -0.7, 0.0, 0.0], [1.2, 0.1, -2.0, 0.0, 0.8, 2.5, 0, 0]])
    for mode in ("constant", "nearest", "wrap", "reflect"):
        for interp in ("bilinear", "nearest"):
            C.append(("affine_transform", [img, rot],
                      {"fill_mode": mode, "interpolation": interp}))
        C.append(("affine_transform", [img, T([1.0, 0.0, 9.5, 0.0, 1.0, -13.2, 0.0, 0.0])],
                  {"fill_mode": mode}))
    C += [("affine_transform", [img, shift], {"fill_value": 0.5}),
          ("affine_transform", [img, two], {}), ("affine_transform", [img3, rot], {}),
          ("affine_transform", [img64, rot], {}),
          ("affine_transform", [imgcf, rot], {"data_format": "channels_first"}),
          ("affine_transform", [img, rot], {"interpolation": "bicubic"}),
          ("affine_transform", [img, rot], {"fill_mode": "mirror"})]

    start = T([[0, 0], [6, 0], [0, 5], [6, 5]])
    end = T([[1, 0.5], [5.5, 0], [0, 4.2], [6.3, 5]])
    C += [("perspective_transform", [img, start, end], {}),
          ("perspective_transform", [img, start, end], {"interpolation": "nearest"}),
          ("perspective_transform", [img, start, end], {"fill_value": 0.3}),
          ("perspective_transform", [img3, start, end], {}),
          ("perspective_transform", [img, T([[[0, 0], [6, 0], [0, 5], [6, 5]],
                                               [[1, 1], [5, 0], [0, 5], [6, 4]]]),
                                     T([[[1, 0.5], [5.5, 0], [0, 4.2], [6.3, 5]],
                                        [[0, 0], [6, 0], [0, 5], [6, 5]]])], {}),
          ("perspective_transform", [imgcf, start, end], {"data_format": "channels_first"}),
          ("perspective_transform", [img, start, T([[0, 0], [6, 0]])], {})]

    field = R((5, 6), lo=-1, hi=1)
    coords = T(RNG.uniform(-2.5, 8.5, size=(2, 3, 4)).round(3))
    for mode in ("constant", "nearest", "wrap", "mirror", "reflect"):
        C.append(("map_coordinates", [field, coords, 1], {"fill_mode": mode}))
        C.append(("map_coordinates", [field, coords, 0], {"fill_mode": mode}))
    C += [("map_coordinates", [field, coords, 1], {"fill_value": 0.5}),
          ("map_coordinates", [R((3, 4, 5)), T(RNG.uniform(-1, 5, (3, 7)).round(3)), 1], {}),
          ("map_coordinates", [R((4, 5), "float64"), T(RNG.uniform(-1, 5, (2, 6)).round(3),
                                                       "float64"), 1], {}),
          ("map_coordinates", [T(np.arange(20).reshape(4, 5), "int32"),
                               T([[0.5, 1.4, 2.6], [0.2, 3.7, 4.5]]), 1], {}),
          ("map_coordinates", [field, T([[0, 1, 4], [0, 5, 2]], "int32"), 0], {}),
          ("map_coordinates", [field, coords, 3], {}),
          ("map_coordinates", [field, T([[0.5, 1.5]]), 1], {})]

    C += [("pad_images", [img, 1, 2], {"bottom_padding": 3, "right_padding": 0}),
          ("pad_images", [img3], {"top_padding": 1, "left_padding": 1, "target_height": 9,
                                  "target_width": 8}),
          ("pad_images", [imgcf], {"bottom_padding": 2, "right_padding": 1,
                                   "target_height": 10, "target_width": 9,
                                   "data_format": "channels_first"}),
          ("pad_images", [imgi, 1, 1], {"bottom_padding": 1, "right_padding": 1}),
          ("pad_images", [img, 1, 1], {"bottom_padding": 1}),
          ("pad_images", [img], {"top_padding": 1, "left_padding": 1, "target_height": 3,
                                 "target_width": 9}),
          ("pad_images", [img, -1, 1], {"bottom_padding": 1, "right_padding": 1})]
    C += [("crop_images", [img, 1, 2], {"bottom_cropping": 2, "right_cropping": 1}),
          ("crop_images", [img3], {"top_cropping": 1, "left_cropping": 1, "target_height": 3,
                                   "target_width": 2}),
          ("crop_images", [imgcf], {"bottom_cropping": 1, "right_cropping": 2,
                                    "target_height": 4, "target_width": 3,
                                    "data_format": "channels_first"}),
          ("crop_images", [imgi], {"top_cropping": 1, "left_cropping": 2, "bottom_cropping": 0,
                                   "right_cropping": 1}),
          ("crop_images", [img, 1, 1], {}),
          ("crop_images", [img], {"top_cropping": 4, "left_cropping": 1, "target_height": 3,
                                  "target_width": 2})]

    C += [("extract_patches", [img, 2], {}), ("extract_patches", [img, tup(2, 3)], {}),
          ("extract_patches", [img, 3], {"strides": 1, "padding": "same"}),
          ("extract_patches", [img, 2], {"strides": 1, "dilation_rate": 2}),
          ("extract_patches", [img3, 2], {"strides": tup(1, 2)}),
          ("extract_patches", [R((1, 4, 4, 4, 2)), tup(2, 2, 2)], {}),
          ("extract_patches", [img, tup(2, 2, 2, 2)], {}),
          ("extract_patches", [img, "2"], {})]
    vol = R((2, 4, 5, 6, 2))
    C += [("extract_patches_3d", [vol, 2], {}),
          ("extract_patches_3d", [vol, tup(2, 3, 2)], {"strides": 1}),
          ("extract_patches_3d", [vol, 2], {"strides": 1, "padding": "same"}),
          ("extract_patches_3d", [R((4, 5, 6, 2)), 2], {}),
          ("extract_patches_3d", [R((1, 2, 4, 5, 6)), 2], {"data_format": "channels_first"}),
          ("extract_patches_3d", [vol, 2], {"strides": tup(1, 2)})]

    C += [("gaussian_blur", [img], {}), ("gaussian_blur", [img3], {}),
          ("gaussian_blur", [img, tup(5, 5), tup(1.5, 1.5)], {}),
          ("gaussian_blur", [img, tup(3, 5), tup(0.8, 2.0)], {}),
          ("gaussian_blur", [img64, tup(3, 3), tup(0.5, 1.0)], {}),
          ("gaussian_blur", [imgcf], {"data_format": "channels_first"}),
          ("gaussian_blur", [R((4, 4))], {})]

    C += [("elastic_transform", [img], {"seed": 3}),
          ("elastic_transform", [img, 5.0, 1.0], {"seed": 7}),
          ("elastic_transform", [img3, 10.0, 1.0], {"seed": 7, "fill_mode": "constant",
                                                   "fill_value": 0.5}),
          ("elastic_transform", [img, 10.0, 2.0], {"seed": 11, "interpolation": "nearest"}),
          ("elastic_transform", [img, 10.0, 1.0], {"seed": 5, "fill_mode": "wrap"}),
          ("elastic_transform", [img, 10.0, 1.0], {"seed": 5, "fill_mode": "nearest"}),
          ("elastic_transform", [img64, 8.0, 1.0], {"seed": 2}),
          ("elastic_transform", [imgcf, 8.0, 1.0], {"seed": 2,
                                                    "data_format": "channels_first"}),
          ("elastic_transform", [img], {"interpolation": "bicubic", "seed": 1})]

    C += [("scale_and_translate", [img, tup(2, 4, 5, 3), T([0.6, 0.7]), T([0.2, -0.3]),
                                   tup(1, 2), "bilinear"], {}),
          ("scale_and_translate", [img, tup(2, 9, 12, 3), T([1.5, 1.7]), T([0.0, 0.5]),
                                   tup(1, 2), "cubic"], {}),
          ("scale_and_translate", [img, tup(2, 4, 5, 3), T([0.6, 0.7]), T([0.2, -0.3]),
                                   tup(1, 2), "lanczos3"], {"antialias": False}),
          ("scale_and_translate", [img, tup(2, 4, 5, 3), T([0.6, 0.7]), T([0.2, -0.3]),
                                   tup(1, 2), "lanczos5"], {}),
          ("scale_and_translate", [img64, tup(1, 3, 4, 3), T([0.6, 0.7], "float64"),
                                   T([0.0, 0.0], "float64"), tup(1, 2), "linear"], {}),
          ("scale_and_translate", [imgi, tup(1, 3, 4, 3), T([0.6, 0.7]), T([0.0, 0.1]),
                                   tup(1, 2), "bilinear"], {}),
          ("scale_and_translate", [R((6, 5)), tup(3, 5), T([0.5]), T([0.0]), tup(0,),
                                   "trilinear"], {}),
          ("scale_and_translate", [img, tup(2, 4, 5, 3), T([0.6, 0.7]), T([0.2, -0.3]),
                                   tup(1, 2), "nearest"], {})]

    C += [("sobel_edges", [img], {}), ("sobel_edges", [img64], {}),
          ("sobel_edges", [imgcf], {"data_format": "channels_first"})]

    big1, big2 = R((2, 12, 13, 3), lo=0, hi=1), R((2, 12, 13, 3), lo=0, hi=1)
    C += [("ssim", [big1, big2], {}), ("ssim", [big1, big1], {}),
          ("ssim", [big1, big2], {"filter_size": 5, "filter_sigma": 1.0, "k1": 0.02}),
          ("ssim", [R((12, 12, 1), lo=0, hi=255), R((12, 12, 1), lo=0, hi=255)],
           {"max_val": 255.0}),
          ("ssim", [R((1, 12, 12, 2), "float64", 0, 1), R((1, 12, 12, 2), "float64", 0, 1)],
           {}),
          ("ssim", [R((1, 3, 12, 11), lo=0, hi=1), R((1, 3, 12, 11), lo=0, hi=1)],
           {"data_format": "channels_first"}),
          ("ssim", [R((12, 12)), R((12, 12))], {})]

    # other dtypes and input forms (drawn last, so the inputs above stay as recorded)
    hf = R((1, 5, 6, 3), "float16", 0, 1)
    i32 = T(np.round(RNG.uniform(0, 100, (1, 5, 6, 3))), "int32")
    C += [("rgb_to_grayscale", [i32], {}), ("rgb_to_grayscale", [hf], {}),
          ("rgb_to_hsv", [hf], {}), ("resize", [hf, tup(3, 4)], {}),
          ("resize", [i32, tup(3, 4)], {"interpolation": "bicubic"}),
          ("resize", [img, [4, 5]], {}),
          ("resize", [T(np.round(RNG.uniform(-200, 200, (1, 4, 4, 1))), "int8"), tup(7, 7)],
           {"interpolation": "bicubic"}),
          ("affine_transform", [imgi, rot], {}), ("affine_transform", [i32, rot],
                                                  {"interpolation": "nearest"}),
          ("affine_transform", [hf, rot], {"fill_mode": "reflect"}),
          ("map_coordinates", [R((4, 5), "float16"), T([[0, 1, 3], [4, 2, 0]], "int32"), 0], {}),
          ("map_coordinates", [field, [[0.5, 1.5, 2.5], [1.0, 7.0, -1.0]], 1], {}),
          ("pad_images", [img.copy(), 0, 0], {"bottom_padding": 0, "right_padding": 0}),
          ("crop_images", [i32, 0, 0], {"bottom_cropping": 0, "right_cropping": 0}),
          ("extract_patches", [R((1, 6, 6, 2), "float64"), 3], {"strides": 2,
                                                               "padding": "same"}),
          ("gaussian_blur", [hf], {}), ("sobel_edges", [i32], {}),
          ("ssim", [T(np.round(RNG.uniform(0, 255, (12, 12, 1))), "uint8"),
                    T(np.round(RNG.uniform(0, 255, (12, 12, 1))), "uint8")], {"max_val": 255.0})]
    return C


if __name__ == "__main__":
    save("kops_image", record(keras.ops.image, image_cases()))
