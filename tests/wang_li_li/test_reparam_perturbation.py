"""Tests of lrnn_core.wang_li_li.reparam_perturbation on numbers: the authors' beta grid, the
sets-of-draws maxima and running max by hand, the separation test and its exchangeability
p-value, the chunked draws against
perturbation.perturbed_losses, the crossing threshold."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.core.targets import linear_functional, poly_memory
from lrnn_core.wang_li_li.ctrnn import CTRNN, ctrnn_outputs, output_mse, raw_from_weight
from lrnn_core.wang_li_li.fitting import fitted_rnn, geometric_rates
from lrnn_core.wang_li_li.perturbation import perturb, perturbed_losses
from lrnn_core.wang_li_li.reparam_perturbation import (
    authors_betas,
    crossed_zero,
    crossing_beta,
    direct_above,
    fits_alike,
    model_draw_losses,
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
    assert separated([1.0, 2.0], [2.5, np.inf])
    assert not separated([1.0, 3.0], [2.5, 4.0])
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


def test_model_draw_losses_at_zero_is_the_fit_error():
    t = np.linspace(0.0, 50.0, 501)
    with jax.enable_x64(True):
        rho = np.asarray(poly_memory(t))
    rho_k = np.asarray(poly_memory(np.arange(30.0)))
    u = 0.1 * jax.random.normal(jax.random.key(0), (8, 30))
    y = linear_functional(rho_k, u, 1.0)[..., None]
    models = [
        fitted_rnn(
            rho, t, geometric_rates(m, fastest=1.0), activation="tanh", parameterisation="exp"
        )
        for m in (2, 4)
    ]
    table = model_draw_losses(
        models,
        u[..., None],
        y,
        [0.0, 0.01],
        key=jax.random.key(1),
        draws=2,
        activation="tanh",
        parameterisation="exp",
        perturbed="all",
    )
    assert table.shape == (2, 2, 2)
    for row, params in zip(table, models, strict=True):
        out = ctrnn_outputs(params, u[..., None], activation="tanh", parameterisation="exp")
        np.testing.assert_allclose(row[0], float(jnp.mean((out - y) ** 2)), rtol=1e-5)
    with pytest.raises(ValueError, match="models"):
        model_draw_losses(
            [],
            u[..., None],
            y,
            [0.0],
            key=jax.random.key(1),
            draws=1,
            activation="tanh",
            parameterisation="exp",
            perturbed="all",
        )


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
