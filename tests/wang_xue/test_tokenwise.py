"""Converged token-wise fits (Prop. 3.1): exact gradients, the StackedSSM equivalence, accuracy."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lrnn_core.core.stacked import StackedSSM
from lrnn_core.wang_xue.tokenwise import (
    _jacobian,
    _residual,
    fit_tokenwise,
    tokenwise_experiment,
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
    with jax.enable_x64(True):  # the same map as StackedSSM(depth=1), recurrence and mixing off
        model = StackedSSM(
            1, 4, 1, depth=1, recurrent=False, mixing=False, param_dtype=jnp.float64,
            rngs=nnx.Rngs(0),
        )  # fmt: skip
        model.layers[0].B[...], model.layers[0].b[...] = jnp.asarray(fit.w)[:, None], fit.b
        model.W[...], model.w[...] = jnp.asarray(fit.a)[None, :], jnp.full(1, fit.c)
        stacked = np.asarray(model(U[:, None]))[:, 0]
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


def test_experiment_scores_fits_control_and_baselines_on_the_test_points():
    u_test = np.random.default_rng(3).uniform(-1, 1, 50)
    run = tokenwise_experiment(
        lambda u: 2 * u + 1, U, u_test, (1, 2),
        rngs={1: np.random.default_rng(4), 2: np.random.default_rng(5)},
        restarts=1, control_rng=np.random.default_rng(6),
    )  # fmt: skip
    assert list(run.fits) == list(run.err) == list(run.converged) == [1, 2]
    for w, fit in run.fits.items():
        want = np.mean((tokenwise_outputs(fit, u_test) - (2 * u_test + 1)) ** 2)
        assert run.err[w] == want and run.converged[w] == fit.converged
    assert run.control.activation == "identity" and run.control.w.size == 4
    assert run.control_err < 1e-20 and run.base["linear"] < 1e-20  # an affine f
    assert run.base["ignores input"] == pytest.approx(np.mean((2 * u_test + 1 - 1) ** 2), rel=0.05)
