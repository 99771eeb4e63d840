"""fitting: exact least-squares fits, kernel against the Euler CTRNN, training reduces the loss."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.wang_li_li.ctrnn import (
    PARAMETERISATIONS,
    ctrnn_outputs,
    init_ctrnn,
    recurrent_weight,
)
from lrnn_core.wang_li_li.fitting import (
    epochs_to_threshold,
    fit_linear_rnn,
    kernel_loss,
    linear_rnn_kernel,
    train_ctrnn,
    uniform_rates,
)


@pytest.mark.parametrize("parameterisation", PARAMETERISATIONS)
def test_exponential_kernel_with_its_eigenvalue_is_fitted_exactly(parameterisation):
    t = np.linspace(0, 50, 501)
    rho = 2.0 * np.exp(-0.3 * t)
    params = fit_linear_rnn(
        rho, t, 5, rate=0.1, parameterisation=parameterisation
    )  # rates .1 .. .5
    with jax.enable_x64(True):
        lam = np.asarray(recurrent_weight(params.raw, parameterisation))
        loss = float(kernel_loss(params, rho, t, parameterisation=parameterisation))
    np.testing.assert_allclose(lam, -uniform_rates(5, 0.1), rtol=1e-12)
    np.testing.assert_allclose(
        params.C[0, :], [0, 0, 2.0, 0, 0], atol=1e-4
    )  # Vandermonde-like conditioning
    assert loss < 1e-14 * np.mean(rho**2)  # exact up to rounding


def test_least_squares_matches_the_normal_equations():
    """A kernel outside the span: the fit equals the normal-equation solution and beats perturbed
    c."""
    t = np.linspace(0, 20, 201)
    rho = 1 / (1 + t)
    rates = np.array([0.2, 0.7, 1.5])
    params = fit_linear_rnn(rho, t, rates=rates)
    basis = np.exp(-np.outer(t, rates))
    normal = np.linalg.solve(basis.T @ basis, basis.T @ rho)
    np.testing.assert_allclose(params.C[0, :], normal, rtol=1e-6)
    with jax.enable_x64(True):
        best = float(kernel_loss(params, rho, t))
        worse = float(kernel_loss(params._replace(C=params.C + 1e-3), rho, t))
    assert best < worse


def test_kernel_is_the_limit_of_the_euler_impulse_response():
    """The linear CTRNN's output to an impulse of area 1 tends to the kernel as dt -> 0 (Euler,
    O(dt))."""
    t_end = 5.0
    params = fit_linear_rnn(np.exp(-np.linspace(0, 5, 51)), np.linspace(0, 5, 51), 3, rate=0.5)
    errors = []
    with jax.enable_x64(True):
        for dt in (0.05, 0.025, 0.0125):
            steps = int(round(t_end / dt))
            x = np.zeros((steps, 1))
            x[0] = 1 / dt
            y = np.asarray(ctrnn_outputs(params, x, activation="linear", dt=dt))[:, 0]
            t = dt * np.arange(1, steps + 1)
            errors.append(np.max(np.abs(y - np.asarray(linear_rnn_kernel(params, t - dt)))))
    assert errors[0] > 1.8 * errors[1] > 3.4 * errors[2]  # first order in dt
    assert errors[-1] < 0.02


def test_bad_arguments():
    t = np.linspace(0, 1, 11)
    with pytest.raises(ValueError, match="rates must be positive"):
        fit_linear_rnn(np.ones(11), t, rates=[0.5, -0.1])
    with pytest.raises(ValueError, match="same length"):
        fit_linear_rnn(np.ones(10), t, 2)
    with pytest.raises(ValueError, match="rho contains non-finite"):
        fit_linear_rnn(np.full(11, np.nan), t, 2)
    with pytest.raises(ValueError, match="N must be"):
        uniform_rates(0)


def test_training_reduces_the_loss_on_a_toy_target_for_every_run():
    """Two runs (two seeds) on a short linear-functional target: the test loss falls by 10x."""
    T, n = 20, 256
    x = jax.random.normal(jax.random.key(0), (n, T, 1))
    kernel = jnp.exp(-0.5 * jnp.arange(T))
    y = jax.vmap(lambda s: jnp.convolve(s, kernel)[:T])(x[..., 0])[..., None]
    params = jax.vmap(lambda k: init_ctrnn(k, 4))(jax.random.split(jax.random.key(1), 2))
    result = train_ctrnn(
        params,
        x,
        y,
        key=jax.random.key(2),
        epochs=30,
        batch_size=32,
        activation="tanh",
        u_test=x[:64],
        y_test=y[:64],
        progress=False,
    )
    assert result.round_losses.shape == (2, 30) and result.eval_losses.shape == (2, 30)
    initial = np.mean(
        (np.asarray(jax.vmap(lambda p: ctrnn_outputs(p, x[:64]))(params)) - np.asarray(y[:64]))
        ** 2,
        axis=(1, 2, 3),
    )
    assert np.all(result.eval_losses[:, -1] < initial / 10)


def test_per_run_targets_and_epochs_to_threshold():
    T, n = 10, 64
    x = jax.random.normal(jax.random.key(3), (n, T, 1))
    y = jnp.stack([0.5 * x, 0.0 * x])  # one target per run
    params = jax.vmap(lambda k: init_ctrnn(k, 3))(jax.random.split(jax.random.key(4), 2))
    result = train_ctrnn(
        params, x, y, key=jax.random.key(5), epochs=3, batch_size=16, progress=False
    )
    assert result.round_losses.shape == (2, 3) and result.eval_losses is None
    np.testing.assert_array_equal(epochs_to_threshold([[3, 2, 1], [3, 3, 3]], 2.0), [2, np.inf])
    with pytest.raises(ValueError, match=r"y must have shape \(2, any"):
        train_ctrnn(
            params, x, jnp.stack([y[0]] * 3), key=jax.random.key(5), epochs=1, progress=False
        )
