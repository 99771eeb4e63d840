"""Free-rate exponential fits of a kernel: Hankel rank and Prony's method."""

import numpy as np
import pytest

from lrnn_core.wang_xue.prony import hankel, min_modes, prony_fit


def test_hankel_layout():
    np.testing.assert_array_equal(hankel([0, 1, 2, 3]), [[0, 1, 2], [1, 2, 3]])


@pytest.mark.parametrize("L", [4, 6, 8, 10])
def test_generic_kernel_needs_half_its_length_and_prony_finds_them(L):
    h = np.random.default_rng(L).uniform(-1, 1, L)
    assert min_modes(h) == L // 2
    z, c, err = prony_fit(h, L // 2)
    assert err < 1e-10
    np.testing.assert_allclose((c * z ** np.arange(L)[:, None]).sum(axis=1).real, h, atol=1e-10)


def test_sum_of_two_exponentials_needs_two_at_every_length():
    for L in (4, 8, 16):
        k = np.arange(L)
        h = 0.9**k - 0.5 * 0.3**k
        assert min_modes(h) == 2
        z, _, err = prony_fit(h, 2)
        assert err < 1e-12
        np.testing.assert_allclose(np.sort(z.real), [0.3, 0.9], atol=1e-9)


def test_bad_input_raises():
    with pytest.raises(ValueError, match="2n"):
        prony_fit(np.ones(4), 3)
    with pytest.raises(ValueError, match="at least 2"):
        min_modes([1.0])
