"""The ODE sensitivity measures of Orvieto et al. (ICML 2024, App. E.3, Fig. 13): relative
change, lobe share, distance from an affine map, perturbed outputs."""

import numpy as np
import pytest

from lrnn_core.orvieto import ode_sensitivity as sens_module
from lrnn_core.orvieto.ode_sensitivity import (
    lobe_change_share,
    nonlinearity,
    perturbed_outputs,
    relative_change,
    sensitivity_run,
)
from lrnn_core.orvieto.odes import low_frequency_inputs, ode, solve


def test_relative_change_matches_its_definition():
    y = np.array([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]])
    y2 = y + np.array([[0.0, 0.5, 0.0], [0.1, -0.2, 0.0]])
    np.testing.assert_allclose(relative_change(y, y2), np.array([0.5, 0.2]) / np.std(y))


def test_lobe_change_share_is_the_share_of_steps_on_the_other_lobe():
    ref = np.array([1.0, 2.0, 3.0, -1.0])
    y = np.array([[1.0, 2.0, 3.0, -2.0], [1.0, -2.0, 3.0, -1.0], [-1.0, -2.0, 3.0, 1.0]])
    assert lobe_change_share(y, ref) == pytest.approx(4 / 12)
    assert lobe_change_share(ref[None], ref) == 0.0
    # one reference per row
    assert lobe_change_share(y, y[[0, 0, 0]]) == pytest.approx(4 / 12)
    with pytest.raises(ValueError, match="y_ref must have shape"):
        lobe_change_share(y, ref[:3])


def test_nonlinearity_is_the_second_over_the_first_difference():
    second, share = nonlinearity("PT", 0.5, 4, seed=2, L=64)
    spec = ode("PT")._replace(L=64)
    v = low_frequency_inputs(np.random.default_rng(2), 4, 64, amplitude=0.5)
    y = solve(spec, np.concatenate([0 * v[:1], v, 2 * v]))
    y0, y1, y2 = y[:1], y[1:5], y[5:]
    want = np.linalg.norm(y2 - 2 * y1 + y0) / np.linalg.norm(2 * (y1 - y0))
    assert second == pytest.approx(want, rel=1e-6)
    assert share == pytest.approx(np.var(y1 - y1.mean(0)) / np.var(y1), rel=1e-6)
    # a smaller amplitude is closer to linear (the PT map is smooth)
    assert nonlinearity("PT", 0.05, 4, seed=2, L=64)[0] < second / 3


def test_perturbed_outputs_solve_v_and_v_plus_relative_w():
    y, y2 = perturbed_outputs("LV", 2, 1e-3, seed=4, amplitude=0.05)
    draws = low_frequency_inputs(np.random.default_rng(4), 4, ode("LV").L, amplitude=0.05)
    np.testing.assert_allclose(y, solve(ode("LV"), draws[:2]), rtol=1e-12)
    np.testing.assert_allclose(y2, solve(ode("LV"), draws[:2] + 1e-3 * draws[2:]), rtol=1e-12)
    with pytest.raises(ValueError, match="relative"):
        perturbed_outputs("LV", 2, 0.0, seed=4)


def test_sensitivity_run_is_the_pairs_of_both_systems_and_their_changes(monkeypatch):
    calls = []

    def fake_pairs(system, n, relative, *, seed, amplitude=None):
        calls.append((system, n, relative, seed, amplitude))
        y = np.arange(1.0, 1.0 + 2 * n * 4).reshape(2 * n, 4)[:n] * (1 if system == "LZ" else 2)
        return y, y + relative * np.arange(4.0)

    monkeypatch.setattr(sens_module, "perturbed_outputs", fake_pairs)
    monkeypatch.setattr(sens_module, "solve", lambda spec, v: np.full(v.shape, 3.0))
    sens = sensitivity_run(1e-3, 2, 1, seed=5, control_seed=6, control_amplitude=0.05)
    assert calls == [("LZ", 2, 1e-3, 5, None), ("LV", 1, 1e-3, 6, 0.05)]
    y = np.arange(1.0, 9.0).reshape(2, 4)
    np.testing.assert_array_equal(sens.y, y)
    np.testing.assert_array_equal(sens.y2, y + 1e-3 * np.arange(4.0))
    np.testing.assert_array_equal(sens.y_free, [3.0] * 4)  # v = 0, one trajectory
    np.testing.assert_allclose(sens.change, 3e-3 / np.std(y))
    np.testing.assert_allclose(sens.lv_change, 3e-3 / np.std(2 * np.arange(1.0, 5.0)))
