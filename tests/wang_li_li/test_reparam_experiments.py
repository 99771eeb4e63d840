"""Tests of lrnn_core.wang_li_li.reparam_experiments on numbers: the maps' eigenvalues and their
perturbations by hand, the "inverse" sensitivity against a finite difference, the experiment
drivers against the library functions they chain (smallest sizes)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.wang_li_li import reparam_experiments as ex
from lrnn_core.wang_li_li.fitting import fitted_rnn, geometric_rates
from lrnn_core.wang_li_li.reparam_experiments import (
    eigenvalues_by_map,
    inverse_sensitivity,
    nl_model,
    nl_models,
    nl_test_data,
    polynomial_grid,
    raw_moved_eigenvalues,
)


def test_eigenvalues_by_map_by_hand():
    eig = eigenvalues_by_map(np.array([-1.0, 0.0, 2.0]))
    np.testing.assert_allclose(eig["direct"], [-1.0, 0.0, 2.0])
    np.testing.assert_allclose(eig["exp"], -np.exp([-1.0, 0.0, 2.0]), rtol=1e-6)
    np.testing.assert_allclose(eig["softplus"], -np.log1p(np.exp([-1.0, 0.0, 2.0])), rtol=1e-6)
    np.testing.assert_allclose(eig["inverse"], -1 / (np.array([1.0, 0.0, 4.0]) + 1e-2), rtol=1e-6)


def test_raw_moved_eigenvalues_by_hand():
    moved = raw_moved_eigenvalues(-1e-3, 1e-2)
    np.testing.assert_allclose(moved["direct"], [-1.1e-2, 9e-3], rtol=1e-5)
    np.testing.assert_allclose(moved["exp"], -1e-3 * np.exp([-1e-2, 1e-2]), rtol=1e-5)


@pytest.mark.parametrize("eps", [0.01, 0.1])
def test_inverse_sensitivity_is_the_derivative_of_the_map(eps):
    rates = np.array([0.001, 0.1, 2.0])
    raw = np.sqrt(1 / rates - eps)
    h = 1e-6
    fd = (-1 / ((raw + h) ** 2 + eps) + 1 / ((raw - h) ** 2 + eps)) / (2 * h)
    np.testing.assert_allclose(inverse_sensitivity(rates, eps), fd, rtol=1e-5)


def test_polynomial_grid_is_float64_and_the_poly_memory():
    t, rho = polynomial_grid(T=100.0, points=5)
    assert rho.dtype == np.float64
    np.testing.assert_allclose(t, [0, 25, 50, 75, 100])
    np.testing.assert_allclose(rho, (1 + 0.1 * t) ** -1.1, rtol=1e-14)


def _fake_draws(shape):
    """Per-draw losses 0, 1, 2, ... in draw order, (Ns, betas, draws)."""
    return np.arange(np.prod(shape), dtype=float).reshape(shape)


def test_fig4_error_sets_group_the_per_draw_errors(monkeypatch):
    seen = {}

    def fake(rho, t, Ns, betas, **kw):
        seen.update(kw, x64=jax.config.jax_enable_x64)
        return _fake_draws((len(Ns), len(betas), kw["draws"]))

    monkeypatch.setattr(ex, "linear_perturbation_errors", fake)
    E = ex.fig4_error_sets(
        np.ones(3), np.arange(3.0), [2, 3], [0.0, 0.1], key=jax.random.key(0), sets=2,
        parameterisation="exp", perturbed="all", draws_per_set=2,
    )  # fmt: skip
    assert seen["draws"] == 4 and seen["per_draw"] and seen["x64"]
    assert seen["rates"] is geometric_rates and seen["parameterisation"] == "exp"
    raw = _fake_draws((2, 2, 4))
    assert E.shape == (2, 2, 2)  # (sets, Ns, betas), no running max
    np.testing.assert_array_equal(E[0], raw[..., 1])  # max of draws 0, 1
    np.testing.assert_array_equal(E[1], raw[..., 3])  # max of draws 2, 3


def test_nl_test_data_is_the_linear_functional_of_its_inputs(monkeypatch):
    # made-up standard normal draws (Gaussian sampling compiles for a second on CPU)
    draws = np.linspace(-1.0, 1.0, 24, dtype=np.float32).reshape(4, 6)
    monkeypatch.setattr(jax.random, "normal", lambda key, shape: jnp.asarray(draws))
    data = nl_test_data(jax.random.key(1), 4, 6, dt=1.0, amplitude=0.1)
    assert data.u.shape == (4, 6, 1) and data.y.shape == (4, 6, 1)
    np.testing.assert_allclose(data.u[..., 0], 0.1 * draws)
    np.testing.assert_allclose(data.rho, (1 + 0.1 * np.arange(6)) ** -1.1, rtol=1e-6)
    # y_k = sum_j rho_j u_{k-j} dt, by hand
    want = np.array([[np.sum(data.rho[: k + 1] * 0.1 * d[k::-1]) for k in range(6)] for d in draws])
    np.testing.assert_allclose(data.y[..., 0], want, rtol=1e-5, atol=1e-7)
    assert data.target_var == pytest.approx(float(np.mean(want**2)), rel=1e-5)


def test_nl_model_is_the_fit_with_unit_fastest_rate():
    t, rho = polynomial_grid(T=20.0, points=41)
    got = nl_model(rho, t, 3, activation="tanh", parameterisation="exp", dt=1.0)
    want = fitted_rnn(
        rho, t, geometric_rates(3, fastest=1.0), activation="tanh", parameterisation="exp"
    )
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="key"):
        nl_model(rho, t, 3, activation="tanh", parameterisation="exp", dt=1.0, finetune_epochs=1)
    models = nl_models(rho, t, {"relu": ("direct",), "tanh": ("exp",)}, [2, 3], dt=1.0)
    assert list(models) == [("relu", "direct"), ("tanh", "exp")]
    assert [q.raw.shape[0] for q in models["relu", "direct"]] == [4, 6]  # ReLU: pairs
    np.testing.assert_array_equal(models["tanh", "exp"][1].C, want.C)


def test_nl_error_sets_take_set_maxima_and_the_running_max(monkeypatch):
    calls = []

    def fake(models, u, y, betas, **kw):
        calls.append((len(models), kw["activation"], kw["parameterisation"], kw["perturbed"]))
        out = _fake_draws((len(models), len(betas), kw["draws"]))
        return out[:, ::-1]  # decreasing in beta: the running max must undo it

    monkeypatch.setattr(ex, "model_draw_losses", fake)
    data = ex.NLData(np.zeros(2), np.zeros(2), jnp.zeros((1, 2, 1)), jnp.zeros((1, 2, 1)), 1.0)
    models = {("tanh", "exp"): ["m1", "m2"], ("relu", "direct"): ["m1", "m2"]}
    E = ex.nl_error_sets(
        models, data, [0.0, 0.1, 0.2], key=jax.random.key(0), repeats=3, sets=2, dt=1.0,
        perturbed="all_but_bias",
    )  # fmt: skip
    assert calls == [(2, "tanh", "exp", "all_but_bias"), (2, "relu", "direct", "all_but_bias")]
    raw = _fake_draws((2, 3, 6))[:, ::-1]
    assert E["tanh", "exp"].shape == (2, 2, 3)
    # set 1 = draws 3..5: its maximum is draw 5; running max over the betas
    want = np.maximum.accumulate(raw[..., 5], axis=-1)
    np.testing.assert_array_equal(E["tanh", "exp"][1], want)
    assert np.all(E["tanh", "exp"][1] == E["tanh", "exp"][1][:, :1])  # the first beta's max


def test_widget_memories_call_perturbed_memories_per_run(monkeypatch):
    def fake(params, beta, keys, **kw):
        return np.full((1 + len(keys), kw["L"]), beta), np.array(
            [kw["parameterisation"] == "direct"] * len(keys)
        )

    monkeypatch.setattr(ex, "perturbed_memories", fake)
    memory, crossed = ex.widget_memories(
        {("tanh", "direct"): ["m"], ("tanh", "exp"): ["m"]}, 0.5, [1, 2], L=4, amplitude=0.1,
        dt=1.0, perturbed="all",
    )  # fmt: skip
    np.testing.assert_array_equal(memory["tanh", "exp"], np.full((3, 4), 0.5))
    assert crossed["tanh", "direct"].all() and not crossed["tanh", "exp"].any()


def test_lru_worst_moduli_per_beta(monkeypatch):
    def fake(nu, theta, beta, *, coords, draws, first_seed):
        return beta + draws + first_seed + (coords == "lru")

    monkeypatch.setattr(ex, "lru_perturbed_modulus", fake)
    got = ex.lru_worst_moduli([0.0], [0.0], [0.25, 0.5], coords="lru", draws=3, first_seed=7)
    np.testing.assert_array_equal(got, [11.25, 11.5])
