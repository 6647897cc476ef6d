"""Keras 3's augmentation policies, ``keras.layers.RandAugment`` and ``keras.layers.AugMix``:
each picks among the existing augmentation layers (RandomShear ... Equalization), built
inside it with factors derived from its own, and applies them in training; in inference
the images come back unchanged (cast to the layer's dtype), as Keras 3.15.1.

They live apart from ``augmentation`` because they need ``image_preprocessing``'s
Solarization / AutoContrast / Equalization, which import ``augmentation`` themselves.
"""
import random as _python_random

from .. import ops as kops
from ..random import SeedGenerator, beta, gamma, randint
from .augmentation import (
    RandomBrightness,
    RandomColorDegeneration,
    RandomContrast,
    RandomPosterization,
    RandomRotation,
    RandomSharpness,
    RandomShear,
    RandomTranslation,
    _ImageAugmentation,
)
from .image_preprocessing import AutoContrast, Equalization, Solarization

# Keras's order (RandAugment's op index and AugMix's choice both follow it)
_GEOMETRIC_AND_VALUE = ["random_shear", "random_translation", "random_rotation",
                        "random_brightness", "random_color_degeneration", "random_contrast",
                        "random_sharpness", "random_posterization", "solarization",
                        "auto_contrast", "equalization"]
_AUGMIX_BASE = ["random_shear", "random_translation", "random_rotation",
                "random_posterization", "solarization", "auto_contrast", "equalization"]


class _AugmentationPolicy(_ImageAugmentation):
    """Builds the named sub-layers (Keras's arguments: every factor the policy's
    ``(lower, upper)``, posterization's bits ``max(1, int(8 * upper))``)."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def _build_layers(self, names, interpolation, data_format, kwargs):
        factor, value_range, seed = self.factor, self.value_range, self.seed
        common = dict(data_format=data_format, **kwargs)
        makers = {
            "random_shear": lambda: RandomShear(x_factor=factor, y_factor=factor,
                                                interpolation=interpolation, seed=seed,
                                                **common),
            "random_translation": lambda: RandomTranslation(
                height_factor=factor, width_factor=factor, interpolation=interpolation,
                seed=seed, **common),
            "random_rotation": lambda: RandomRotation(factor=factor,
                                                      interpolation=interpolation, seed=seed,
                                                      **common),
            "random_brightness": lambda: RandomBrightness(factor=factor,
                                                          value_range=value_range, seed=seed,
                                                          **common),
            "random_color_degeneration": lambda: RandomColorDegeneration(
                factor=factor, value_range=value_range, seed=seed, **common),
            "random_contrast": lambda: RandomContrast(factor=factor, value_range=value_range,
                                                      seed=seed, **common),
            "random_sharpness": lambda: RandomSharpness(factor=factor,
                                                        value_range=value_range, seed=seed,
                                                        **common),
            "random_posterization": lambda: RandomPosterization(
                factor=max(1, int(8 * factor[1])), value_range=value_range, seed=seed,
                **common),
            "solarization": lambda: Solarization(addition_factor=factor,
                                                 threshold_factor=factor,
                                                 value_range=value_range, seed=seed,
                                                 **common),
            "auto_contrast": lambda: AutoContrast(value_range=value_range, **common),
            "equalization": lambda: Equalization(value_range=value_range, **common),
        }
        for name in names:
            setattr(self, name, makers[name]())

    def transform_labels(self, labels, transformation, training=True):
        return labels


class RandAugment(_AugmentationPolicy):
    """``num_ops`` augmentations in a row, each drawn (one for the whole batch) from
    shear, translation, rotation, brightness, colour degeneration, contrast, sharpness,
    posterization, solarization, auto-contrast and equalization, all of strength
    ``factor``."""

    _AUGMENT_LAYERS = tuple(_GEOMETRIC_AND_VALUE)

    def __init__(self, value_range=(0, 255), num_ops=2, factor=0.5, interpolation="bilinear",
                 seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.num_ops = num_ops
        self._set_factor(factor)
        self.interpolation = interpolation
        self.seed = seed
        self.generator = SeedGenerator(seed)
        self._build_layers(self._AUGMENT_LAYERS, interpolation, data_format, kwargs)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        seed = self._seed(seed)
        indices = randint((self.num_ops,), 0, len(self._AUGMENT_LAYERS), seed=seed)
        transforms = {name: getattr(self, name).get_random_transformation(
            data, training=training, seed=seed) for name in self._AUGMENT_LAYERS}
        return {"transforms": transforms, "layer_idxes": indices}

    def transform_images(self, images, transformation, training=True):
        images = kops.cast(images, self.compute_dtype)
        if not training:
            return images
        indices = [int(i) for i in kops.convert_to_numpy(transformation["layer_idxes"])]
        # the drawn index is one for the whole batch, so only the chosen layer runs
        # (Keras evaluates every layer and selects with where: the same values)
        for index in indices:
            name = self._AUGMENT_LAYERS[index]
            images = getattr(self, name).transform_images(
                images, transformation["transforms"][name])
        return kops.cast(images, self.compute_dtype)

    def transform_segmentation_masks(self, masks, transformation, training=True):
        if not training:
            return masks
        indices = [int(i) for i in kops.convert_to_numpy(transformation["layer_idxes"])]
        for index in indices:
            name = self._AUGMENT_LAYERS[index]
            masks = getattr(self, name).transform_segmentation_masks(
                masks, transformation["transforms"][name])
        return masks

    def get_config(self):
        config = super().get_config()
        config.update(value_range=self.value_range, num_ops=self.num_ops, factor=self.factor,
                      interpolation=self.interpolation, seed=self.seed)
        return config


class AugMix(_AugmentationPolicy):
    """``num_chains`` chains of up to ``chain_depth`` augmentations (each step a layer
    picked by Python's ``random``, or none), mixed with Dirichlet(``alpha``) weights, then
    blended with the input by a Beta(``alpha``, ``alpha``) weight and clipped to
    ``value_range``. ``all_ops=False`` leaves out brightness, colour degeneration,
    contrast and sharpness."""

    def __init__(self, value_range=(0, 255), num_chains=3, chain_depth=3, factor=0.3,
                 alpha=1.0, all_ops=True, interpolation="bilinear", seed=None,
                 data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.num_chains = num_chains
        self.chain_depth = chain_depth
        self._set_factor(factor)
        self.alpha = alpha
        self.all_ops = all_ops
        self.interpolation = interpolation
        self.seed = seed
        self.generator = SeedGenerator(seed)
        self._augment_layers = list(_GEOMETRIC_AND_VALUE if all_ops else _AUGMIX_BASE)
        self._build_layers(self._augment_layers, interpolation, data_format, kwargs)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        seed = self._seed(seed)
        draws = gamma([self.num_chains], self.alpha, seed=seed)
        mixing = draws / kops.sum(draws, axis=-1, keepdims=True)     # Dirichlet(alpha)
        weight = beta((), self.alpha, self.alpha, seed=seed)
        chains = []
        for _ in range(self.num_chains):
            steps = []
            for _ in range(self.chain_depth):
                name = _python_random.choice([*self._augment_layers, None])
                if name is not None:
                    steps.append((name, getattr(self, name).get_random_transformation(
                        data, seed=seed)))
            chains.append(steps)
        return {"chain_mixing_weights": mixing, "weight_sample": weight,
                "chain_transforms": chains}

    def _mix(self, values, transformation, method):
        mixing = kops.cast(transformation["chain_mixing_weights"], self.compute_dtype)
        weight = kops.cast(transformation["weight_sample"], self.compute_dtype)
        mixed = kops.zeros_like(values)
        for index, steps in enumerate(transformation["chain_transforms"]):
            chain = values
            for name, change in steps:
                chain = getattr(getattr(self, name), method)(chain, change)
            mixed = mixed + chain * mixing[index]
        return weight * values + (1 - weight) * mixed

    def transform_images(self, images, transformation, training=True):
        images = kops.cast(images, self.compute_dtype)
        if not training:
            return images
        images = self._mix(images, transformation, "transform_images")
        images = kops.clip(images, self.value_range[0], self.value_range[1])
        return kops.cast(images, self.compute_dtype)

    def transform_segmentation_masks(self, masks, transformation, training=True):
        if not training:
            return masks
        return self._mix(masks, transformation, "transform_segmentation_masks")

    def get_config(self):
        config = super().get_config()
        config.update(value_range=self.value_range, num_chains=self.num_chains,
                      chain_depth=self.chain_depth, factor=self.factor, alpha=self.alpha,
                      all_ops=self.all_ops, interpolation=self.interpolation,
                      seed=self.seed)
        return config
