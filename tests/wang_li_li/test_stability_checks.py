"""Claim checks of the stable-approximation chapter (WLL Figs 1-3, App. C, Thm 3.9)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.core.memory import DecayFit, fit_decay, impulse_memory
from lrnn_core.wang_li_li.ctrnn import CTRNN, ctrnn_outputs
from lrnn_core.wang_li_li.stability_checks import (
    ModelMemory,
    bounded_in_width,
    contracting_memories,
    ctrnn_memory_check,
    epoch_gaps,
    epochs_gap,
    filter_check,
    fits_check,
    grows_in_width,
    linear_memory_check,
    rescaling_check,
    with_marginal_mode,
)

# columns: beta = 0, then two betas > 0; rows: widths
STABLE = np.array([[1e-2, 1e-3, 1e-2], [1e-3, 5e-3, 2e-2], [1e-4, 8e-4, 9e-3], [0.0, 9e-4, 1e-2]])
UNSTABLE = np.array([[1e-2, 1e-3, 1e-2], [5e-3, 1e0, 1e1], [1e-3, 1e4, 1e5], [1e-4, 2e4, 2e5]])


def test_width_checks_on_hand_made_error_tables():
    assert bounded_in_width(STABLE) and not grows_in_width(STABLE)
    assert grows_in_width(UNSTABLE) and not bounded_in_width(UNSTABLE)
    # a middle width 100x above the narrowest breaks the bound, at the default factor only
    spiky = STABLE.copy()
    spiky[1, 1] = 0.2
    assert not bounded_in_width(spiky) and bounded_in_width(spiky, factor=1000)
    # growth 2e7 but not monotone from the second width: not the unstable pattern
    dip = UNSTABLE.copy()
    dip[2, 1:] = 1e-1
    assert not grows_in_width(dip)
    with pytest.raises(ValueError, match="at least"):
        bounded_in_width(STABLE[:1])
    with pytest.raises(ValueError, match="not NaN"):
        grows_in_width(np.full((2, 2), np.nan))


def test_epochs_gap_counts_misses_as_the_budget_and_knows_when_it_cannot_decide():
    g = epochs_gap([2, 3, 2, 2], [2, 7, 9, 5], budget=50)
    assert (g.exponential, g.polynomial) == (9.0, 23.0)
    assert g.ratio == pytest.approx(23 / 9) and g.decidable and not g.holds
    # a polynomial width that misses the budget counts as 51
    g = epochs_gap([2, 3, 2, 2], [2, 40, np.inf, 30], budget=50)
    assert g.polynomial == 123.0 and g.ratio == pytest.approx(123 / 9) and g.holds
    # 3 widths x 21 epochs cannot reach 10 x 7: undecidable, so it does not hold
    g = epochs_gap([2, 3, 2], [21, 21, 21], budget=20)
    assert not g.decidable and not g.holds and g.ratio == 9.0
    # an exponential width that misses fails the claim
    assert not epochs_gap([2, np.inf], [50, 50], budget=50, min_gap=1.0).holds
    with pytest.raises(ValueError, match="min_gap"):
        epochs_gap([1], [1], budget=5, min_gap=0.5)
    with pytest.raises(ValueError, match="polynomial"):
        epochs_gap([1, 2], [1], budget=5)


def one_unit(lam, b=0.0, c=1.0):
    as_arr = lambda a: jnp.asarray(np.atleast_1d(a), jnp.float64)  # noqa: E731
    return CTRNN(
        raw=as_arr(lam),
        B=as_arr(np.ones(np.size(lam)))[:, None],
        b=as_arr(np.broadcast_to(b, np.shape(np.atleast_1d(lam)))),
        C=as_arr(np.broadcast_to(c, np.shape(np.atleast_1d(lam))))[None, :],
    )


def test_linear_mode_decays_at_the_euler_rate():
    # identity activation, one mode lam = -0.2: memory (1 - 0.2)^(k-1), rate -log 0.8
    with jax.enable_x64(True):
        mm = ctrnn_memory_check(one_unit(-0.2), activation="linear", L=200)
    assert mm.radius == pytest.approx(0.2)
    assert mm.predicted == pytest.approx(-np.log(0.8))
    assert mm.rate == pytest.approx(-np.log(0.8), rel=1e-6)
    assert mm.tail < 1e-6 and mm.holds


def test_two_modes_decay_at_least_at_the_slowest_rate_and_a_marginal_mode_fails():
    with jax.enable_x64(True):
        params = one_unit([-0.1, -0.6], b=[0.3, -0.2], c=[0.5, 2.0])
        mm = ctrnn_memory_check(params, activation="hardtanh", L=500)
        assert mm.radius == pytest.approx(0.1) and mm.predicted == pytest.approx(-np.log(0.9))
        assert mm.rate >= 0.9 * mm.predicted and mm.holds
        control = with_marginal_mode(params)
        # the most visible mode (|c B| = 2) is moved to lambda = 0
        np.testing.assert_array_equal(np.asarray(control.raw), [-0.1, 0.0])
        cm = ctrnn_memory_check(control, activation="hardtanh", L=500)
    assert cm.predicted == 0.0 and cm.tail > 0.1 and not cm.holds
    with pytest.raises(ValueError, match="one CTRNN"):
        ctrnn_memory_check(jax.tree.map(lambda a: a[None], params))
    with pytest.raises(ValueError, match="start"):
        ctrnn_memory_check(params, L=5, start=4.0)


def test_rate_is_read_on_the_relaxed_tail_not_on_a_saturated_transient():
    # lam = -0.2, b = 13, B = -26: the impulse (u_0 = 1) moves the state by -2, then both
    # trajectories sit in hardtanh's saturation (slope 0) for ~60 steps, where the difference
    # does not shrink; once relaxed it shrinks by 0.8 per step
    with jax.enable_x64(True):
        params = one_unit(-0.2, b=13.0)._replace(B=jnp.array([[-26.0]], jnp.float64))
        mm = ctrnn_memory_check(params, activation="hardtanh", L=400)
        memory = impulse_memory(
            lambda u: ctrnn_outputs(params, u[:, None], activation="hardtanh")[:, 0], 400
        )
    t = np.arange(400.0)
    assert memory[50] == pytest.approx(memory[1])  # flat while saturated
    assert fit_decay(memory, t, tail=(5.0, 399.0)).rate < 0.9 * mm.predicted  # transient
    assert mm.rate == pytest.approx(-np.log(0.8), rel=1e-3) and mm.holds


def test_contracting_memories_judges_only_the_contracting_checkpoints():
    ok = ModelMemory(radius=0.2, predicted=0.22, rate=0.25, tail=1e-9, holds=True)
    slow = ModelMemory(radius=0.2, predicted=0.22, rate=0.1, tail=1e-3, holds=False)
    outside = ModelMemory(radius=0.1, predicted=0.0, rate=0.0, tail=0.5, holds=False)
    assert contracting_memories([ok, outside]) == ([ok], True)  # outside: not judged
    assert contracting_memories([ok, slow, outside]) == ([ok, slow], False)
    assert contracting_memories([outside]) == ([], False)  # nothing to judge: no evidence


def test_filter_check_on_hand_made_verdicts():
    kept = [True, True, False]
    rates, r2, tails = [0.3, 0.2, np.nan], [0.99, 0.9, np.nan], [1e-9, 1e-8, 0.4]
    assert filter_check(kept, rates, r2, tails)
    assert not filter_check([False] * 3, rates, r2, tails)  # nothing kept
    assert not filter_check([True, True, True], rates, r2, tails)  # a non-decaying kept
    assert not filter_check(kept, [0.3, 0.01, 0.0], r2, tails)  # a kept tail barely decays
    assert not filter_check(kept, rates, [0.99, 0.5, 0.0], tails)  # not log-linear
    with pytest.raises(ValueError, match="tails"):
        filter_check(kept, rates, r2, tails[:2])


def test_linear_memory_check_on_hand_made_error_tables():
    betas = 3
    # exponential: E_m(0) falls to round-off, E_m(beta) flat in m; polynomial: E_m(0) falls,
    # E_m(beta) grows 1e7x from the narrowest to the widest width
    E_exp = np.array([[1e-3] + [1e-4] * betas, [1e-22] + [1e-4] * betas, [1e-24] + [9e-5] * betas])
    E_pol = np.array([[1e-2] + [1e-6] * betas, [5e-3] + [1e-3] * betas, [1e-3] + [1e1] * betas])
    assert linear_memory_check(E_exp, E_pol)
    grown, flat = E_exp.copy(), E_pol.copy()
    grown[:, 1:], flat[:, 1:] = E_pol[:, 1:], E_exp[:, 1:]
    assert not linear_memory_check(grown, E_pol)  # the exponential side grows in m
    assert not linear_memory_check(E_exp, flat)  # the polynomial side does not
    slow = E_exp.copy()
    slow[-1, 0] = 1e-19  # E_m(0) not at round-off
    assert not linear_memory_check(slow, E_pol)
    late = E_pol.copy()
    late[:, 0] = [1e-2, 9.6e-3, 9.5e-3]  # falls, but stays above 0.9 times the narrowest's
    assert not linear_memory_check(E_exp, late)


def test_rescaling_check_judges_slower_and_matched_targets_only():
    ok = {(1.0, 0.1): 1e8, (0.1, 0.1): 0.5, (0.1, 0.01): 2e6, (0.01, 0.01): 1.0}
    assert rescaling_check(ok)
    assert rescaling_check(ok | {(0.1, 1.0): 5e7})  # faster targets are not judged
    assert not rescaling_check(ok | {(0.1, 0.01): 1e6})  # not above the factor
    assert not rescaling_check(ok | {(0.1, 0.1): 1.01})  # matched but growing
    assert rescaling_check({(1.0, 0.1): 20.0}, factor=10.0)
    with pytest.raises(ValueError, match="growth"):
        rescaling_check({})


def test_fits_check_is_filter_check_on_the_fits():
    fits = [DecayFit(0.2, 0.0, 0.9), None, DecayFit(0.01, 0.0, 0.99)]
    tails = [1e-8, 0.5, 1e-3]
    assert fits_check([True, False, False], fits, tails)
    assert not fits_check([True, False, True], fits, tails)  # a kept rate below 0.05
    assert fits_check([True, False, True], fits, tails, min_rate=0.005)
    assert fits_check([True, False, True], fits, tails, min_rate=0.005) == filter_check(
        [True, False, True], [0.2, np.nan, 0.01], [0.9, np.nan, 0.99], tails, min_rate=0.005
    )


def test_epoch_gaps_is_epochs_gap_per_activation():
    needed = {
        ("tanh", "exponential"): np.array([2.0, 3.0]),
        ("tanh", "polynomial"): np.array([20.0, np.inf]),
        ("relu", "exponential"): np.array([2.0, 2.0]),
        ("relu", "polynomial"): np.array([2.0, 2.0]),
    }
    gaps = epoch_gaps(needed, budget=30, min_gap=5.0)
    assert list(gaps) == ["tanh", "relu"]
    assert gaps["tanh"] == epochs_gap([2, 3], [20, np.inf], budget=30, min_gap=5.0)
    assert gaps["tanh"].ratio == pytest.approx((20 + 31) / 5) and gaps["tanh"].holds
    assert gaps["relu"].ratio == 1.0 and not gaps["relu"].holds
