"""perturbation: sup-norm of the noise, beta = 0, monotonicity in draws, agreement with a NumPy loop."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.ctrnn import CTRNN
from lrnn_core.perturbation import perturb, perturbation_error, perturbed_losses


def quadratic_loss(params):
    return jnp.sum(params["a"] ** 2) + jnp.sum((params["b"] - 1.0) ** 2)


PARAMS = {"a": jnp.array([0.3, -0.2, 0.1]), "b": jnp.ones((2, 2))}


def test_each_leaf_is_moved_by_exactly_beta_in_sup_norm():
    moved = perturb(PARAMS, 0.25, jax.random.key(0))
    for name in PARAMS:
        shift = np.abs(np.asarray(moved[name] - PARAMS[name])).max()
        np.testing.assert_allclose(shift, 0.25, rtol=1e-6)


def test_beta_zero_is_the_unperturbed_loss():
    errors = perturbation_error(quadratic_loss, PARAMS, [0.0, 0.1], key=jax.random.key(1), draws=5)
    np.testing.assert_allclose(errors[0], float(quadratic_loss(PARAMS)), rtol=1e-6)
    assert errors[1] > errors[0]


def test_non_decreasing_in_draws_and_same_directions_across_betas():
    betas = [0.01, 0.05, 0.2]
    previous = np.zeros(3)
    for draws in (1, 2, 5, 10):
        errors = perturbation_error(quadratic_loss, PARAMS, betas, key=jax.random.key(2), draws=draws)
        assert np.all(errors >= previous - 1e-7)
        previous = errors
    table = perturbed_losses(quadratic_loss, PARAMS, betas, key=jax.random.key(2), draws=4)
    first_four = perturbed_losses(quadratic_loss, PARAMS, betas, key=jax.random.key(2), draws=10)[:, :4]
    np.testing.assert_allclose(table, first_four, rtol=1e-6)


def test_matches_numpy_loop_for_a_linear_model():
    """The perturbed loss of a scalar model y = w x equals the loss at w + beta * sign(n)."""
    x = np.linspace(-1, 1, 11)
    params = {"w": jnp.array([2.0])}

    def loss(p):
        return jnp.mean((p["w"][0] * x - 1.5 * x) ** 2)

    errors = perturbation_error(loss, params, [0.0, 0.1, 0.3], key=jax.random.key(3), draws=8)
    # a one-element tensor rescaled to sup-norm beta is +-beta; the worst draw moves w away from 1.5
    expected = [np.mean((w - 1.5) ** 2 * x**2) for w in (2.0, 2.1, 2.3)]
    np.testing.assert_allclose(errors, expected, rtol=1e-5)


def test_unstable_perturbation_gives_inf_and_running_max():
    def loss(p):
        return jnp.exp(1000.0 * p["w"][0])

    errors = perturbation_error(loss, {"w": jnp.array([0.0])}, [0.5, 0.0], key=jax.random.key(4), draws=4)
    assert errors[0] == np.inf and errors[1] == 1.0

    def bumpy(p):
        return jnp.where(jnp.abs(p["w"][0]) < 0.15, 1.0 + jnp.abs(p["w"][0]), 0.0)

    plain = perturbation_error(bumpy, {"w": jnp.array([0.0])}, [0.0, 0.1, 0.2], key=jax.random.key(5), draws=2)
    running = perturbation_error(bumpy, {"w": jnp.array([0.0])}, [0.0, 0.1, 0.2], key=jax.random.key(5),
                                 draws=2, running_max=True)
    np.testing.assert_allclose(plain, [1.0, 1.1, 0.0], rtol=1e-6)
    np.testing.assert_allclose(running, [1.0, 1.1, 1.1], rtol=1e-6)


def test_works_on_ctrnn_pytrees():
    params = CTRNN(jnp.array([-1.0]), jnp.ones((1, 1)), jnp.zeros(1), jnp.ones((1, 1)))
    errors = perturbation_error(lambda p: jnp.sum(p.raw**2), params, [0.0, 0.5], key=jax.random.key(6), draws=6)
    np.testing.assert_allclose(errors, [1.0, 2.25], rtol=1e-5)


def test_bad_arguments():
    with pytest.raises(ValueError, match="betas must be >= 0"):
        perturbation_error(quadratic_loss, PARAMS, [-0.1], key=jax.random.key(0))
    with pytest.raises(ValueError, match="betas contains non-finite"):
        perturbation_error(quadratic_loss, PARAMS, [np.nan], key=jax.random.key(0))
    with pytest.raises(ValueError, match="draws"):
        perturbation_error(quadratic_loss, PARAMS, [0.1], key=jax.random.key(0), draws=0)
    with pytest.raises(ValueError, match="1-D"):
        perturbation_error(quadratic_loss, PARAMS, [[0.1]], key=jax.random.key(0))
