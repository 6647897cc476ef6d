"""The Keras optimizers step by step against Keras 3.15.1 (values recorded by
tests/tf_reference/record_optimizer_options.py): default arguments, weight_decay, clipping,
amsgrad/nesterov/centered, use_ema (with finalize_variable_values),
gradient_accumulation_steps (with a learning-rate schedule), loss_scale_factor,
``Optimizer.apply``; eagerly, in fe.function and in model.fit."""
import warnings

import numpy as np
import pytest

import fasteager as fe
from fasteager.keras import optimizers as O
from tests.tf_reference import load

REF = load("optimizer_options")
W0 = [np.asarray(w, np.float32) for w in REF["w0"]]
GRADS = [[np.asarray(g, np.float32) for g in gs] for gs in REF["grads"]]
TOL = dict(rtol=2e-5, atol=2e-6)


def case_id(case):
    kw = ",".join("%s=%s" % kv for kv in sorted(case["kwargs"].items()))
    return "%s(%s)" % (case["class"], kw)


def make(case):
    kwargs = dict(case["kwargs"])
    if kwargs.get("learning_rate") == "schedule":
        kwargs["learning_rate"] = O.schedules.ExponentialDecay(0.1, 2, 0.5)
    return getattr(O, case["class"])(**kwargs)


def check_steps(case, step, opt, ws):
    for i, (gs, want) in enumerate(zip(GRADS, case["steps"])):
        step(gs)
        for w, ref in zip(ws, want["vars"]):
            np.testing.assert_allclose(w.numpy(), ref, err_msg="step %d" % i, **TOL)
        assert int(np.asarray(opt.iterations)) == want["iterations"], i
        assert int(opt._iterations.numpy()) == want["raw"], i
    if "finalized" in case:
        opt.finalize_variable_values(ws)
        for w, ref in zip(ws, case["finalized"]):
            np.testing.assert_allclose(w.numpy(), ref, **TOL)


STATEFUL = [c for c in REF["cases"] if set(c["kwargs"]) & {
    "use_ema", "gradient_accumulation_steps", "loss_scale_factor"}]


@pytest.mark.parametrize("case", REF["cases"], ids=case_id)
def test_eager_steps_match_keras3(case):
    opt = make(case)
    ws = [fe.Variable(w) for w in W0]
    check_steps(case, lambda gs: opt.apply_gradients(
        [(fe.constant(g), w) for g, w in zip(gs, ws)]), opt, ws)


@pytest.mark.parametrize("case", STATEFUL, ids=case_id)
def test_function_steps_match_keras3(case):
    """The same steps through one traced fe.function (the update is replayed)."""
    opt = make(case)
    ws = [fe.Variable(w) for w in W0]

    @fe.function
    def train(g0, g1):
        opt.apply_gradients(zip([g0, g1], ws))

    check_steps(case, lambda gs: train(fe.constant(gs[0]), fe.constant(gs[1])), opt, ws)


@pytest.mark.parametrize("case", REF["apply"], ids=case_id)
def test_apply_matches_keras3(case):
    opt = make(case)
    ws = [fe.Variable(w) for w in W0]

    def step(gs):
        if opt.built:
            opt.apply([fe.constant(g) for g in gs])
        else:
            opt.apply([fe.constant(g) for g in gs], ws)
    check_steps(case, step, opt, ws)


def test_apply_errors_match_keras3():
    errors = REF["errors"]
    w = fe.Variable(np.zeros(2, np.float32))
    assert errors["apply_unbuilt"][0] == "ValueError"
    with pytest.raises(ValueError, match="build"):
        O.SGD().apply([fe.ones(2)])
    opt = O.SGD()
    opt.apply([fe.ones(2)], [w])
    assert errors["apply_wrong_count"][0] == "ValueError"
    with pytest.raises(ValueError, match="expected 1 gradients, got 2"):
        opt.apply([fe.ones(2), fe.ones(2)])
    assert errors["apply_empty"] is None       # nothing happens, no step counted
    before = int(opt.iterations.numpy())
    assert opt.apply([], [w]) is None
    assert int(opt.iterations.numpy()) == before


@pytest.mark.parametrize("key,make_bad", [
    ("accum_1", lambda: O.SGD(gradient_accumulation_steps=1)),
    ("ema_momentum_2", lambda: O.SGD(use_ema=True, ema_momentum=2.0)),
    ("ema_freq_float", lambda: O.SGD(use_ema=True, ema_overwrite_frequency=1.5)),
])
def test_option_errors_match_keras3(key, make_bad):
    cls, message = REF["errors"][key]
    assert cls == "ValueError"
    with pytest.raises(ValueError, match=message.split("`")[1]):
        make_bad()


def test_ema_frequency_zero_is_accepted_as_keras3():
    assert REF["errors"]["ema_freq_0"] is None
    assert O.SGD(use_ema=True, ema_overwrite_frequency=0).ema_overwrite_frequency == 0


def test_optimizer_variables_in_keras3_order():
    case = next(c for c in STATEFUL if c["class"] == "Adam" and c["kwargs"].get("use_ema")
                and c["kwargs"].get("gradient_accumulation_steps"))
    opt = make(case)
    ws = [fe.Variable(w, name="w%d" % i) for i, w in enumerate(W0)]
    opt.apply_gradients([(fe.constant(g), w) for g, w in zip(GRADS[0], ws)])
    want = [p.split("/", 1)[1] for p in case["variables"]]
    assert [v.path.split("/", 1)[1] for v in opt.variables] == want


def test_config_round_trip_keeps_options():
    case = next(c for c in STATEFUL if c["class"] == "RMSprop" and c["kwargs"].get("use_ema")
                and c["kwargs"].get("gradient_accumulation_steps"))
    opt = make(case)
    config = opt.get_config()
    assert {k: config[k] for k in case["config"]} == case["config"]
    again = O.RMSprop.from_config(config)
    assert (again.use_ema, again.ema_momentum, again.ema_overwrite_frequency,
            again.gradient_accumulation_steps) == (True, 0.6, 2, 2)


def test_ema_and_accumulator_slots_checkpoint(tmp_path):
    """The averages and accumulators save and restore like any slot."""
    def fresh():
        return (O.Adam(0.1, use_ema=True, gradient_accumulation_steps=2),
                [fe.Variable(w) for w in W0])
    opt, ws = fresh()
    for gs in GRADS[:3]:   # odd: the accumulators hold a gradient
        opt.apply_gradients([(fe.constant(g), w) for g, w in zip(gs, ws)])
    path = fe.train.Checkpoint(optimizer=opt, w0=ws[0], w1=ws[1]).write(str(tmp_path / "c"))
    opt2, ws2 = fresh()
    fe.train.Checkpoint(optimizer=opt2, w0=ws2[0], w1=ws2[1]).restore(path)
    for gs in GRADS[3:]:
        for o, vs in ((opt, ws), (opt2, ws2)):
            o.apply_gradients([(fe.constant(g), w) for g, w in zip(gs, vs)])
    for a, b in zip(ws + opt.variables, ws2 + opt2.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("run", REF["fit"]["runs"], ids=lambda r: r["class"])
def test_fit_matches_keras3(run):
    x = np.asarray(REF["fit"]["x"], np.float32)
    y = np.asarray(REF["fit"]["y"], np.float32)
    model = fe.keras.Sequential([fe.keras.Input((3,)), fe.keras.layers.Dense(2)])
    model.set_weights(W0)
    opt = getattr(O, run["class"])(**run["kwargs"])
    model.compile(opt, "mse")
    hist = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    for e, loss in enumerate(hist.history["loss"]):
        np.testing.assert_allclose(loss, run["loss_%d" % e], rtol=1e-5)
    assert int(np.asarray(opt.iterations)) == run["iterations"]
    if opt.use_ema and any(not np.allclose(w, ref, **TOL)
                           for w, ref in zip(model.get_weights(), run["final"])):
        # (a fit that does not finalize itself leaves the last step's weights)
        for w, ref in zip(model.get_weights(), run["before_finalize"]):
            np.testing.assert_allclose(w, ref, **TOL)
        opt.finalize_variable_values(model.trainable_variables)
    for w, ref in zip(model.get_weights(), run["final"]):
        np.testing.assert_allclose(w, ref, **TOL)


def test_tf2_decay_is_warned_about_and_ignored_as_keras3():
    case = REF["decay"]["case"]
    with pytest.warns(UserWarning) as caught:
        opt = make(case)
    assert [str(w.message) for w in caught if "decay" in str(w.message)] \
        == REF["decay"]["warnings"]
    ws = [fe.Variable(w) for w in W0]
    check_steps(case, lambda gs: opt.apply_gradients(
        [(fe.constant(g), w) for g, w in zip(gs, ws)]), opt, ws)


def test_unknown_argument_is_a_value_error_as_keras3():
    cls, message = REF["errors"]["unknown_kwarg"]
    assert cls == "ValueError"
    with pytest.raises(ValueError, match=r"Argument\(s\) not recognized: \{'foo': 1\}"):
        O.Adam(foo=1)
    assert message.startswith("Argument(s) not recognized: {'foo': 1}")


def test_finalize_matches_variables_by_identity_then_position():
    opt = O.SGD(0.5, use_ema=True, ema_momentum=0.5)
    a, b = fe.Variable([1.0]), fe.Variable([2.0])
    for _ in range(2):
        opt.apply_gradients([(fe.constant([1.0]), a), (fe.constant([1.0]), b)])
    # a: 1 -> 0.5 (average 0.5) -> 0 (average 0.25); b: 2 -> 1.5 -> 1 (average 1.25)
    opt.finalize_variable_values([b])            # its own average, not a's
    np.testing.assert_allclose(b.numpy(), [1.25])
    c, d = fe.Variable([0.0]), fe.Variable([0.0])
    opt.finalize_variable_values([c, d])        # others: in the optimizer's order
    np.testing.assert_allclose([c.numpy()[0], d.numpy()[0]], [0.25, 1.25])
    with pytest.raises(ValueError, match="expected the optimizer's variables or 2"):
        opt.finalize_variable_values([c])
    O.SGD().finalize_variable_values([c])        # without EMA: nothing
    np.testing.assert_allclose(c.numpy(), [0.25])


def test_scale_loss_undoes_the_gradient_unscaling():
    """A custom loop scales its loss with ``scale_loss``; the step is the unscaled one."""
    w0 = np.array([1.0, -2.0], np.float32)
    results = []
    for factor in (None, 8.0):
        opt = O.SGD(0.1, loss_scale_factor=factor)
        w = fe.Variable(w0)
        with fe.GradientTape() as tape:
            loss = opt.scale_loss(fe.reduce_sum(w * w))
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
        results.append(w.numpy())
    np.testing.assert_allclose(results[0], w0 - 0.1 * 2 * w0, rtol=1e-6)
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6)
    assert O.SGD().scale_loss(3.0) == 3.0


@pytest.mark.parametrize("rec", REF["schedules"], ids=case_id)
def test_schedules_match_keras3(rec):
    sched = getattr(O.schedules, rec["class"])(**rec["kwargs"])
    got = [float(np.asarray(sched(step))) for step in range(len(rec["values"]))]
    np.testing.assert_allclose(got, rec["values"], rtol=1e-6, atol=1e-9)
    assert sched.get_config() == rec["config"]


@pytest.mark.parametrize("name", sorted(REF["default_configs"]))
def test_default_config_matches_keras3(name):
    """Every default, the name included (Keras 3 calls AdamW's 'adam_w')."""
    config = getattr(O, name)().get_config()
    want = REF["default_configs"][name]
    assert sorted(config) == sorted(want)
    for key, value in want.items():
        assert config[key] == pytest.approx(value) if isinstance(value, float) \
            else config[key] == value, key


@pytest.mark.parametrize("rec", REF["nonfinite"],
                         ids=lambda r: "%s-%s" % (",".join(r["kwargs"]) or "none", r["bad"]))
def test_clipping_a_non_finite_gradient_matches_keras3(rec):
    """clipnorm: a NaN norm poisons that gradient, an infinite one leaves NaN and 0;
    global_clipnorm: any non-finite norm makes every gradient NaN (Keras 3)."""
    opt = O.SGD(1.0, **rec["kwargs"])
    a, b = fe.Variable(np.zeros(2, np.float32)), fe.Variable(np.zeros(2, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)   # and quietly, as TensorFlow
        opt.apply_gradients([(fe.constant([float(rec["bad"]), 1.0]), a),
                             (fe.constant([1.0, 2.0]), b)])
    for v, want in zip((a, b), rec["vars"]):
        np.testing.assert_allclose(v.numpy(), [float(x) for x in want], rtol=1e-6)


def test_a_float_cannot_replace_a_schedule_as_keras3():
    # it silently ended the schedule; Keras 3.15.1 raises this TypeError (its words)
    sched = fe.keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)
    opt = fe.keras.optimizers.SGD(sched)
    with pytest.raises(TypeError, match=r"^This optimizer was created with a "
                                        r"`LearningRateSchedule` object"):
        opt.learning_rate = 0.05
    assert opt._learning_rate is sched
    plain = fe.keras.optimizers.SGD(0.1)
    plain.learning_rate = sched                 # a schedule may replace a float, as Keras
    assert plain._learning_rate is sched
