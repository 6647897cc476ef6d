"""Classes that moved into fasteager._src keep the module name they had (printed types,
pickles), and pickles that name it still load."""
import pickle

import fasteager as fe


def test_moved_classes_print_their_old_module():
    assert repr(type(fe.Module())) == "<class 'fasteager.module.Module'>"
    assert repr(fe.Variable) == "<class 'fasteager.variables.Variable'>"
    assert repr(fe.GradientTape) == "<class 'fasteager.autodiff.GradientTape'>"
    assert repr(fe.autodiff.ForwardAccumulator) == "<class 'fasteager.forward.ForwardAccumulator'>"
    assert repr(fe.device) == "<class 'fasteager.placement.device'>"
    assert repr(fe.config.LogicalDeviceConfiguration) == \
        "<class 'fasteager.config.LogicalDeviceConfiguration'>"


def test_pickles_naming_the_old_modules_load():
    m = pickle.loads(pickle.dumps(fe.Module(name="m")))
    assert type(m) is fe.Module and m.name == "m"
    d = pickle.loads(pickle.dumps(fe.device("/cpu:0")))
    assert type(d) is fe.device and d._device_name == "/cpu:0"
    s = pickle.loads(pickle.dumps(fe.name_scope("outer")))
    assert type(s) is fe.name_scope
    acc = fe.autodiff.ForwardAccumulator(fe.constant(1.0), fe.constant(2.0))
    assert type(pickle.loads(pickle.dumps(acc))) is fe.autodiff.ForwardAccumulator
    assert pickle.loads(pickle.dumps(fe.UnconnectedGradients.ZERO)) is \
        fe.UnconnectedGradients.ZERO
    cfg = fe.config.LogicalDeviceConfiguration(memory_limit=10)
    assert pickle.loads(pickle.dumps(cfg)) == cfg


def test_composite_classes_that_moved_still_pickle():
    # TensorArray and the ExtensionType bases print as fasteager.tensor_array /
    # fasteager.extension_type; pickle must be able to import those names
    for cls in (fe.TensorArray, fe.experimental.ExtensionType,
                fe.experimental.BatchableExtensionType):
        assert pickle.loads(pickle.dumps(cls)) is cls
