"""fitting: exact least-squares fits, kernel against the Euler CTRNN, training reduces the loss,
the authors' time-weighted MSE, plateau schedule and sequential-width protocol."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.core.exp_sums import uniform_rates
from lrnn_core.wang_li_li.ctrnn import (
    PARAMETERISATIONS,
    ctrnn_outputs,
    init_ctrnn,
    recurrent_weight,
)
from lrnn_core.wang_li_li.fitting import (
    _plateau_adam,
    _Probed,
    fit_linear_rnn,
    kernel_loss,
    linear_rnn_kernel,
    time_weighted_mse,
    train_ctrnn,
    train_sequential_widths,
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
        progress=False,
    )
    assert result.round_losses.shape == (2, 30)

    def mse(p):
        out = jax.vmap(lambda q: ctrnn_outputs(q, x[:64], activation="tanh"))(p)
        return np.mean((np.asarray(out) - np.asarray(y[:64])) ** 2, axis=(1, 2, 3))

    assert np.all(mse(result.params) < mse(params) / 10)


def test_data_must_be_shared_by_the_runs():
    x = jax.random.normal(jax.random.key(3), (64, 10, 1))
    params = jax.vmap(lambda k: init_ctrnn(k, 3))(jax.random.split(jax.random.key(4), 2))
    result = train_ctrnn(
        params, x, 0.5 * x, key=jax.random.key(5), epochs=3, batch_size=16, progress=False
    )
    assert result.round_losses.shape == (2, 3) and result.eval_losses is None
    with pytest.raises(ValueError, match="y must have shape"):
        train_ctrnn(params, x, jnp.stack([x] * 2), key=jax.random.key(5), epochs=1, progress=False)


def test_time_weighted_mse_is_the_authors_formula():
    """Against a loop transcribing the authors' ``twe_MSE`` (weights ((i+1)/(L+1))^p summing to L,
    then the MSE of weighted outputs against weighted targets); p = 0 is the plain MSE."""
    rng = np.random.default_rng(0)
    out, y = rng.normal(size=(3, 7, 2)), rng.normal(size=(3, 7, 2))
    L = 7
    w = np.array([((i + 1) / (L + 1)) ** 2 for i in range(L)])
    w = w / w.sum() * L
    reference = np.mean((out * w[:, None] - y * w[:, None]) ** 2)
    with jax.enable_x64(True):
        np.testing.assert_allclose(float(time_weighted_mse(out, y)), reference, rtol=1e-13)
        plain = float(time_weighted_mse(out, y, power=0.0))
    np.testing.assert_allclose(plain, np.mean((out - y) ** 2), rtol=1e-13)
    with pytest.raises(ValueError, match="same shape"):
        time_weighted_mse(out, y[:, :3])


def test_plateau_schedule_lowers_the_step_like_pytorch():
    """Constant loss 1, patience 1, factor 0.1, 2 steps per epoch: PyTorch's ReduceLROnPlateau
    counts epoch 1 as an improvement (from inf) and lowers the rate when more than 1 epoch in a row
    has not improved, i.e. after epoch 3; the step is Adam's (lr for a constant gradient, up to its
    eps) times the scale. optax applies the new scale from the step that closes epoch 3 (step 6),
    one step before PyTorch would."""
    tx = _plateau_adam(0.1, 10.0, 1, 0.1, 2)
    params = _Probed(jnp.zeros(2), jnp.zeros(()))
    grads = _Probed(jnp.ones(2), jnp.ones(()))  # loss value 1 every step
    state = tx.init(params)
    steps = []
    for _ in range(8):
        updates, state = tx.update(grads, state, params)
        steps.append(float(updates.params[0]))
        assert float(updates.probe) == 0.0
    np.testing.assert_allclose(steps, [-0.1] * 5 + [-0.01] * 3, rtol=1e-4)


def test_sequential_widths_applies_the_stop_rule_and_halves_the_threshold():
    """Two targets, widths 2 and 3: each width's stop epoch, checkpoint and next threshold are
    recomputed here from the recorded validation losses; the first, loose threshold (100) stops at
    min_epochs; the checkpoint reproduces its validation loss."""
    T, n = 12, 64
    with jax.enable_x64(True):
        x = jax.random.normal(jax.random.key(0), (n, T, 1))
        kernels = jnp.stack([jnp.exp(-0.5 * jnp.arange(T)), 1.0 / (1.0 + jnp.arange(T))])
        y = jax.vmap(lambda k: jax.vmap(lambda s: jnp.convolve(s, k)[:T])(x[..., 0]))(kernels)
        y = y[..., None]
        results = train_sequential_widths(
            x[:48],
            y[:, :48],
            x[48:],
            y[:, 48:],
            key=jax.random.key(1),
            Ns=(2, 3),
            max_epochs=6,
            batch_size=16,
            learning_rate=0.01,
            progress=False,
        )
        threshold = np.full(2, 100.0)
        for res in results:
            np.testing.assert_array_equal(res.threshold, threshold)
            val = res.val_losses  # the runs train until both have met their stop
            assert val.shape == (2, res.epochs.max() if np.isfinite(res.epochs).all() else 6)
            for r in range(2):
                below = np.flatnonzero(
                    (val[r] < threshold[r]) & (np.arange(1, val.shape[1] + 1) >= 2)
                )
                stop = below[0] + 1 if below.size else 6
                assert res.epochs[r] == (stop if below.size else np.inf)
                assert res.best[r] == val[r, :stop].min()
                ckpt = jax.tree.map(lambda a, r=r: a[r], res.params)
                again = time_weighted_mse(
                    ctrnn_outputs(ckpt, x[48:], activation="hardtanh"), y[r, 48:]
                )
                np.testing.assert_allclose(float(again), res.best[r], rtol=1e-10)
            threshold = 0.5 * res.best
        np.testing.assert_array_equal(results[0].epochs, [2, 2])
    with pytest.raises(ValueError, match="Ns must hold"):
        train_sequential_widths(x, y, x, y, key=jax.random.key(1), Ns=())
