"""The width illustration's driver (Orvieto et al., ICML 2024, Thm. 1 / Prop. 2): closed-form
``||omega_j||``, exact token recovery, the per-lag seeds, and the D(eps) ordering check."""

import numpy as np
import pytest

from lrnn_core.orvieto.width import scaled_roots_of_unity, width_errors, width_task
from lrnn_core.orvieto.width_experiments import WIDTH_CI, run_widths, widens


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


def test_widens_is_non_decreasing_and_larger_at_the_end():
    assert widens([2.0, 8.0, 8.0]) and widens([2.0, np.inf])
    assert not widens([8.0, 8.0]) and not widens([8.0, 2.0, 32.0])
    assert WIDTH_CI.Ds == (2, 8, 32) and WIDTH_CI.eps == 5e-3
