"""Tests of lrnn_core.wang_li_li.reparameterisation on numbers: the maps' eigenvalues and their
perturbations by hand, the "inverse" sensitivity against a finite difference, the authors' beta
grid, the sets-of-draws maxima and running max by hand, the separation test and its
exchangeability p-value, the chunked draws against perturbation.perturbed_losses, the crossing
threshold, and the experiment drivers against the library functions they chain (smallest
sizes)."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.core.targets import linear_functional, poly_memory
from lrnn_core.wang_li_li import reparameterisation as rep
from lrnn_core.wang_li_li.ctrnn import CTRNN, ctrnn_outputs, output_mse, raw_from_weight
from lrnn_core.wang_li_li.fitting import fitted_rnn, geometric_rates
from lrnn_core.wang_li_li.perturbation import perturb, perturbed_losses
from lrnn_core.wang_li_li.reparameterisation import (
    authors_betas,
    crossed_zero,
    crossing_beta,
    direct_above,
    eigenvalues_by_map,
    fits_alike,
    inverse_sensitivity,
    nl_error_sets,
    nl_models,
    nl_test_data,
    polynomial_grid,
    raw_moved_eigenvalues,
    separated,
    separation_p_value,
    sets_of_draws,
    unstable,
)


def _model(N=3, seed=0, parameterisation="direct"):
    k = jax.random.split(jax.random.key(seed), 4)
    lam = -jnp.linspace(0.05, 0.5, N)
    return CTRNN(
        raw=raw_from_weight(lam, parameterisation),
        B=jax.random.normal(k[1], (N, 1)),
        b=0.1 * jax.random.normal(k[2], (N,)),
        C=jax.random.normal(k[3], (1, N)),
    )


def test_authors_betas_grid():
    b = authors_betas()
    assert b.shape == (22,)
    assert b[0] == 0.0 and b[1] == pytest.approx(1e-3) and b[-1] == pytest.approx(1.024)
    np.testing.assert_allclose(b[2:] / b[1:-1], np.sqrt(2.0))


def test_sets_of_draws_by_hand():
    # 3 betas, 6 draws -> 2 sets of 3
    losses = np.array(
        [
            [1.0, 2.0, 0.5, 4.0, 0.0, 0.0],
            [0.5, 0.1, 0.2, 1.0, 3.0, 0.0],
            [9.0, 0.0, 0.0, 0.0, 0.0, 2.0],
        ]
    )
    raw = sets_of_draws(losses, repeats=3, running_max=False)
    np.testing.assert_array_equal(raw, [[2.0, 0.5, 9.0], [4.0, 3.0, 2.0]])
    run = sets_of_draws(losses, repeats=3)
    np.testing.assert_array_equal(run, [[2.0, 2.0, 9.0], [4.0, 4.0, 4.0]])
    # leading axes are kept; leftover draws dropped
    assert sets_of_draws(np.zeros((5, 3, 7)), repeats=3).shape == (5, 2, 3)
    with pytest.raises(ValueError, match="NaN"):
        sets_of_draws(np.full((2, 3), np.nan))


def test_separated_and_its_p_value():
    assert separated([2.5, np.inf], [1.0, 2.0])  # above, below: inf allowed
    assert not separated([2.5, 4.0], [1.0, 3.0])
    assert not separated([1.0], [1.0])
    assert separation_p_value(10, 10) == pytest.approx(1 / 184756)
    assert separation_p_value(1, 1) == 0.5
    # the p-value is the frequency of separation for exchangeable draws
    rng = np.random.default_rng(0)
    hits = np.mean([separated(*rng.normal(size=(2, 3))) for _ in range(20000)])
    assert hits == pytest.approx(1 / math.comb(6, 3), abs=0.01)


def test_perturbed_losses_equal_a_loop_over_perturb_in_any_chunks():
    params = _model()
    u = jax.random.normal(jax.random.key(5), (4, 20, 1))
    y = jax.random.normal(jax.random.key(6), (4, 20, 1))

    def loss(q):
        return output_mse(q, u, y, activation="tanh", parameterisation="direct")

    betas = np.array([0.0, 0.01, 0.1])
    key = jax.random.key(7)
    expected = np.array(
        [
            [float(loss(perturb(params, b, jax.random.fold_in(key, i), perturbed="all")))
             for i in range(5)]
            for b in betas
        ]
    )  # fmt: skip
    for chunk in (1, 2, 5, 10):
        got = perturbed_losses(loss, params, betas, key=key, draws=5, perturbed="all", chunk=chunk)
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_unstable_at_an_eigenvalue_of_zero_and_above():
    assert not unstable(_model(), "direct")  # eigenvalues -0.05 ... -0.5
    for lam0 in (0.0, 0.3):
        params = _model()
        params = params._replace(raw=params.raw.at[0].set(lam0))  # direct: raw = lam
        assert unstable(params, "direct")
    # exp, softplus and inverse keep every eigenvalue negative whatever the raw value
    for p in ("exp", "softplus", "inverse"):
        assert not unstable(_model(parameterisation=p)._replace(raw=jnp.full(3, 5.0)), p)


def test_crossing_beta_and_crossed_zero():
    params = _model(N=1)  # lam = -0.05: a sup-norm perturbation moves raw by exactly +-beta
    assert crossing_beta(params, "direct") == pytest.approx(0.05)
    assert crossing_beta(_model(parameterisation="exp"), "exp") == math.inf
    key = jax.random.key(3)
    betas = np.array([0.0, 0.04, 0.2])
    crossed = crossed_zero(
        params, betas, key=key, draws=8, parameterisation="direct", perturbed="all"
    )
    up = np.array(
        [float(perturb(params, 1.0, jax.random.fold_in(key, i)).raw[0]) > -0.05 for i in range(8)]
    )  # draws that move raw upwards
    np.testing.assert_array_equal(crossed[:2], False)
    np.testing.assert_array_equal(crossed[2], up)
    assert 0 < up.sum() < 8


def test_nl_error_sets_at_zero_is_the_fit_error():
    t = np.linspace(0.0, 50.0, 501)
    with jax.enable_x64(True):
        rho = np.asarray(poly_memory(t))
    rho_k = np.asarray(poly_memory(np.arange(30.0)))
    u = 0.1 * jax.random.normal(jax.random.key(0), (8, 30))
    y = linear_functional(rho_k, u, 1.0)[..., None]
    data = rep.NLData(np.arange(30.0), rho_k, u[..., None], y, float(jnp.mean(y**2)))
    models = nl_models(rho, t, {"tanh": ("exp",)}, [2, 4], dt=1.0)
    kw = dict(key=jax.random.key(1), repeats=2, sets=1, dt=1.0, perturbed="all")
    E = nl_error_sets(models, data, [0.0, 0.01], **kw)["tanh", "exp"]
    assert E.shape == (1, 2, 2)
    for row, params in zip(E[0], models["tanh", "exp"], strict=True):
        out = ctrnn_outputs(params, u[..., None], activation="tanh", parameterisation="exp")
        np.testing.assert_allclose(row[0], float(jnp.mean((out - y) ** 2)), rtol=1e-5)
    with pytest.raises(ValueError, match="models"):
        nl_error_sets({("tanh", "exp"): []}, data, [0.0], **kw)
    with pytest.raises(ValueError, match="betas"):
        nl_error_sets(models, data, [0.1, 0.0], **kw)


def test_direct_above_by_hand():
    # 2 sets, 2 widths, 2 betas; direct grows 100x at beta 1, stable 2x
    direct = np.array([[[1.0, 1.0], [1.0, 100.0]], [[1.0, 1.0], [2.0, 120.0]]])
    stable = np.array([[[1.0, 1.0], [1.0, 2.0]], [[1.0, 1.0], [1.5, 3.0]]])
    growth, widest = direct_above(direct, stable)
    # beta 0: direct growth {1, 2} and widest {1, 2} overlap stable's {1, 1.5}
    np.testing.assert_array_equal(growth, [False, True])
    np.testing.assert_array_equal(widest, [False, True])
    # direct against itself is never above beyond the spread
    growth, widest = direct_above(direct, direct)
    assert not growth.any() and not widest.any()
    # several stable maps are pooled: one of them as high as direct breaks the separation
    growth, widest = direct_above(direct, np.stack([stable, direct]))
    assert not widest[1]
    with pytest.raises(ValueError, match="direct_sets"):
        direct_above(direct[:, :1], stable[:, :1])
    # both widths diverged in one direct set: growth undefined there, widest still compared
    diverged = direct.copy()
    diverged[0, :, 1] = np.inf
    growth, widest = direct_above(diverged, stable)
    np.testing.assert_array_equal(growth, [False, False])
    np.testing.assert_array_equal(widest, [False, True])


def test_fits_alike_within_the_relative_tolerance():
    ref = np.array([1e-2, 4e-3, 1e-3])
    assert fits_alike(ref, [ref * 1.005, ref * 0.995])
    assert not fits_alike(ref, [ref * 1.005, ref * [1.0, 1.0, 1.05]])  # one width 5 % off
    assert fits_alike(ref, [ref * 1.04], rtol=0.05)
    with pytest.raises(ValueError, match="shape"):
        fits_alike(ref, [ref[:2]])


def test_perturbed_losses_compile_once_per_loss_and_shapes():
    """The loss is a static argument and the model and data traced ones: another model and other
    data of the same shapes, or fewer draws, reuse the compiled grid, with the numbers of a
    closure over the data."""
    from lrnn_core.wang_li_li import perturbation

    loss = perturbation.output_loss_of("tanh", "direct", 1.0)
    assert perturbation.output_loss_of("tanh", "direct", 1.0) is loss
    betas, key = np.array([0.0, 0.02]), jax.random.key(8)
    u = jax.random.normal(jax.random.key(5), (4, 20, 1))
    ys = [jax.random.normal(jax.random.key(s), (4, 20, 1)) for s in (6, 7)]
    perturbation._loss_grid.clear_cache()
    for seed, y in zip((0, 1), ys, strict=True):
        params = _model(seed=seed)
        for draws in (6, 4):
            got = perturbed_losses(
                loss, params, betas, key=key, draws=draws, perturbed="all", chunk=3, data=(u, y)
            )
            want = perturbed_losses(
                lambda q, y=y: output_mse(q, u, y, activation="tanh", parameterisation="direct"),
                params, betas, key=key, draws=draws, perturbed="all", chunk=3,
            )  # fmt: skip
            np.testing.assert_allclose(got, want, rtol=1e-6)
    # one program for `loss`, and one per closure (4 calls)
    assert perturbation._loss_grid._cache_size() == 1 + 4


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

    monkeypatch.setattr(rep, "linear_perturbation_errors", fake)
    E = rep.fig4_error_sets(
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
    (got,) = nl_models(rho, t, {"tanh": ("exp",)}, [3], dt=1.0)["tanh", "exp"]
    want = fitted_rnn(
        rho, t, geometric_rates(3, fastest=1.0), activation="tanh", parameterisation="exp"
    )
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="key"):
        nl_models(rho, t, {"tanh": ("exp",)}, [3], dt=1.0, finetune_epochs=1)
    models = nl_models(rho, t, {"relu": ("direct",), "tanh": ("exp",)}, [2, 3], dt=1.0)
    assert list(models) == [("relu", "direct"), ("tanh", "exp")]
    assert [q.raw.shape[0] for q in models["relu", "direct"]] == [4, 6]  # ReLU: pairs
    np.testing.assert_array_equal(models["tanh", "exp"][1].C, want.C)


def test_nl_error_sets_take_set_maxima_and_the_running_max(monkeypatch):
    calls = []

    def fake(loss, params, betas, **kw):
        calls.append((kw["draws"], kw["chunk"], kw["perturbed"]))
        out = _fake_draws((2, len(betas), kw["draws"]))[1 - len(calls) % 2]
        return out[::-1]  # decreasing in beta: the running max must undo it

    monkeypatch.setattr(rep, "perturbed_losses", fake)
    data = rep.NLData(np.zeros(2), np.zeros(2), jnp.zeros((1, 2, 1)), jnp.zeros((1, 2, 1)), 1.0)
    models = {("tanh", "exp"): [_model(), _model(4)], ("relu", "direct"): [_model(), _model(4)]}
    E = rep.nl_error_sets(
        models, data, [0.0, 0.1, 0.2], key=jax.random.key(0), repeats=3, sets=2, dt=1.0,
        perturbed="all_but_bias",
    )  # fmt: skip
    assert calls == [(6, 3, "all_but_bias")] * 4
    raw = _fake_draws((2, 3, 6))[:, ::-1]
    assert E["tanh", "exp"].shape == (2, 2, 3)
    # set 1 = draws 3..5: its maximum is draw 5; running max over the betas
    want = np.maximum.accumulate(raw[..., 5], axis=-1)
    np.testing.assert_array_equal(E["tanh", "exp"][1], want)
    assert np.all(E["tanh", "exp"][1] == E["tanh", "exp"][1][:, :1])  # the first beta's max


def test_widget_memories_of_the_model_and_its_perturbations():
    model = _model()
    keys = [jax.random.key(1), jax.random.key(2)]
    kw = dict(L=5, amplitude=0.1, dt=1.0, perturbed="all")
    memory, crossed = rep.widget_memories({("tanh", "direct"): [model]}, 0.0, keys, **kw)
    rows = memory["tanh", "direct"]
    assert rows.shape == (3, 5) and not crossed["tanh", "direct"].any()
    np.testing.assert_allclose(rows[1:], np.stack([rows[0]] * 2), rtol=1e-6)  # beta = 0
    stable = _model(parameterisation="exp")
    _, crossed = rep.widget_memories({("tanh", "exp"): [stable]}, 5.0, keys, **kw)
    assert not crossed["tanh", "exp"].any()  # a stable map never crosses 0


def test_lru_worst_moduli_per_beta(monkeypatch):
    def fake(nu, theta, beta, *, coords, draws, first_seed):
        return beta + draws + first_seed + (coords == "lru")

    monkeypatch.setattr(rep, "lru_perturbed_modulus", fake)
    got = rep.lru_worst_moduli([0.0], [0.0], [0.25, 0.5], coords="lru", draws=3, first_seed=7)
    np.testing.assert_array_equal(got, [11.25, 11.5])
