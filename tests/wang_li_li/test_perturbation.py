"""perturbation: sup-norm of the noise, beta = 0, monotonicity in draws, agreement with a NumPy
loop."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.wang_li_li.ctrnn import CTRNN, ctrnn_outputs
from lrnn_core.wang_li_li.fitting import fit_linear_rnn, geometric_rates, kernel_loss
from lrnn_core.wang_li_li.perturbation import (
    bias_response_error,
    check_betas,
    linear_perturbation_errors,
    lru_perturbed_modulus,
    perturb,
    perturbation_error,
    perturbation_noise,
    perturbed_losses,
    width_growth,
    width_growth_bounds,
)


def quadratic_loss(params):
    return jnp.sum(params["a"] ** 2) + jnp.sum((params["b"] - 1.0) ** 2)


PARAMS = {"a": jnp.array([0.3, -0.2, 0.1]), "b": jnp.ones((2, 2))}


def test_each_leaf_is_moved_by_exactly_beta_in_sup_norm():
    moved = perturb(PARAMS, 0.25, jax.random.key(0))
    for name in PARAMS:
        shift = np.abs(np.asarray(moved[name] - PARAMS[name])).max()
        np.testing.assert_allclose(shift, 0.25, rtol=1e-6)


def test_beta_zero_is_the_unperturbed_loss():
    errors = perturbation_error(
        quadratic_loss, PARAMS, [0.0, 0.1], key=jax.random.key(1), draws=5, perturbed="all"
    )
    np.testing.assert_allclose(errors[0], float(quadratic_loss(PARAMS)), rtol=1e-6)
    assert errors[1] > errors[0]


def test_non_decreasing_in_draws_and_same_directions_across_betas():
    betas = [0.01, 0.05, 0.2]
    previous = np.zeros(3)
    for draws in (1, 2, 5, 10):
        errors = perturbation_error(
            quadratic_loss, PARAMS, betas, key=jax.random.key(2), draws=draws, perturbed="all"
        )
        assert np.all(errors >= previous - 1e-7)
        previous = errors
    table = perturbed_losses(
        quadratic_loss, PARAMS, betas, key=jax.random.key(2), draws=4, perturbed="all"
    )
    first_four = perturbed_losses(
        quadratic_loss, PARAMS, betas, key=jax.random.key(2), draws=10, perturbed="all"
    )[:, :4]
    np.testing.assert_allclose(table, first_four, rtol=1e-6)


def test_matches_numpy_loop_for_a_linear_model():
    """The perturbed loss of a scalar model y = w x equals the loss at w + beta * sign(n)."""
    x = np.linspace(-1, 1, 11)
    params = {"w": jnp.array([2.0])}

    def loss(p):
        return jnp.mean((p["w"][0] * x - 1.5 * x) ** 2)

    errors = perturbation_error(
        loss, params, [0.0, 0.1, 0.3], key=jax.random.key(3), draws=8, perturbed="all"
    )
    # a one-element tensor rescaled to sup-norm beta is +-beta; the worst draw moves w away from 1.5
    expected = [np.mean((w - 1.5) ** 2 * x**2) for w in (2.0, 2.1, 2.3)]
    np.testing.assert_allclose(errors, expected, rtol=1e-5)


def test_unstable_perturbation_gives_inf_and_running_max():
    def loss(p):
        return jnp.exp(1000.0 * p["w"][0])

    errors = perturbation_error(
        loss, {"w": jnp.array([0.0])}, [0.5, 0.0], key=jax.random.key(4), draws=4, perturbed="all"
    )
    assert errors[0] == np.inf and errors[1] == 1.0

    def bumpy(p):
        return jnp.where(jnp.abs(p["w"][0]) < 0.15, 1.0 + jnp.abs(p["w"][0]), 0.0)

    plain = perturbation_error(
        bumpy,
        {"w": jnp.array([0.0])},
        [0.0, 0.1, 0.2],
        key=jax.random.key(5),
        draws=2,
        perturbed="all",
    )
    running = perturbation_error(
        bumpy,
        {"w": jnp.array([0.0])},
        [0.0, 0.1, 0.2],
        key=jax.random.key(5),
        draws=2,
        perturbed="all",
        running_max=True,
    )
    np.testing.assert_allclose(plain, [1.0, 1.1, 0.0], rtol=1e-6)
    np.testing.assert_allclose(running, [1.0, 1.1, 1.1], rtol=1e-6)


def test_works_on_ctrnn_pytrees():
    params = CTRNN(jnp.array([-1.0]), jnp.ones((1, 1)), jnp.zeros(1), jnp.ones((1, 1)))
    errors = perturbation_error(
        lambda p: jnp.sum(p.raw**2),
        params,
        [0.0, 0.5],
        key=jax.random.key(6),
        draws=6,
        perturbed="all",
    )
    np.testing.assert_allclose(errors, [1.0, 2.25], rtol=1e-5)


def test_bad_arguments():
    with pytest.raises(ValueError, match="betas must be >= 0"):
        perturbation_error(quadratic_loss, PARAMS, [-0.1], key=jax.random.key(0), perturbed="all")
    with pytest.raises(ValueError, match="betas contains non-finite"):
        perturbation_error(quadratic_loss, PARAMS, [np.nan], key=jax.random.key(0), perturbed="all")
    with pytest.raises(ValueError, match="draws"):
        perturbation_error(
            quadratic_loss, PARAMS, [0.1], key=jax.random.key(0), draws=0, perturbed="all"
        )
    with pytest.raises(ValueError, match="1-D"):
        perturbation_error(quadratic_loss, PARAMS, [[0.1]], key=jax.random.key(0), perturbed="all")


def test_bias_rule_freezes_only_the_bias_and_keeps_the_other_noise():
    """'all' (the paper's and the authors' protocol) moves b; 'all_but_bias' leaves it and gives
    every other tensor the very same noise."""
    params = CTRNN(-jnp.ones(3), jnp.ones((3, 1)), jnp.full(3, 0.5), jnp.ones((1, 3)))
    moved = perturb(params, 0.1, jax.random.key(7), perturbed="all")
    frozen = perturb(params, 0.1, jax.random.key(7), perturbed="all_but_bias")
    np.testing.assert_array_equal(frozen.b, params.b)
    np.testing.assert_allclose(np.abs(np.asarray(moved.b - params.b)).max(), 0.1, rtol=1e-6)
    for field in ("raw", "B", "C"):
        np.testing.assert_array_equal(getattr(frozen, field), getattr(moved, field))
    with pytest.raises(ValueError, match="perturbed"):
        perturb(PARAMS_NO_BIAS, 0.1, jax.random.key(0), perturbed="all_but_bias")
    with pytest.raises(ValueError, match="perturbed must be one of"):
        perturb(params, 0.1, jax.random.key(0), perturbed="weights")


PARAMS_NO_BIAS = {"a": jnp.ones(2)}


def test_kernel_errors_equal_the_generic_protocol():
    """linear_perturbation_errors is perturbation_error of the kernel MSE of the fit."""
    t = np.linspace(0.0, 20.0, 201)
    rho = np.exp(-0.5 * t)
    with jax.enable_x64(True):
        params = fit_linear_rnn(rho, t, 4, rate=0.25)
        got = linear_perturbation_errors(
            rho, t, [4], [0.0, 0.01], key=jax.random.key(0), draws=4, perturbed="all",
            rates=lambda N: 0.25 * np.arange(1, N + 1),
        )[0]  # fmt: skip
        want = perturbation_error(
            lambda p: kernel_loss(p, rho, t),
            params,
            [0.0, 0.01],
            key=jax.random.key(0),
            draws=4,
            perturbed="all",
        )
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert got[0] < 1e-20 < got[1]  # exact fit: rate 0.5 is on the grid


def test_lru_perturbed_modulus_matches_a_loop_and_stays_in_the_disk():
    nu_log = jnp.log(-jnp.log(jnp.array([0.99, 0.995])))
    theta_log = jnp.log(jnp.array([0.5, 1.0]))
    lam = np.exp(-np.exp(np.asarray(nu_log)) + 1j * np.exp(np.asarray(theta_log)))
    worst = 0.0
    for d in range(3):
        re, im = perturb(
            (jnp.asarray(lam.real), jnp.asarray(lam.imag)), 0.05, jax.random.key(7 + d)
        )
        worst = max(worst, float(np.abs(np.asarray(re) + 1j * np.asarray(im)).max()))
    got = lru_perturbed_modulus(nu_log, theta_log, 0.05, coords="direct", draws=3, first_seed=7)
    np.testing.assert_allclose(got, worst, rtol=1e-6)
    assert got > 1.0  # 0.05 > 1 - 0.995: the direct coordinates leave the disk
    assert lru_perturbed_modulus(nu_log, theta_log, 0.5, coords="lru", draws=5) < 1.0


def _least_squares_residual(rho, t, rates):
    """Mean squared residual of the NumPy least-squares fit of rho by exp(-rate t)."""
    basis = np.exp(-np.outer(t, rates))
    coef = np.linalg.lstsq(basis, rho, rcond=None)[0]
    return np.mean((basis @ coef - rho) ** 2)


def test_linear_perturbation_errors_fit_and_perturb_each_width():
    """beta = 0 is the least-squares residual of a NumPy fit; beta > 0 is the kernel error of the
    same fit under perturbation_error of the kernel MSE, with the same key for every width."""
    t = np.linspace(0.0, 30.0, 301)
    rho = (1 + 0.1 * t) ** -1.1
    key = jax.random.key(4)
    geometric = dict(
        key=key, draws=3, rates=geometric_rates, parameterisation="exp", perturbed="all"
    )
    with jax.enable_x64(True):
        E = linear_perturbation_errors(rho, t, [2, 5], [0.0, 0.01], **geometric)
        table = linear_perturbation_errors(rho, t, [2, 5], [0.0, 0.01], **geometric, per_draw=True)
        uniform = linear_perturbation_errors(rho, t, [3], [0.0], key=key, perturbed="all")
        want = perturbation_error(
            lambda p: kernel_loss(p, rho, t, parameterisation="exp"),
            fit_linear_rnn(rho, t, rates=geometric_rates(5), parameterisation="exp"),
            [0.0, 0.01],
            key=key,
            draws=3,
            perturbed="all",
        )
    for m, row in ((2, E[0]), (5, E[1])):
        np.testing.assert_allclose(
            row[0], _least_squares_residual(rho, t, geometric_rates(m)), rtol=1e-8
        )
        assert row[1] > row[0]
    np.testing.assert_allclose(
        uniform[0, 0], _least_squares_residual(rho, t, 0.1 * np.arange(1, 4)), rtol=1e-8
    )
    np.testing.assert_allclose(E[1], want, rtol=1e-12)
    assert table.shape == (2, 2, 3)
    np.testing.assert_allclose(table.max(axis=-1), E, rtol=1e-12)
    np.testing.assert_allclose(table[:, 0, :], E[:, :1] * np.ones(3), rtol=1e-12)
    with pytest.raises(TypeError, match="rates"):
        linear_perturbation_errors(rho, t, [2], [0.0], key=key, rates=[1.0], perturbed="all")


def test_width_growth_on_numbers():
    E = np.array([[2.0, 1.0], [8.0, 0.5], [4.0, 3.0]])
    np.testing.assert_allclose(width_growth(E), [4.0, 3.0])
    np.testing.assert_allclose(width_growth(E, widest_only=True), [2.0, 3.0])
    assert width_growth(np.array([[1.0], [np.inf]]))[0] == np.inf
    with pytest.raises(ValueError, match="two widths"):
        width_growth(np.ones((1, 3)))
    with pytest.raises(ValueError, match="narrowest"):
        width_growth(np.array([[0.0], [1.0]]))


def test_bias_response_error_closed_form_and_monte_carlo():
    """N = 1: q = 1 and the formula is exact; N = 3: agrees with simulated linear CTRNNs whose bias
    alone is perturbed (perturb's noise), within 4 Monte Carlo standard errors."""
    lam, c, dt, T = np.array([-0.2]), np.array([1.5]), 0.5, 40
    k = np.arange(1, T + 1)
    exact = np.mean((1.5 * (1 - (1 - 0.1) ** k) / 0.2) ** 2)
    got = bias_response_error(lam, c, T, dt=dt, rng=np.random.default_rng(0), noise_draws=10)
    np.testing.assert_allclose(got, exact, rtol=1e-12)

    lam = np.array([-0.05, -0.3, -1.0])
    c = np.array([0.7, -2.0, 1.0])
    params = CTRNN(
        raw=jnp.asarray(lam), B=jnp.zeros((3, 1)), b=jnp.zeros(3), C=jnp.asarray(c)[None, :]
    )
    beta, draws = 0.1, 4000
    u = jnp.zeros((T, 1))

    def mse(key):
        moved = perturb(params, beta, key)  # every leaf moves: keep only the bias
        q = params._replace(b=moved.b)
        return jnp.mean(ctrnn_outputs(q, u, activation="linear", dt=dt) ** 2) / beta**2

    with jax.enable_x64(True):
        samples = np.asarray(jax.vmap(mse)(jax.random.split(jax.random.key(5), draws)))
    pred = bias_response_error(lam, c, T, dt=dt, rng=np.random.default_rng(1))
    se = samples.std() / np.sqrt(draws)
    assert abs(samples.mean() - pred) < 4 * se, (samples.mean(), pred, se)
    with pytest.raises(ValueError, match="lam must be < 0"):
        bias_response_error(-lam, c, T, rng=np.random.default_rng(0))


def test_check_betas():
    np.testing.assert_array_equal(check_betas([0.0, 0.1, 0.1]), [0.0, 0.1, 0.1])
    assert check_betas(np.float32([0.5])).dtype == np.float64
    np.testing.assert_allclose(np.asarray(check_betas([0, 0.1], increasing=True)), [0, 0.1])
    with pytest.raises(ValueError, match="strictly increasing"):
        check_betas([0.0, 0.1, 0.1], increasing=True)
    with pytest.raises(ValueError, match="betas must be >= 0"):
        check_betas([0.1, -0.1])
    with pytest.raises(ValueError, match="betas"):
        check_betas([])
    with pytest.raises(ValueError, match="betas"):
        check_betas([[0.1]])
    with pytest.raises(ValueError, match="betas"):
        check_betas([0.1, np.nan])


def test_width_growth_bounds_on_numbers_and_their_coverage():
    b = width_growth_bounds([2.0, 3.0, 4.0], [1.0, 2.0, 1.5])
    assert (b.lower, b.upper) == (1.0, 4.0) and b.confidence == pytest.approx(0.75)
    # coverage: lognormal sets whose medians differ by a factor 5; with 10 sets a side each
    # bound misses the true ratio with probability <= 2 * 2**-10
    rng = np.random.default_rng(0)
    trials = 4000
    w = 5.0 * np.exp(rng.normal(size=(trials, 10)))
    n = np.exp(rng.normal(size=(trials, 10)))
    bounds = [width_growth_bounds(a, c) for a, c in zip(w, n, strict=True)]
    assert bounds[0].confidence == pytest.approx(1 - 2 * 2.0**-10)
    assert np.mean([bd.upper < 5.0 for bd in bounds]) <= 2 * 2.0**-10 + 0.002
    assert np.mean([bd.lower > 5.0 for bd in bounds]) <= 2 * 2.0**-10 + 0.002
    # power: a factor 100 of growth is seen with sets this tight
    assert width_growth_bounds(100.0 * np.exp(0.1 * rng.normal(size=10)),
                               np.exp(0.1 * rng.normal(size=10))).lower > 10.0  # fmt: skip


def test_width_growth_bounds_rejects_bad_input():
    with pytest.raises(ValueError, match="widest"):
        width_growth_bounds([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="narrowest"):
        width_growth_bounds([1.0, 2.0], [0.0, 2.0])
    with pytest.raises(ValueError, match="narrowest"):
        width_growth_bounds([1.0, 2.0], [np.inf, 2.0])


@pytest.mark.parametrize("perturbed", ["all", "all_but_bias"])
@pytest.mark.parametrize("x64", [False, True])
def test_noise_is_each_leafs_own_gaussian_draw_bit_for_bit(perturbed, x64):
    """perturbation_noise cuts each leaf's noise from one row of NOISE_ROW Gaussians per leaf (one
    compiled program for every model): the same bits as a draw of the leaf's own shape from the
    leaf's key, for odd shapes, a leaf larger than a row, an empty leaf, a complex leaf and both
    float widths; zeros for the bias under "all_but_bias"."""
    with jax.enable_x64(x64):
        dtype = jnp.float64 if x64 else jnp.float32
        shapes = {"W": (5, 7), "b": (3,), "big": (40, 31), "c": (1,), "e": (0,), "z": (2, 3)}
        params = {k: jnp.ones(s, dtype) for k, s in shapes.items()}  # keys sorted: leaf order
        params["z"] = params["z"] * 1j  # complex noise: real and imaginary parts drawn the same way
        for seed in range(3):
            key = jax.random.key(seed)
            got = perturbation_noise(params, key, perturbed=perturbed)
            for k_i, (name, shape) in zip(jax.random.split(key, 6), shapes.items(), strict=True):
                frozen = perturbed == "all_but_bias" and name == "b"
                kind = params[name].dtype
                want = np.zeros(shape) if frozen else jax.random.normal(k_i, shape, kind)
                assert got[name].dtype == kind
                np.testing.assert_array_equal(np.asarray(got[name]), np.asarray(want))
