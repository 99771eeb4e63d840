"""The universality chapter's computations: superposition gap (Fig. 1), exponential-sum fits
(Prop. 3.2, Remark 3.7) and the rank of the Volterra kernels (Prop. 3.9)."""

import numpy as np
import pytest

from lrnn_core.wang_xue.universality_experiments import (
    FixedRateFit,
    Sizes,
    exp_sum_error,
    fixed_rate_fits,
    free_rate_modes,
    k2_ranks,
    kernel_fit_errors,
    superposition_gap,
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


def test_fixed_rates_need_L_exponentials():
    lam = np.array([0.3, -0.8, 0.5])
    (fit,) = fixed_rate_fits({3: lam}, step=0.5)
    assert isinstance(fit, FixedRateFit) and fit.L == 3
    assert fit.short_error > 1e-3 and fit.full_error < 1e-12
    t = np.arange(3.0)
    cond = np.linalg.cond(np.exp(-np.outer(t, [0.5, 1.0, 1.5])))
    assert fit.cond == pytest.approx(cond)
    with pytest.raises(ValueError):
        fixed_rate_fits({4: lam})


def test_free_rates_count_the_modes():
    k = np.arange(6)
    generic = np.array([0.3, -0.8, 0.5, 0.1, -0.4, 0.9])
    two = 0.9**k - 0.5 * 0.3**k
    got = free_rate_modes({6: generic}, {6: two})[6]
    assert got.modes == 3 and got.control_modes == 2 and got.prony_error < 1e-10
    with pytest.raises(ValueError):
        free_rate_modes({6: generic}, {4: two[:4]})


def test_k2_ranks():
    rank_one = Volterra2(np.array([0.9, 0.5]), np.zeros(2), np.array([[1.0, 0.0], [0.0, 0.0]]))
    got = k2_ranks({"prod": product_of_convolutions(0.9, 0.5), "one": rank_one}, (4, 8))
    assert got == {("prod", 4): 2, ("prod", 8): 2, ("one", 4): 1, ("one", 8): 1}
