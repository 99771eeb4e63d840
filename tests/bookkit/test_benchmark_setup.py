"""The benchmarks' shared setup: defaults per scale, inputs, the NumPy loop, the checks."""

from __future__ import annotations

import numpy as np
import pytest

from lrnn_core.bookkit import benchmark_setup as setup


def test_peak_bandwidth_from_the_data_sheets():
    assert setup.peak_bandwidth_gbs("NVIDIA H100 80GB HBM3") == 3350.0
    assert setup.peak_bandwidth_gbs("NVIDIA H100 PCIe") == 2000.0
    assert setup.peak_bandwidth_gbs("NVIDIA H200") == 4800.0
    assert setup.peak_bandwidth_gbs("NVIDIA A100-SXM4-40GB") == 1555.0
    assert setup.peak_bandwidth_gbs("Some Future GPU") is None


def test_default_shapes_follow_scale(monkeypatch):
    monkeypatch.setenv("LRNN_SCALE", "book")
    book = setup.default_shapes()
    assert (8, 4096, 256) in book and (64, 784, 512) in book
    assert setup.default_repeats() == 7
    monkeypatch.setenv("LRNN_SCALE", "ci")
    assert max(np.prod(s) for s in setup.default_shapes()) <= np.prod((8, 4096, 256))
    assert setup.default_repeats() == 3


def test_resolve_fills_in_and_checks(monkeypatch):
    monkeypatch.setenv("LRNN_SCALE", "ci")
    assert setup.resolve(None, None, "float32") == (setup.default_shapes(), 3, "float32")
    assert setup.resolve([[2, 3, 4]], 5, "complex64") == ([(2, 3, 4)], 5, "complex64")
    with pytest.raises(ValueError, match="shapes L"):
        setup.resolve([(2, 0, 4)], 1, "complex64")
    with pytest.raises(ValueError, match="repeats"):
        setup.resolve([(2, 3, 4)], 0, "complex64")
    with pytest.raises(ValueError, match="dtype"):
        setup.resolve([(2, 3, 4)], 1, "int8")


def test_inputs_are_stable_and_seeded():
    lam, u = setup.make_inputs((2, 5, 3), "complex64", seed=4)
    assert lam.dtype == u.dtype == np.complex64 and u.shape == (2, 5, 3)
    assert np.all((np.abs(lam) >= 0.5 - 1e-6) & (np.abs(lam) <= 0.99 + 1e-6))
    again, _ = setup.make_inputs((2, 5, 3), "complex64", seed=4)
    np.testing.assert_array_equal(lam, again)
    lam_r, u_r = setup.make_inputs((1, 4, 2), "float64", seed=0)
    assert lam_r.dtype == u_r.dtype == np.float64


def test_numpy_loop_is_the_recurrence():
    """h_1 = u_1, h_2 = lam h_1 + u_2, h_3 = lam h_2 + u_3 by hand."""
    lam = np.array([0.5, -1.0])
    u = np.array([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]])
    expected = np.array([[[1.0, 2.0], [3.5, 2.0], [6.75, 4.0]]])
    np.testing.assert_allclose(setup.numpy_loop(lam, u), expected)


def test_stream_and_relative_error():
    np.testing.assert_allclose(setup.stream(np.array([1.0, -2.0]), 3.0), [3.0, -6.0])
    assert setup.relative_error(np.array([1.0, 2.1]), np.array([1.0, 2.0])) == pytest.approx(0.05)
    assert setup.relative_error(np.zeros(2), np.zeros(2)) == 0.0


def test_labels_and_spread():
    assert setup.method_label("sequential") == "linear_scan(sequential)"
    assert setup.method_label("auto").startswith("linear_scan(auto -> ")
    assert setup.spread([0.5, 2.0, 1.234]) == "0.50 to 2.00"


def test_device_description_names_jax():
    assert "jax " in setup.device_description()


def test_numpy_loop_takes_a_lambda_per_step():
    lam = np.array([[0.5], [2.0], [0.0]])
    u = np.array([[1.0], [1.0], [3.0]])
    # h_1 = 1, h_2 = 2 * 1 + 1 = 3, h_3 = 0 * 3 + 3 = 3
    np.testing.assert_allclose(setup.numpy_loop(lam, u), [[1.0], [3.0], [3.0]])
    np.testing.assert_allclose(setup.numpy_loop(np.array([0.5]), u), [[1.0], [1.5], [3.75]])
