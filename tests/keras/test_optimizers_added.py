"""Adadelta, Adamax, Nadam, Ftrl, Lion, Lamb and Adafactor, and the CosineDecayRestarts and
PolynomialDecay schedules, against Keras 3.15.1 (values recorded by
tests/tf_reference/record_optimizers_added.py): weights and every optimizer variable
(names and order, the checkpoint layout) after 5 updates, with default arguments and with
weight_decay/clipnorm, with use_ema/gradient_accumulation_steps (Adafactor also without
relative_step), eagerly and in fe.function; get_config/from_config, get by name,
serialize/deserialize; the schedules' values and configs."""
import re

import numpy as np
import pytest

import fasteager as fe
from fasteager.keras import optimizers as O
from tests.tf_reference import load

REF = load("optimizers_added")
W0 = np.asarray(REF["inputs"]["w"], np.float32)
B0 = np.asarray(REF["inputs"]["b"], np.float32)
GRADS = [[np.asarray(g, np.float32) for g in gs] for gs in REF["inputs"]["grads"]]
CONFIGS = {"default": {}, "decay_clip": {"learning_rate": 0.05, "weight_decay": 0.1,
                                         "clipnorm": 0.5},
           "fixed_step": {"learning_rate": 0.5, "relative_step": False},
           "ema_accumulate": {"learning_rate": 0.05, "use_ema": True, "ema_momentum": 0.5,
                              "gradient_accumulation_steps": 2}}
CASES = sorted(REF["optimizers"])
TOL = dict(rtol=2e-5, atol=2e-6)


def _run(key, traced):
    name, cname = key.split("/")
    opt = getattr(O, name)(**CONFIGS[cname])
    w = fe.Variable(W0, name="kernel")
    b = fe.Variable(B0, name="bias")
    if traced:
        @fe.function
        def step(gw, gb):
            opt.apply_gradients(zip([gw, gb], [w, b]))
    else:
        def step(gw, gb):
            opt.apply_gradients(zip([gw, gb], [w, b]))
    for gs in GRADS:
        step(fe.constant(gs[0]), fe.constant(gs[1]))
    return opt, w, b


def _check(key, traced):
    want = REF["optimizers"][key]
    opt, w, b = _run(key, traced)
    np.testing.assert_allclose(w.numpy(), want["w"], **TOL)
    np.testing.assert_allclose(b.numpy(), want["b"], **TOL)
    got = opt.variables
    # Keras numbers a later optimizer of a class ("nadam_1") and a later unnamed variable
    # ("variable_2") in one process: compare without those counters
    assert [v.path.split("/", 1)[1] for v in got] == \
        [re.sub(r"^variable_\d+$", "variable", p.split("/", 1)[1])
         for p, _, _ in want["variables"]]
    assert [v.dtype.name for v in got] == [d for _, _, d in want["variables"]]
    for v, (path, value, _) in zip(got, want["variables"]):
        # float32 rounding of the array's largest terms (Ftrl's `linear` sums terms of
        # ~1e3 into elements of ~0.2)
        scale = float(np.max(np.abs(value))) if np.size(value) else 0.0
        assert np.shape(v.numpy()) == np.shape(value), path
        np.testing.assert_allclose(np.asarray(v.numpy(), np.float64), value, rtol=2e-5,
                                   atol=2e-6 + 1e-6 * scale, err_msg=path)


@pytest.mark.parametrize("key", CASES)
def test_eager_steps_match_keras3(key):
    _check(key, traced=False)


@pytest.mark.parametrize("key", CASES)
def test_function_steps_match_keras3(key):
    _check(key, traced=True)


@pytest.mark.parametrize("key", [k for k in CASES if k.endswith("/default")])
def test_config_defaults_get_and_round_trip(key):
    name = key.split("/")[0]
    want = dict(REF["optimizers"][key]["config"])
    opt = O.get(name.lower())
    assert type(opt) is getattr(O, name)
    got = opt.get_config()
    assert got["name"] == want.pop("name") == name.lower()
    got.pop("name")
    assert sorted(got) == sorted(want)
    for k, v in want.items():
        if isinstance(v, float):
            assert got[k] == pytest.approx(v, rel=1e-6), k
        else:
            assert got[k] == v, k
    again = getattr(O, name).from_config(opt.get_config())
    assert again.get_config() == opt.get_config()
    ser = O.serialize(opt)
    assert ser["class_name"] == name
    assert type(O.deserialize(ser)) is getattr(O, name)


def test_argument_checks_match_keras3():
    with pytest.raises(ValueError, match="beta_1"):
        O.Lion(beta_1=0.0)
    with pytest.raises(ValueError, match="learning_rate_power"):
        O.Ftrl(learning_rate_power=0.5)
    with pytest.raises(ValueError, match="initial_accumulator_value"):
        O.Ftrl(initial_accumulator_value=-1.0)
    with pytest.raises(ValueError, match="not recognized"):
        O.Nadam(bogus=1)


def test_ftrl_regularization_terms():
    """The L1/L2/shrinkage/beta terms against a direct float64 evaluation of Keras's
    update formula, for two steps."""
    kw = dict(learning_rate=0.1, l1_regularization_strength=0.01,
              l2_regularization_strength=0.02, l2_shrinkage_regularization_strength=0.03,
              beta=0.5, initial_accumulator_value=0.2)
    opt = O.Ftrl(**kw)
    w = fe.Variable(W0)
    var, acc, lin = W0.astype(np.float64), np.full(W0.shape, 0.2), np.zeros(W0.shape)
    lr = 0.1
    for gs in GRADS[:2]:
        opt.apply_gradients([(fe.constant(gs[0]), w)])
        g = gs[0].astype(np.float64)
        l2 = 0.02 + 0.5 / (2 * lr)
        new = acc + g * g
        lin = lin + g + 2 * 0.03 * var - (np.sqrt(new) - np.sqrt(acc)) / lr * var
        quad = np.sqrt(new) / lr + 2 * l2
        var = (np.clip(lin, -0.01, 0.01) - lin) / quad
        acc = new
    np.testing.assert_allclose(w.numpy(), var, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("key", sorted(REF["schedules"]))
def test_schedules_match_keras3(key):
    want = REF["schedules"][key]
    cls = getattr(O.schedules, want["class"])
    s = cls(**want["args"])
    for step, value in want["values"]:
        np.testing.assert_allclose(float(s(step)), value, rtol=1e-5, atol=1e-7,
                                   err_msg="step %d" % step)
    assert s.get_config() == want["config"]
    again = O.schedules.deserialize(O.schedules.serialize(s))
    assert type(again) is cls and again.get_config() == s.get_config()


def test_schedule_drives_new_optimizer():
    """A PolynomialDecay learning rate survives the optimizer's config round trip."""
    opt = O.Lion(learning_rate=O.schedules.PolynomialDecay(0.1, 4))
    again = O.Lion.from_config(opt.get_config())
    assert isinstance(again._learning_rate, O.schedules.PolynomialDecay)
    w = fe.Variable(np.ones(3, np.float32))
    for _ in range(2):
        opt.apply_gradients([(fe.constant(np.array([1.0, -1.0, 0.0], np.float32)), w)])
    # Lion steps by lr(t) * sign(...): lr(0) = 0.1, lr(1) = 0.075025
    np.testing.assert_allclose(w.numpy(), [1 - 0.1 - 0.075025, 1 + 0.1 + 0.075025, 1.0],
                               rtol=1e-5)


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "Nadam", "Ftrl", "Lion", "Lamb",
                                  "Adafactor"])
def test_scalar_variable_updates(name):
    """A 0-d variable goes through the same update (the base reshapes it to 1 element)."""
    opt = getattr(O, name)()
    w = fe.Variable(np.float32(0.5))
    opt.apply_gradients([(fe.constant(np.float32(0.25)), w)])
    assert w.shape == () and np.isfinite(w.numpy()) and float(w.numpy()) != 0.5


@pytest.mark.parametrize("name", ["Nadam", "Adafactor", "Ftrl"])
def test_checkpoint_restore_before_first_step(name, tmp_path):
    """Saved after 2 steps, restored into a fresh optimizer before its first step, the
    third step matches the original's: Nadam's momentum product (not a slot) and
    Adafactor's factored slots (not of the variable's shape) come back."""
    def setup():
        w = fe.Variable(W0, name="kernel")
        b = fe.Variable(B0, name="bias")
        opt = getattr(O, name)()
        return opt, [w, b], fe.train.Checkpoint(w=w, b=b, optimizer=opt)

    def step(opt, ws, gs):
        opt.apply_gradients(zip([fe.constant(g) for g in gs], ws))

    opt, ws, ckpt = setup()
    for gs in GRADS[:2]:
        step(opt, ws, gs)
    path = ckpt.save(str(tmp_path / "ckpt"))
    step(opt, ws, GRADS[2])
    opt2, ws2, ckpt2 = setup()
    ckpt2.restore(path)
    step(opt2, ws2, GRADS[2])
    for a, b in zip(ws + list(opt.variables), ws2 + list(opt2.variables)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)



@pytest.mark.parametrize("name", sorted(REF["zero_lr"]))
def test_zero_learning_rate_matches_keras3(name):
    """One step at learning_rate=0: Keras 3.15.1's Ftrl makes the weights NaN (its update
    divides by the rate), the others leave them; no Python ZeroDivisionError."""
    w = fe.Variable(np.array([0.5, -1.0], np.float32))
    getattr(O, name)(learning_rate=0.0).apply_gradients(
        [(fe.constant(np.array([0.1, 0.2], np.float32)), w)])
    want = [np.nan if x is None else x for x in REF["zero_lr"][name]]
    np.testing.assert_array_equal(w.numpy(), np.asarray(want, np.float32))
