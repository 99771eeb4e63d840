"""Converged token-wise fits (Prop. 3.1): exact gradients, the StackedSSM equivalence, accuracy."""

import jax
import numpy as np
import pytest

from lrnn_core.wang_xue.tokenwise import (
    _jacobian,
    _residual,
    fit_tokenwise,
    to_stacked,
    tokenwise_outputs,
)

U = np.linspace(-1, 1, 64)


def test_jacobian_matches_finite_differences():
    theta = np.random.default_rng(0).standard_normal(3 * 3 + 1)
    y = np.sin(np.pi * U)
    J = _jacobian(theta, U, y, "tanh")
    for i in range(theta.size):
        step = np.zeros_like(theta)
        step[i] = 1e-6
        fd = (_residual(theta + step, U, y, "tanh") - _residual(theta - step, U, y, "tanh")) / 2e-6
        np.testing.assert_allclose(J[:, i], fd, atol=1e-8)


def test_fit_is_accurate_and_equals_the_stacked_ssm():
    fit = fit_tokenwise(U, np.sin(np.pi * U), 4, rng=np.random.default_rng(1), restarts=4)
    assert fit.converged and fit.train_mse < 1e-6
    with jax.enable_x64(True):
        stacked = np.asarray(to_stacked(fit)(U[:, None]))[:, 0]
    np.testing.assert_allclose(stacked, tokenwise_outputs(fit, U), atol=1e-12)


def test_identity_activation_gives_the_least_squares_line():
    y = np.sin(np.pi * U)
    fit = fit_tokenwise(U, y, 2, rng=np.random.default_rng(2), activation="identity")
    line = np.polyval(np.polyfit(U, y, 1), U)
    np.testing.assert_allclose(tokenwise_outputs(fit, U), line, atol=1e-8)


def test_bad_input_raises():
    with pytest.raises(ValueError, match="activation"):
        fit_tokenwise(U, U, 2, rng=np.random.default_rng(0), activation="relu6")
    with pytest.raises(TypeError, match="Generator"):
        fit_tokenwise(U, U, 2, rng=0)
    with pytest.raises(ValueError, match="y"):
        fit_tokenwise(U, U[:3], 2, rng=np.random.default_rng(0))
