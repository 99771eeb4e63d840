"""Sums of exponentials: the least-squares fit recovers a sum it can represent, to rounding, and
not one it cannot; bad input names itself."""

import numpy as np
import pytest

from lrnn_core.core.exp_sums import exp_sum, fit_exp_sum, uniform_rates


def test_uniform_rates_are_rate_times_one_to_n():
    np.testing.assert_array_equal(uniform_rates(4, 0.5), [0.5, 1.0, 1.5, 2.0])


def test_fit_recovers_the_coefficients_of_a_sum_with_the_same_rates():
    t = np.linspace(0.0, 20.0, 201)
    rates, coef = uniform_rates(3, 0.5), np.array([2.0, -1.0, 0.25])
    rho = sum(c * np.exp(-r * t) for c, r in zip(coef, rates, strict=True))
    fit = fit_exp_sum(rho, t, rates)
    np.testing.assert_allclose(fit, coef, rtol=1e-9)
    np.testing.assert_allclose(exp_sum(fit, rates, t), rho, atol=1e-12)


def test_one_exponential_cannot_fit_a_power_law():
    t = np.linspace(0.0, 100.0, 1001)
    rho = (1 + 0.1 * t) ** -1.1
    rates = uniform_rates(1, 0.1)
    err = np.abs(exp_sum(fit_exp_sum(rho, t, rates), rates, t) - rho).max()
    assert err > 0.05


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: fit_exp_sum([1.0, 2.0], [0.0], [1.0]), ValueError, "same length"),
        (lambda: fit_exp_sum([1.0, np.nan], [0.0, 1.0], [1.0]), ValueError, "rho"),
        (lambda: fit_exp_sum([1.0, 2.0], [0.0, 1.0], [0.0]), ValueError, "rates must be positive"),
        (lambda: exp_sum([1.0, 2.0], [1.0], [0.0]), ValueError, "coef"),
        (lambda: uniform_rates(0), ValueError, "N must be >= 1"),
    ],
)
def test_bad_input_raises_and_names_it(call, error, match):
    with pytest.raises(error, match=match):
        call()
