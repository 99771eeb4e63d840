"""The width illustration of Orvieto et al. (ICML 2024, Thm. 1 / Prop. 2 / Thm. 4): closed-form
``||omega_j||``, the targets, exact token recovery, the per-lag seeds and ``D(eps)``."""

import numpy as np
import pytest

from lrnn_core.orvieto.width import (
    WIDTH_CI,
    readout_row,
    run_widths,
    scaled_roots_of_unity,
    smallest_width,
    width_errors,
    width_task,
)


def test_readout_row_norm_is_closed_form():
    # V_L = F diag(r^m) with F^H F = N I, so row m of V_L^+ has norm r^-m / sqrt(N)
    N, r = 8, 0.7
    lam = scaled_roots_of_unity(N, r)
    for lag in range(N):
        norm = np.linalg.norm(readout_row(lam, N, lag))
        assert norm == pytest.approx(r**-lag / np.sqrt(N), rel=1e-12)


def test_target_is_f_of_recovered_token():
    N, lag = 8, 5
    task = width_task(scaled_roots_of_unity(N, 0.8), N, lag, 64, frequency=3.0, seed=0)
    recovered = task.states @ task.omega
    np.testing.assert_allclose(recovered.imag, 0, atol=1e-12)
    np.testing.assert_allclose(np.sin(3.0 * recovered.real)[:, None], task.targets, atol=1e-12)
    # the states are eq. (3): x_L = sum_m lam^m u_{L-m}
    lam = scaled_roots_of_unity(N, 0.8)
    expected = task.tokens[:, ::-1] @ (lam[None, :] ** np.arange(N)[:, None])
    np.testing.assert_allclose(task.states, expected, atol=1e-12)


def test_smallest_width():
    assert smallest_width([2, 8, 32], np.array([0.3, 0.004, 0.001]), 0.005) == 8
    assert smallest_width([2, 8], np.array([0.3, 0.1]), 0.005) == np.inf
    with pytest.raises(ValueError, match="radius"):
        scaled_roots_of_unity(4, 1.5)
    with pytest.raises(ValueError, match="lag"):
        readout_row(scaled_roots_of_unity(4, 0.5), 4, 4)


def test_run_widths_uses_each_lags_own_data_and_seeds():
    sizes = WIDTH_CI._replace(lags=(0, 2), Ds=(4,), n_seeds=2, n_train=64, n_test=32)
    sizes = sizes._replace(steps=20)
    run = run_widths(sizes, lambda s: 1000 + s)
    for j in (0, 2):
        assert run.omega_norm[j] == pytest.approx(0.7**-j / np.sqrt(8), rel=1e-12)
        assert run.token_err[j] <= 1e-12
    # lag 2 is the second: data seeds 1041, 1051; MLP seeds 1070, 1071
    lam = scaled_roots_of_unity(8, 0.7)
    train = width_task(lam, 8, 2, 64, frequency=3.0, seed=1041)
    test = width_task(lam, 8, 2, 32, frequency=3.0, seed=1051)
    want = width_errors(train, test, [4], [1070, 1071], steps=20, lr=1e-2).min(axis=1)
    np.testing.assert_allclose(run.errors[2], want, rtol=1e-6)
    assert WIDTH_CI.Ds == (2, 8, 32) and WIDTH_CI.eps == 5e-3


def test_prop2_width_is_the_bound_in_closed_form():
    from lrnn_core.orvieto.width import prop2_width

    # 4 r^2 a^2 ||omega||^2 / (eps Var(sin(a u))), r = N = 8, a = 3, Var = 1/2 - sin 6 / 12
    sizes = WIDTH_CI._replace(eps=1e-2)
    var = 0.5 - np.sin(6.0) / 12
    assert var == pytest.approx(np.var(np.sin(3 * np.linspace(-1, 1, 2_000_001))), rel=1e-5)
    assert prop2_width(sizes, 0.5) == pytest.approx(4 * 64 * 9 * 0.25 / (1e-2 * var))
    # older tokens: ||omega_j||^2 = rho^(-2j) / N, the bound grows by rho^-2 per step back
    ratio = prop2_width(sizes, 0.7**-3 / np.sqrt(8)) / prop2_width(sizes, 1 / np.sqrt(8))
    assert ratio == pytest.approx(0.7**-6)
