"""The Keras 3 losses fasteager added (issue 34): values, reductions, sample weights,
gradients, function forms, configs and ``losses.get`` names, against recorded Keras 3.15.1.
"""
import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load

REF = load("losses_added")
L = fe.keras.losses
INT_LABELS = ("Circle", "CategoricalGeneralizedCrossEntropy", "CTC")
FUNCS = {
    "BinaryFocalCrossentropy": "binary_focal_crossentropy",
    "CategoricalFocalCrossentropy": "categorical_focal_crossentropy",
    "CategoricalHinge": "categorical_hinge", "Hinge": "hinge", "SquaredHinge": "squared_hinge",
    "CosineSimilarity": "cosine_similarity", "KLDivergence": "kl_divergence",
    "LogCosh": "log_cosh", "Poisson": "poisson",
    "MeanAbsolutePercentageError": "mean_absolute_percentage_error",
    "MeanSquaredLogarithmicError": "mean_squared_logarithmic_error",
    "Dice": "dice", "Tversky": "tversky", "Circle": "circle",
    "CategoricalGeneralizedCrossEntropy": "categorical_generalized_cross_entropy",
    "CTC": "ctc",
}


def _inputs(case):
    yt = np.asarray(case["y_true"], np.int32 if case["class"] in INT_LABELS else np.float32)
    return yt, fe.constant(np.asarray(case["y_pred"], np.float32))


def _close(got, want, rtol=2e-5, atol=2e-5):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=rtol, atol=atol)


@pytest.mark.parametrize("i", range(len(REF["cases"])),
                         ids=["%s-%d" % (c["class"], i) for i, c in enumerate(REF["cases"])])
def test_values_reductions_and_gradients_match_keras(i):
    case = REF["cases"][i]
    cls = getattr(L, case["class"])
    yt, yp = _inputs(case)
    loss = cls(**case["kwargs"])
    with fe.GradientTape() as tape:
        tape.watch(yp)
        value = loss(yt, yp)
    _close(value.numpy(), case["value"])
    _close(tape.gradient(value, yp).numpy(), case["grad"], rtol=1e-4, atol=1e-5)
    _close(cls(reduction="none", **case["kwargs"])(yt, yp).numpy(), case["none"])
    fkw = dict(case["kwargs"])
    if case["class"] == "CategoricalGeneralizedCrossEntropy":
        fkw.setdefault("q", 0.5)
    _close(getattr(L, FUNCS[case["class"]])(yt, yp, **fkw).numpy(), case["function"])
    if case["weighted"]:
        sw = np.asarray(case["sample_weight"], np.float32)
        _close(cls(reduction="sum", **case["kwargs"])(yt, yp, sw).numpy(),
               case["sum_weighted"])
        _close(loss(yt, yp, sw).numpy(), case["mean_weighted"])


@pytest.mark.parametrize("i", range(len(REF["cases"])),
                         ids=["%s-%d" % (c["class"], i) for i, c in enumerate(REF["cases"])])
def test_config_matches_keras_and_round_trips(i):
    case = REF["cases"][i]
    cls = getattr(L, case["class"])
    loss = cls(**case["kwargs"])
    config = loss.get_config()
    config.pop("dtype", None)
    assert config == case["config"]
    again = cls.from_config(loss.get_config())
    assert again.get_config() == loss.get_config()
    restored = L.get(L.serialize(loss))
    assert type(restored) is cls and restored.get_config() == loss.get_config()


def test_get_by_name_matches_keras():
    for name, want in REF["get"].items():
        if want is None:
            with pytest.raises(ValueError):
                L.get(name)
            continue
        obj = L.get(name)
        got = getattr(obj, "__name__", None) or type(obj).__name__
        assert got == want, name


def test_module_aliases_are_the_functions():
    assert L.kld is L.KLD is L.kl_divergence is L.kullback_leibler_divergence
    assert L.mape is L.MAPE is L.mean_absolute_percentage_error
    assert L.msle is L.MSLE is L.mean_squared_logarithmic_error
    assert L.logcosh is L.log_cosh


def test_generalized_cross_entropy_refuses_q_outside_unit_interval():
    for q in (0.0, 1.0, -0.5):
        with pytest.raises(ValueError, match="q must be in the interval"):
            L.CategoricalGeneralizedCrossEntropy(q=q)


def test_categorical_focal_refuses_bool_axis():
    with pytest.raises(ValueError, match="axis"):
        L.categorical_focal_crossentropy([[0., 1.]], [[0.3, 0.7]], axis=True)


def test_metrics_module_exports_the_same_loss_functions():
    # Keras 3 exports these loss functions from keras.metrics too (the same objects)
    for name in ("binary_focal_crossentropy", "categorical_focal_crossentropy", "hinge",
                 "squared_hinge", "categorical_hinge", "kl_divergence", "log_cosh", "poisson",
                 "mean_absolute_percentage_error", "mean_squared_logarithmic_error"):
        assert getattr(fe.keras.metrics, name) is getattr(L, name), name


def test_ctc_refuses_bad_ranks_and_labels_outside_the_classes():
    logits = np.zeros((2, 5, 4), np.float32)
    with pytest.raises(ValueError, match="y_true.shape"):
        L.ctc(np.zeros((2,), np.int32), logits)
    with pytest.raises(ValueError, match="y_pred.shape"):
        L.ctc(np.zeros((2, 3), np.int32), logits[0])
    # (Keras/TF compute a meaningless number here; fasteager names the bad label)
    with pytest.raises(fe.errors.InvalidArgumentError, match="ctc: labels"):
        L.ctc(np.array([[1, 4, 0], [1, 0, 0]]), logits)


def test_deserialize_names_and_keras_dicts():
    assert L.deserialize("kld") is L.kl_divergence
    assert isinstance(L.deserialize("Hinge"), L.Hinge)
    # Keras 3's serialized forms of a class instance and of a plain function
    t = L.deserialize({"module": "keras.losses", "class_name": "Tversky",
                       "config": {"alpha": 0.2}, "registered_name": None})
    assert t.get_config() == {"name": "tversky", "reduction": "sum_over_batch_size",
                              "alpha": 0.2, "beta": 0.5, "axis": None}
    assert L.deserialize({"module": "builtins", "class_name": "function",
                          "config": "hinge", "registered_name": "function"}) is L.hinge
    with pytest.raises(ValueError, match="unknown loss 'nope'"):
        L.deserialize("nope")
    with pytest.raises(ValueError, match="cannot build 'Nope'"):
        L.deserialize({"class_name": "Nope", "config": {}})


@pytest.mark.parametrize("i", [i for i, c in enumerate(REF["cases"]) if c["weighted"]][::3])
def test_float64_inputs_give_float64_losses_of_the_same_value(i):
    case = REF["cases"][i]
    yt, yp = _inputs(case)
    yp64 = fe.cast(yp, fe.float64)
    out = getattr(L, FUNCS[case["class"]])(yt, yp64, **dict(
        case["kwargs"], **({"q": case["kwargs"].get("q", 0.5)}
                           if case["class"] == "CategoricalGeneralizedCrossEntropy" else {})))
    assert out.dtype == fe.float64
    _close(out.numpy(), case["function"], rtol=1e-4, atol=1e-5)


def test_circle_with_reference_embeddings_and_labels():
    ref = REF["circle_ref"]
    for rd in (True, False):
        got = L.circle(np.array(ref["y_true"]), np.asarray(ref["y_pred"], np.float32),
                       ref_labels=np.array(ref["ref_labels"]),
                       ref_embeddings=np.asarray(ref["ref_embeddings"], np.float32),
                       remove_diagonal=rd, gamma=20.0, margin=0.3)
        _close(got.numpy(), ref["remove_diagonal_%s" % rd])


def test_get_takes_keras3_serialized_dicts():
    assert L.get({"module": "builtins", "class_name": "function", "config": "poisson",
                  "registered_name": "function"}) is L.poisson
    assert isinstance(L.get({"class_name": "Poisson", "config": {"name": "p"}}), L.Poisson)
