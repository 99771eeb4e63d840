"""The universality chapter's computations: superposition gap (Fig. 1), the best converged fit
(Fig. 2), exponential-sum fits (Prop. 3.2, Remark 3.7), the rank of the Volterra kernels and the
trained experiment of Prop. 3.9 (delay product, NMSE, baselines, a short training run, the grid)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.wang_xue import universality
from lrnn_core.wang_xue.memory import power_law_memory
from lrnn_core.wang_xue.universality import (
    LINEAR_MAPS,
    ModeCount,
    Sizes,
    baseline_nmse,
    best_converged,
    best_nmse,
    delay_product,
    exp_sum_error,
    in_exponential_span,
    k2_ranks,
    kernel_fit_errors,
    length_ratio,
    mode_counts,
    nmse,
    normalised,
    superposition_gap,
    train_grid,
    train_stack,
)
from lrnn_core.wang_xue.volterra import Volterra2, product_of_convolutions


def test_sizes_name_their_fields():
    s = Sizes((1, 2), 4, 64, (1,), (4,), 1, 300, 4)
    assert s.tok_Ns == (1, 2) and s.L == 64 and s.long == 4


def test_superposition_gap_is_round_off_for_identity_and_large_for_tanh():
    lin = superposition_gap("identity", seed=0, rng=np.random.default_rng(0), N=2, L=8)
    tanh = superposition_gap("tanh", seed=0, rng=np.random.default_rng(0), N=2, L=8)
    assert lin < 1e-13 and tanh > 1e-2
    with pytest.raises(ValueError):
        superposition_gap("softmax", seed=0, rng=np.random.default_rng(0))


def test_exp_sum_error_is_zero_in_the_span_and_the_lstsq_residual_outside():
    t = np.linspace(0, 20, 201)
    rho = 2 * np.exp(-0.1 * t) - np.exp(-0.2 * t)
    assert exp_sum_error(rho, t, 2, 0.1) < 1e-10
    basis = np.exp(-0.1 * t)[:, None]
    c = np.linalg.lstsq(basis, rho, rcond=None)[0]
    assert exp_sum_error(rho, t, 1, 0.1) == pytest.approx(np.abs(basis @ c - rho).max())


def test_kernel_fit_errors_are_relative_and_per_width():
    t = np.linspace(0, 50, 501)
    errs = kernel_fit_errors({"a": np.exp(-t), "3a": 3 * np.exp(-t)}, t, [5, 10], step=0.1)
    assert list(errs) == ["a", "3a"] and errs["a"].shape == (2,)
    np.testing.assert_allclose(errs["a"], errs["3a"], rtol=1e-6, atol=1e-12)
    assert errs["a"][0] > 1e-3 and errs["a"][1] < 1e-6  # rate 1 = 10 x 0.1 is on the grid


def test_mode_counts():
    lam = np.array([0.3, -0.8, 0.5])  # fixed rates: L exponentials
    fit = mode_counts({3: lam}, {3: 0.9 ** np.arange(3.0)}, step=0.5)[3]
    assert isinstance(fit, ModeCount)
    assert fit.short_error > 1e-3 and fit.full_error < 1e-12
    t = np.arange(3.0)
    cond = np.linalg.cond(np.exp(-np.outer(t, [0.5, 1.0, 1.5])))
    assert fit.cond == pytest.approx(cond)
    with pytest.raises(ValueError):
        mode_counts({4: lam}, {4: lam})
    k = np.arange(6)  # free rates: L/2 modes, the control 2
    generic = np.array([0.3, -0.8, 0.5, 0.1, -0.4, 0.9])
    two = 0.9**k - 0.5 * 0.3**k
    got = mode_counts({6: generic}, {6: two})[6]
    assert got.modes == 3 and got.control_modes == 2 and got.prony_error < 1e-10
    with pytest.raises(ValueError):
        mode_counts({6: generic}, {4: two[:4]})


def test_k2_ranks():
    rank_one = Volterra2(np.array([0.9, 0.5]), np.zeros(2), np.array([[1.0, 0.0], [0.0, 0.0]]))
    got = k2_ranks({"prod": product_of_convolutions(0.9, 0.5), "one": rank_one}, (4, 8))
    assert got == {("prod", 4): 2, ("prod", 8): 2, ("one", 4): 1, ("one", 8): 1}


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


def test_delay_product_and_nmse():
    u = jnp.arange(1.0, 11.0)
    y = np.asarray(delay_product(u, 1, 3))
    np.testing.assert_array_equal(y[:3], 0)
    np.testing.assert_array_equal(y[3:], (np.arange(3, 10) * np.arange(1, 8)))
    assert nmse(np.zeros(4), np.ones(4)) == 1.0
    assert nmse(np.ones(4), np.ones(4)) == 0.0


def test_baselines_of_a_linear_and_a_product_target():
    u_tr = jax.random.normal(jax.random.PRNGKey(0), (512, 16))
    u_te = jax.random.normal(jax.random.PRNGKey(1), (256, 16))
    lin = baseline_nmse(lambda u: jnp.pad(u, ((0, 0), (2, 0)))[:, :16], u_tr, u_te)
    assert lin["linear"] < 1e-6 and lin["ignores input"] > 0.9
    prod = baseline_nmse(delay_product, u_tr, u_te)
    assert prod["linear"] > 0.9  # no linear map predicts u_{k-3} u_{k-7}
    for base in (lin, prod):
        assert base["linear"] == min(base[k] for k in LINEAR_MAPS)


def test_linear_baseline_is_the_time_varying_map_on_a_time_varying_target():
    u_tr = jax.random.normal(jax.random.PRNGKey(3), (256, 12))
    u_te = jax.random.normal(jax.random.PRNGKey(4), (128, 12))
    gain = jnp.linspace(-1.0, 2.0, 12)  # y_k = g_k u_{k-1}: linear, not time-invariant
    base = baseline_nmse(lambda u: gain * jnp.pad(u, ((0, 0), (1, 0)))[:, :12], u_tr, u_te)
    assert base["time-varying map"] < 1e-8  # recovered to round-off (and the ridge)
    assert base["time-invariant filter"] > 0.1  # one tap cannot follow g_k
    assert base["linear"] == base["time-varying map"]
    assert set(base) == {"ignores input", "linear", *LINEAR_MAPS}


def test_training_beats_zero_on_a_linear_target():
    u_te = jax.random.normal(jax.random.PRNGKey(2), (64, 16))
    run = train_stack(
        lambda u: u, depth=1, N=4, L=16, steps=60, seeds=(0,), u_test=u_te,
        activation="identity",
    )  # fmt: skip
    assert run["nmse"] < 0.5 and run["pred"].shape == (16,)


def test_normalised_has_unit_spread_on_the_test_inputs():
    u_te = jax.random.normal(jax.random.PRNGKey(3), (8, 16))
    f = normalised(lambda u: 3 * u + 1, u_te)
    assert float(jnp.std(f(u_te))) == pytest.approx(1.0, rel=1e-5)
    np.testing.assert_allclose(f(jnp.ones(2)), 4 / float(jnp.std(3 * u_te + 1)), rtol=1e-6)
    with pytest.raises(ValueError, match="constant"):
        normalised(lambda u: 0 * u, u_te)


def test_train_grid_runs_every_target_depth_and_width_in_order(monkeypatch):
    calls = []

    def fake(target, **kw):
        calls.append((target, kw))
        return {"nmse": float(len(calls))}

    monkeypatch.setattr(universality, "train_stack", fake)
    u = np.zeros((2, 4))
    grid = train_grid(
        {"a": "A", "b": "B"}, depths=(1, 2), Ns=(4,), L=4, steps=3, seeds=(7,), u_test=u
    )
    assert list(grid) == [("a", 1, 4), ("a", 2, 4), ("b", 1, 4), ("b", 2, 4)]
    assert [g["nmse"] for g in grid.values()] == [1.0, 2.0, 3.0, 4.0]
    target, kw = calls[2]
    assert target == "B" and kw["depth"] == 1 and kw["N"] == 4 and kw["steps"] == 3
    assert kw["seeds"] == (7,) and kw["L"] == 4 and "u_long" not in kw


def _grid():
    r = lambda e, el: {"nmse": e, "nmse_long": el}  # noqa: E731
    return {
        ("a", 1, 4): r(0.2, 0.25), ("a", 1, 16): r(0.02, 0.03),
        ("b", 1, 4): r(0.5, 0.5), ("b", 1, 16): r(0.1, 0.15),
    }  # fmt: skip


def test_best_nmse_and_length_ratio_read_the_grid():
    grid = _grid()
    assert best_nmse(grid) == {"a": 0.02, "b": 0.1}
    assert length_ratio(grid) == pytest.approx(1.5)
