"""Record Keras 3.15.1's Adadelta, Adamax, Nadam, Ftrl, Lion, Lamb and Adafactor: every
optimizer variable (path, value and dtype, in ``optimizer.variables`` order) and the
weights after 5 updates from fixed weights and gradients, with default arguments, with
weight_decay/clipnorm and with use_ema/gradient_accumulation_steps (Adafactor also
without relative_step); their get_config; and the CosineDecayRestarts and
PolynomialDecay schedules at a range of steps.

Run from the repository root with a TensorFlow 2.21 / Keras 3.15.1 environment:
    python tests/tf_reference/record_optimizers_added.py
"""
import os
import sys

import numpy as np

NAMES = ["Adadelta", "Adamax", "Nadam", "Ftrl", "Lion", "Lamb", "Adafactor"]
CONFIGS = {"default": {}, "decay_clip": {"learning_rate": 0.05, "weight_decay": 0.1,
                                         "clipnorm": 0.5},
           "fixed_step": {"learning_rate": 0.5, "relative_step": False},
           "ema_accumulate": {"learning_rate": 0.05, "use_ema": True, "ema_momentum": 0.5,
                              "gradient_accumulation_steps": 2}}
SCHEDULES = {
    "cdr_default": ("CosineDecayRestarts", {"initial_learning_rate": 0.1,
                                            "first_decay_steps": 10}),
    "cdr_args": ("CosineDecayRestarts", {"initial_learning_rate": 0.5, "first_decay_steps": 7,
                                         "t_mul": 1.5, "m_mul": 0.8, "alpha": 0.1}),
    "cdr_tmul1": ("CosineDecayRestarts", {"initial_learning_rate": 0.5,
                                          "first_decay_steps": 4, "t_mul": 1.0}),
    "poly_default": ("PolynomialDecay", {"initial_learning_rate": 0.1, "decay_steps": 10}),
    "poly_power": ("PolynomialDecay", {"initial_learning_rate": 0.1, "decay_steps": 10,
                                       "end_learning_rate": 0.01, "power": 2.0}),
    "poly_cycle": ("PolynomialDecay", {"initial_learning_rate": 0.1, "decay_steps": 4,
                                       "end_learning_rate": 0.02, "power": 0.5,
                                       "cycle": True}),
}
STEPS = [0, 1, 3, 4, 5, 7, 9, 10, 11, 15, 17, 25, 40]


def inputs():
    rng = np.random.default_rng(34)
    w = rng.standard_normal((3, 4)).astype("float32")
    b = rng.standard_normal((4,)).astype("float32")
    grads = [[rng.standard_normal((3, 4)).astype("float32"),
              rng.standard_normal((4,)).astype("float32")] for _ in range(5)]
    return w, b, grads


def main():
    import keras
    w0, b0, grads = inputs()
    out = {"inputs": {"w": w0.tolist(), "b": b0.tolist(),
                      "grads": [[g.tolist() for g in gs] for gs in grads]},
           "optimizers": {}, "schedules": {}}
    for name in NAMES:
        for cname, cfg in CONFIGS.items():
            if cname == "fixed_step" and name != "Adafactor":
                continue
            opt = getattr(keras.optimizers, name)(**cfg)
            w = keras.Variable(w0, name="kernel")
            b = keras.Variable(b0, name="bias")
            for gs in grads:
                opt.apply_gradients(zip([keras.ops.convert_to_tensor(g) for g in gs], [w, b]))
            out["optimizers"]["%s/%s" % (name, cname)] = {
                "w": np.asarray(w).tolist(), "b": np.asarray(b).tolist(),
                "variables": [[v.path, np.asarray(v).tolist(), v.dtype]
                              for v in opt.variables],
                "config": opt.get_config()}
    out["zero_lr"] = {}
    for name in NAMES:   # one step at learning_rate=0 (Ftrl divides by it)
        w = keras.Variable(np.array([0.5, -1.0], "float32"))
        getattr(keras.optimizers, name)(learning_rate=0.0).apply_gradients(
            [(keras.ops.convert_to_tensor(np.array([0.1, 0.2], "float32")), w)])
        out["zero_lr"][name] = [None if np.isnan(x) else float(x) for x in np.asarray(w)]
    for key, (cls, args) in SCHEDULES.items():
        s = getattr(keras.optimizers.schedules, cls)(**args)
        out["schedules"][key] = {"class": cls, "args": args, "config": s.get_config(),
                                 "values": [[t, float(s(t))] for t in STEPS]}
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from __init__ import save
    save("optimizers_added", out)


if __name__ == "__main__":
    main()
