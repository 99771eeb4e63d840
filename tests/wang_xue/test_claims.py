"""The Wang & Xue claim checks accept what has the property and reject a power-law memory."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lrnn_core.core.memory import fit_decay, heaviside_memory
from lrnn_core.core.stacked import StackedSSM
from lrnn_core.wang_xue.claims import (
    best_converged,
    binomial_envelope,
    decays_at_rate,
    finite_support,
    in_exponential_span,
    matches_closed_form,
    power_law_memory,
    stack_memory_bound,
    tail_matches_rate,
    tanh_rnn_rate,
    within_bound,
)

K = np.arange(500, dtype=float)
POWER = power_law_memory(K)


def _stack(depth, seed=0, N=4):
    return StackedSSM(
        1, N, 1, depth=depth, r_min=0.0, r_max=0.9, param_dtype=jnp.float64,
        rngs=nnx.Rngs(seed),
    )  # fmt: skip


def test_power_law_values():
    np.testing.assert_allclose(power_law_memory([0.0, 10.0]), [1.0, 2.0**-1.1])
    with pytest.raises(ValueError, match="non-negative"):
        power_law_memory([-1.0])


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_stack_memory_is_below_the_induction_bound_and_the_power_law_is_not(depth):
    with jax.enable_x64(True):
        model = _stack(depth, seed=depth)
        m = heaviside_memory(lambda u: model(u[:, None])[:, 0], 300)
        bound = stack_memory_bound(model, 300)
    check = within_bound(m, bound)
    assert check.holds and 0 < check.ratio <= 1
    assert not within_bound(POWER[:300], bound).holds


def test_bound_of_one_identity_layer_is_the_norm_product_times_r_to_the_k():
    with jax.enable_x64(True):
        model = StackedSSM(
            1, 1, 1, depth=1, activation="identity", mixing=False,
            param_dtype=jnp.float64, rngs=nnx.Rngs(0),
        )  # fmt: skip
        lam = float(model.layers[0].eigenvalues()[0])
        gain = abs(float(model.layers[0].B[0, 0]) * float(model.W[0, 0]))
        bound = stack_memory_bound(model, 20)
        m = heaviside_memory(lambda u: model(u[:, None])[:, 0], 20)
    np.testing.assert_allclose(bound, gain * lam ** np.arange(20), rtol=1e-12)
    np.testing.assert_allclose(m, bound, rtol=1e-9)  # one linear mode meets the bound


def test_binomial_envelope_is_the_d_fold_convolution():
    k = np.arange(30)
    r = 0.8
    conv = r**k
    for _ in range(2):
        conv = np.convolve(conv, r**k)[:30]
    np.testing.assert_allclose(binomial_envelope(1.0, r, 3, k), conv, rtol=1e-12)


def test_bound_refuses_what_the_theorem_does_not_cover():
    with jax.enable_x64(True):
        model = _stack(2)
        model.layers[0].b[...] = jnp.ones(4)
        with pytest.raises(ValueError, match="zero biases"):
            stack_memory_bound(model, 10)
    with pytest.raises(TypeError, match="StackedSSM"):
        stack_memory_bound("model", 10)
    with pytest.raises(ValueError, match="positive"):
        within_bound(POWER[:3], np.zeros(3))


def test_decays_at_rate_accepts_exponentials_times_polynomials_rejects_power_law():
    window, rate = (250.0, 499.0), -np.log(0.97)
    assert decays_at_rate(0.97**K, K, window, rate)[0]
    assert decays_at_rate((K + 1) ** 3 * 0.97**K, K, window, rate)[0]
    assert decays_at_rate(np.abs(np.cos(0.7 * K)) * 0.97**K + 1e-300, K, window, rate)[0]
    assert fit_decay(POWER, K, tail=window).r2 > 0.99  # a log-linear fit alone accepts it
    holds, ratio = decays_at_rate(POWER, K, window, rate)
    assert not holds and ratio < 0.2


def test_decays_at_rate_and_rnn_rate():
    W = np.array([[0.5, 0.0], [0.0, 0.2]])
    rate = tanh_rnn_rate(W, np.zeros(2), np.zeros(2), x=0.0)  # fixed point 0: J = W
    assert rate == pytest.approx(-np.log(0.5))
    assert decays_at_rate(0.5**K, K, (5.0, 40.0), rate) == (True, pytest.approx(1.0))
    holds, ratio = decays_at_rate(POWER, K, (5.0, 40.0), rate)
    assert not holds and ratio < 0.1
    with pytest.raises(ValueError, match="fixed point"):
        tanh_rnn_rate(np.array([[0.0, 3.0], [-3.0, 0.0]]), np.ones(2), np.zeros(2))


def test_tail_matches_rate_and_closed_form_and_support():
    assert tail_matches_rate(0.98**K, K, (200.0, 400.0), -np.log(0.98))
    assert not tail_matches_rate(POWER, K, (200.0, 400.0), -np.log(0.98))
    assert matches_closed_form(0.9**K, 0.9**K + 5e-4, 1e-3)
    assert not matches_closed_form(POWER, 0.9**K, 1e-2)
    tcn = np.r_[np.ones(16), np.zeros(484)]
    assert finite_support(tcn, 16) and not finite_support(tcn, 17)
    assert not finite_support(POWER, 16)


def test_exponential_span_matches_exponentials_not_power_law():
    t = np.linspace(0.0, 100.0, 1001)
    ok, err = in_exponential_span(np.exp(-t), t, 16)
    assert ok and err < 1e-6
    ok, err = in_exponential_span(power_law_memory(t), t, 16)
    assert not ok and err > 1e-3


def test_best_converged_ignores_unconverged_fits():
    errors = {2: 1e-2, 4: 1e-4, 8: 1e-9}
    assert best_converged(errors, {2: True, 4: True, 8: False}) == (1e-4, True)
    assert best_converged(errors, {2: True, 4: True, 8: True}) == (1e-9, True)
    assert best_converged(errors, {2: False, 4: False, 8: False}) == (1e-9, False)
    with pytest.raises(ValueError, match="same widths"):
        best_converged(errors, {2: True})
