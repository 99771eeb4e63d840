"""The ODE data sets and baselines of Orvieto et al. (ICML 2024, App. E.3): scaled first
coordinate, the core baselines on the test set, the causal filter's predictions."""

import numpy as np
import pytest

from lrnn_core.orvieto.ode_data import OUTPUT_SCALE, baselines, filter_prediction, make_dataset
from lrnn_core.orvieto.odes import low_frequency_inputs, ode, solve


@pytest.fixture(scope="module")
def lv():
    return make_dataset("LV", 16, 8, seed=0, L=64)


def test_dataset_outputs_are_the_scaled_first_coordinate():
    d = make_dataset("LZ", 3, 2, seed=5, L=64)
    rng = np.random.default_rng(5)
    v = low_frequency_inputs(rng, 8, 64, amplitude=1.0)  # the first draw of make_dataset
    y = OUTPUT_SCALE["LZ"] * solve(ode("LZ")._replace(L=64), v)
    np.testing.assert_allclose(d.v_train, v[:3], rtol=1e-6)
    np.testing.assert_allclose(d.y_test, y[3:5], rtol=1e-5, atol=1e-6)
    assert OUTPUT_SCALE["LZ"] == 0.1 and d.dropped == 0.0


def test_baselines_are_the_core_baselines_on_the_test_set(lv):
    from lrnn_core.core.baselines import causal_filter_mse, ignores_input_mse

    b = baselines(lv)
    assert b["ignores input"] == ignores_input_mse(lv.y_train, lv.y_test)
    assert b["linear"] == causal_filter_mse(lv.v_train, lv.y_train, lv.v_test, lv.y_test)
    # the filter's predictions give the same test error
    pred = filter_prediction(lv.v_train, lv.y_train, lv.v_test)
    assert np.mean((pred - lv.y_test) ** 2) == pytest.approx(b["linear"], rel=1e-9)
    with pytest.raises(TypeError, match="Dataset"):
        baselines({"v": 1})


def test_unknown_system_raises():
    with pytest.raises(ValueError, match="system must be one of"):
        make_dataset("VdP", 2, 2, seed=0)
